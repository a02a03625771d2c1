// Package finding is the shape of the findings that the planner's own
// sub-packages (removal, gitops) return: they sit below the planner and
// cannot use planner.Finding, which the planner makes of each.
package finding

import (
	"github.com/krmplan/krmplan/diag"
	"github.com/krmplan/krmplan/tenancy"
)

// The levels: diag's severities, which planner.Level is too.
const (
	Error   = diag.Error
	Warning = diag.Warning
	Note    = diag.Note
)

// Finding is one finding, with planner.Finding's fields: Code is a code of
// the planner's catalogue (planner.Codes), Level one of the levels above.
type Finding struct {
	Code        string
	Level       diag.Severity
	Object      tenancy.ObjectAddr
	Queue, Pool string
	Message     string
	Where       []tenancy.Location
}
