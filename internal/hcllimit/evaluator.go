package hcllimit

import (
	"errors"
	"runtime"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
)

// Evaluator bounds one evaluation of HCL files (a Load of desired.hcl and
// its variables): the files it parses (ParseConfig, ParseExpression) are
// prepared so that every value they build is held to MaxElements,
// MaxBytes and MaxDepth and every number to quota.Parse's range, and the
// work is counted up to MaxWork, past which Run ends the evaluation. Its
// functions (Functions) are the given ones held to the same limits. An
// Evaluator is used by one goroutine, the one Run starts.
type Evaluator struct {
	funcs   map[string]function.Function
	work    int       // steps charged so far, up to MaxWork
	current hcl.Range // the expression being evaluated, for the work limit
	aborted *hcl.Diagnostic
	// nodes counts the syntax nodes of each top-level expression, for
	// CheckValue.
	nodes    map[hcl.Expression]int
	ops      map[*hclsyntax.Operation]*hclsyntax.Operation
	opErrors map[string]*limitError // by the Detail of hcl's "Operation failed"
}

// New returns an Evaluator whose functions are funcs, each held to the
// limits (and refused before it builds a value past them).
func New(funcs map[string]function.Function) *Evaluator {
	ev := &Evaluator{
		nodes:    map[hcl.Expression]int{},
		ops:      map[*hclsyntax.Operation]*hclsyntax.Operation{},
		opErrors: map[string]*limitError{},
	}
	pre := ev.preChecks()
	ev.funcs = make(map[string]function.Function, len(funcs))
	for name, f := range funcs {
		ev.funcs[name] = ev.guarded(name, f, pre[name])
	}
	return ev
}

// Functions are the functions for the evaluation contexts.
func (ev *Evaluator) Functions() map[string]function.Function { return ev.funcs }

// Run runs the evaluation f on a goroutine of its own and waits for it:
// past MaxWork the evaluation ends at once, from deep inside hcl, with
// runtime.Goexit (hcl's and cty's recovers would turn a panic into one
// error per iteration and carry on), and Aborted says where.
func (ev *Evaluator) Run(f func()) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	<-done
}

// Aborted is the diagnostic of the work limit when it ended the
// evaluation, nil when it did not.
func (ev *Evaluator) Aborted() *hcl.Diagnostic { return ev.aborted }

// abort ends the evaluation with a diagnostic at the range at.
func (ev *Evaluator) abort(at hcl.Range, err *limitError) {
	ev.aborted = &hcl.Diagnostic{Severity: hcl.DiagError, Summary: err.summary, Detail: err.detail, Subject: at.Ptr()}
	runtime.Goexit()
}

// Value evaluates a top-level expression of a prepared file (an
// attribute, a local, a variable's value) in ctx: the diagnostics of a
// broken limit inside it have the limit's summary and detail, and the
// value itself is held to the limits (CheckValue, with context as the
// diagnostic's Context).
func (ev *Evaluator) Value(expr hcl.Expression, ctx *hcl.EvalContext, context *hcl.Range) (cty.Value, hcl.Diagnostics) {
	ev.current = expr.Range()
	v, diags := expr.Value(ctx)
	for _, diag := range diags {
		ev.explain(diag)
	}
	if diags.HasErrors() {
		return v, diags
	}
	if d := ev.CheckValue(expr, v, context); d != nil {
		return cty.DynamicVal, append(diags, d)
	}
	return v, diags
}

// explain gives a diagnostic of hcl's that a limit caused (a limitError
// from a function or an operator) the limit's summary and detail.
func (ev *Evaluator) explain(diag *hcl.Diagnostic) {
	var le *limitError
	if e, ok := ev.opErrors[diag.Detail]; ok && diag.Summary == "Operation failed" {
		le = e
	} else if extra, ok := hcl.DiagnosticExtra[hclsyntax.FunctionCallDiagExtra](diag); !ok || !errors.As(extra.FunctionCallError(), &le) {
		return
	}
	if diag.Summary == "Error in function call" && diag.Context != nil {
		// Underline the whole call, not just its name.
		diag.Subject, diag.Context = diag.Context, nil
	}
	diag.Summary, diag.Detail = le.summary, le.detail
}
