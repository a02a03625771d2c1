package script

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/krmplan/krmplan/internal/escape"
	"github.com/krmplan/krmplan/internal/words"
	"github.com/krmplan/krmplan/planner"
	"github.com/krmplan/krmplan/snapshot"
	"github.com/krmplan/krmplan/tenancy"
)

// ErrNotApproved is returned by Approve for a plan without approval.
var ErrNotApproved = errors.New("the plan is not approved: run render at a terminal and answer yes, or pass --approve <plan id>")

// Approve decides whether p may be rendered. It refuses a plan with error
// findings, and one that approveID does not name (the full plan_id or a
// unique prefix of at least 12 hex digits). prompted reports that a person
// typed "yes" at a terminal after seeing the plan, which approves it too.
// The plan's integrity (plan_id against content) is checked by
// planfile.Decode when the file is read.
func Approve(p *planner.Plan, approveID string, prompted bool) error {
	if !p.Renderable() {
		return fmt.Errorf("plan %s has %s; fix the desired file and plan again", p.PlanID[:12], words.Count(p.Summary.Errors, "error"))
	}
	if approveID != "" {
		if !p.MatchID(approveID) {
			if len(strings.TrimSpace(approveID)) < 12 {
				return fmt.Errorf("--approve %s: give the plan id or at least its first 12 hex digits", approveID)
			}
			return fmt.Errorf("--approve %s does not match this plan (plan id %s)", approveID, p.PlanID)
		}
		return nil
	}
	if prompted {
		return nil
	}
	return ErrNotApproved
}

// Cluster is where a script's kubectl calls go.
type Cluster struct {
	// Context is the kubeconfig context that every kubectl call names
	// (--context): a script never runs against whatever context is
	// current. Required.
	Context string
	// Kubeconfig is the kubeconfig file every call names (--kubeconfig);
	// "" for kubectl's own ($KUBECONFIG, else ~/.kube/config).
	Kubeconfig string
	// From says in the header where Context comes from: "the snapshot's
	// context", "--context at render".
	From string
}

// Options are what a script needs beyond its plan.
type Options struct {
	Cluster Cluster
	// Rollback is the rollback script's file as the scripts name it (the
	// patch script's way on, the rollback's usage); "" when both are
	// printed on stdout, one after the other.
	Rollback string
}

// kubectl is the command line every kubectl call of the script starts
// with: kubectl [--kubeconfig F] --context C. A context or kubeconfig that
// holds a control character is refused: the script could not show it as
// it is.
func (o Options) kubectl() ([]word, error) {
	c := o.Cluster
	if c.Context == "" {
		return nil, errors.New("no cluster context: a patch script names the context it runs against")
	}
	args := []word{"kubectl"}
	for _, f := range []struct{ flag, value, what string }{{"--kubeconfig", c.Kubeconfig, "kubeconfig"}, {"--context", c.Context, "cluster context"}} {
		if f.value == "" {
			continue
		}
		if escape.Has(f.value) {
			return nil, fmt.Errorf("the %s %q holds a control character: kubectl %s would get a name the script cannot show; use a name without one", f.what, f.value, f.flag)
		}
		args = append(args, word(f.flag), quoted(f.value))
	}
	return args, nil
}

// PatchScript returns the shell script of an approved plan: one kubectl
// command per step, in the plan's verified order, each announced on
// stderr ("krmplan: step 2/4: shrinking departments: Department vision").
// Every patch tests the queue name and the value as read before replacing
// it, so a value that someone changed since the snapshot makes kubectl
// refuse the step (422) and nothing of it is applied. The script then
// stops with a report on stderr: each test of the step that fails now
// (checked alone, with a server dry run) with the value the cluster holds,
// which steps were applied, and the two ways on (plan again from a new
// snapshot, or the rollback script undoing the steps applied); it exits
// 10 + the step's number (250 for a step past 239), 0 when every step was
// applied. It never tests resourceVersion. A new object gets the
// annotation planner.CreatedByAnnotation with the plan id, by which its
// rollback recognises it.
//
// Every byte that comes from the plan is data to sh (see shell.go):
// comments are escaped, arguments single-quoted, object names validated.
// It refuses (an error naming the step and the value) a step whose object
// name is not a Kubernetes object name, whose kind or action is unknown,
// whose patch or manifest is not JSON (a manifest must be the step's
// object), and a context or kubeconfig with a control character, which the
// script could not show as it is.
func PatchScript(p *planner.Plan, o Options) ([]byte, error) {
	kubectl, err := o.kubectl()
	if err != nil {
		return nil, err
	}
	var w shell
	writeHeader(&w, p, o)
	own := applyLibrary
	if slices.ContainsFunc(p.Steps, func(st planner.Step) bool { return st.Action == planner.StepDelete }) {
		own += "\n" + deleteLibrary
	}
	own += renameLibraries(p)
	writePrelude(&w, p, o, kubectl, own)
	for n, st := range p.Steps {
		w.blank()
		renamed, err := writeRenamedDelete(&w, kubectl, p, n+1, st)
		if err == nil && !renamed {
			err = writeStep(&w, kubectl, p.PlanID, n+1, len(p.Steps), st)
		}
		if err != nil {
			return nil, fmt.Errorf("step %d/%d (%s %q): %w", n+1, len(p.Steps), st.Object.Kind, st.Object.Name, err)
		}
	}
	w.blank()
	w.command("krmplan_say", shown("all "+words.Count(len(p.Steps), "step")+" applied"))
	w.code("exit 0")
	return w.b.Bytes(), nil
}

// removalPhase marks the phases of removals, which the header's list of
// phases does not name.
var removalPhase = map[planner.Phase]bool{planner.PhaseRemoveProjects: true, planner.PhaseRemoveRenamed: true,
	planner.PhaseRemoveDepartments: true, planner.PhaseRemovePools: true}

// writeHeader writes the patch script's comments about the plan.
func writeHeader(w *shell, p *planner.Plan, o Options) {
	w.code("#!/bin/sh")
	w.comment("krmplan patch script for plan " + p.PlanID)
	writeSource(w, p, o)
	w.comment(words.Count(len(p.Steps), "step") + " in phases (new node pools, shrinking projects, shrinking departments,")
	w.comment("growing departments, growing projects); every intermediate state was")
	w.comment("verified against the checks. Each patch first tests the values it changes:")
	w.comment("if one changed since the snapshot, kubectl refuses that step, and the script")
	w.comment("stops and says which value changed, which steps were applied and how to go on.")
	w.comment("Exit code: 0 every step applied; 10+N step N failed (250 for a step past 239); 2 an argument given (it takes none).")
	if slices.ContainsFunc(p.Steps, func(st planner.Step) bool { return removalPhase[st.Phase] }) {
		w.comment("Removals go around those phases: removing projects and project queues")
		w.comment("first; removing renamed projects, departments and department queues, then")
		w.comment("node pools last, once nothing is left on them.")
	}
	w.comment("New objects get the annotation " + planner.CreatedByAnnotation + "=<plan id>: the rollback")
	w.comment("script (" + rollbackName(o) + ") deletes only those.")
	if slices.ContainsFunc(p.Steps, func(st planner.Step) bool { return st.Action == planner.StepDelete }) {
		w.comment("A deletion first tests the object as read (a server dry run), then deletes it")
		w.comment("with its uid as precondition, after a dry run: a namesake is never deleted.")
	}
	for _, f := range p.Findings {
		if f.Code == planner.CodeGitOpsOwned {
			w.comment("WARNING: " + f.Message)
		}
	}
	for _, r := range ProfileReminders(p) {
		w.comment(r)
	}
}

// writeSource writes the comments on where the plan's values come from
// and where the script's kubectl calls go.
func writeSource(w *shell, p *planner.Plan, o Options) {
	src := p.Snapshot.Source
	switch src.Kind {
	case "git":
		w.comment(fmt.Sprintf("snapshot: git %s at %s (commit %s)", src.Repo, src.Ref, src.Commit))
	default:
		w.comment("snapshot: cluster context " + src.Context)
	}
	on := "cluster: every kubectl call runs with --context " + o.Cluster.Context
	if o.Cluster.Kubeconfig != "" {
		on += " --kubeconfig " + o.Cluster.Kubeconfig
	}
	if o.Cluster.From != "" {
		on += " (" + o.Cluster.From + ")"
	}
	w.comment(on)
}

// rollbackName is the rollback script as the scripts name it.
func rollbackName(o Options) string {
	if o.Rollback == "" {
		return "printed after the patch script"
	}
	return o.Rollback
}

// writePrelude writes set -u, the variables the reports use, the kubectl
// function with the cluster's flags, and the library with the script's
// own part.
func writePrelude(w *shell, p *planner.Plan, o Options, kubectl []word, own string) {
	w.code("set -u")
	w.blank()
	w.code(fmt.Sprintf("krmplan_total=%d", len(p.Steps)))
	w.assign("krmplan_replan", shown(replan(p, o)))
	rb := "<the rollback script printed after this one>"
	if o.Rollback != "" {
		rb = string(quoted(filepath.Base(o.Rollback)))
	}
	w.assign("krmplan_rollback", shown(rb))
	if o.Rollback != "" {
		// The rollback is beside this script (and is this script): named
		// from the folder of $0, so that the hint runs from wherever the
		// user ran `sh DIR/apply.sh` — not from where render ran.
		w.code(`case $0 in */*) krmplan_rollback="${0%/*}/$krmplan_rollback" ;; esac`)
	}
	w.blank()
	w.function("krmplan_kubectl", append(kubectl, `"$@"`)...)
	w.blank()
	w.b.WriteString(library)
	w.blank()
	w.b.WriteString(own)
}

// replan is the way on through a new plan: the commands that take a live
// snapshot of the script's cluster and plan the desired file against it
// (a plan between two git refs has none: replanRefs).
// The desired file is named as plan.json recorded it: as krmplan plan was
// given it, which is a path from the folder plan ran in (often another
// folder, or a CI machine, than where the script runs), so the hint says
// so, as a Terraform user expects to plan again from the configuration's
// own folder; and a plan made with variables says that its --var and
// --var-file flags go with it, since without them the new plan differs.
func replan(p *planner.Plan, o Options) string {
	if p.Head != nil {
		return replanRefs(p)
	}
	snap := "krmplan snapshot"
	if o.Cluster.Kubeconfig != "" {
		snap += " --kubeconfig " + string(quoted(o.Cluster.Kubeconfig))
	}
	snap += " --context " + string(quoted(o.Cluster.Context)) + " -o state.json"
	if p.Desired.File == "" {
		return snap + ", then krmplan plan your desired file --state state.json --out plan.json"
	}
	hint := "the desired file as the plan recorded it, from the folder krmplan plan ran in"
	if len(p.Desired.Variables) > 0 {
		hint += "; with the --var and --var-file flags of that plan"
	}
	return snap + ", then krmplan plan " + string(quoted(p.Desired.File)) + " --state state.json --out plan.json (" + hint + ")"
}

// replanRefs is the way on through a new plan of a plan between two git
// refs (p.Head is set): the same plan --git-repo command, with the
// repository, the refs and the --tenancy paths as the snapshots recorded
// them and the plan's --force-removal flags. Such a plan reads its base
// from git, never from the cluster, so the new plan holds only what is
// left to change once the base ref holds what the cluster holds now; the
// hint says so, and, for a base read with --cluster-data (whose file the
// plan does not record), that a file of the cluster's data now goes with
// it.
func replanRefs(p *planner.Plan) string {
	base, head := p.Snapshot.Source, p.Head.Source
	cmd := "krmplan plan --git-repo " + string(quoted(base.Repo)) + " --base " + string(quoted(base.Ref)) + " --head " + string(quoted(head.Ref))
	for _, path := range refsPaths(base, head) {
		cmd += " --tenancy " + string(quoted(path))
	}
	data := clusterData(p.Snapshot)
	if data {
		cmd += " --cluster-data FILE"
	}
	for _, r := range p.Desired.ForceRemovals {
		cmd += " --force-removal " + string(quoted(r.String()))
	}
	hint := "a plan between git refs reads its base from git, not from the cluster: the base " + string(quoted(base.Ref)) + " must first hold what the cluster holds now"
	if data {
		hint += ", and FILE the cluster's nodes, queues and namespaces now"
	}
	return cmd + " --out plan.json (" + hint + ")"
}

// refsPaths are the --tenancy paths of a plan between two refs: the
// base's recorded paths (a snapshot records every --tenancy path, one
// that its ref lacked too), or, from a snapshot of a krmplan that
// recorded none, the files each ref read, each once.
func refsPaths(base, head snapshot.Source) []string {
	if len(base.Paths) > 0 {
		return base.Paths
	}
	var out []string
	for _, f := range slices.Concat(base.Files, head.Files) {
		if !slices.Contains(out, f.Path) {
			out = append(out, f.Path)
		}
	}
	return out
}

// clusterData reports whether the git snapshot st has cluster data: a
// git snapshot without any marks each cluster source not read with
// snapshot.NoCluster.
func clusterData(st *snapshot.State) bool {
	for _, n := range st.NotRead {
		if n.Reason == snapshot.NoCluster {
			return false
		}
	}
	return true
}

// writeStep writes step n of total: its comment, its announcement and its
// kubectl command (stepCommand) and, should kubectl refuse it, the report:
// for a patch each test that fails now, for a create whether the object
// exists; then the way on and the exit.
func writeStep(w *shell, kubectl []word, planID string, n, total int, st planner.Step) error {
	cmd, name, body, err := stepCommand(kubectl, planID, st)
	if err != nil {
		return err
	}
	report, err := stepReport(st, name)
	if err != nil {
		return err
	}
	announce(w, n, total, st)
	w.guarded(cmd, body, refused(n, total, st), report, n)
	return nil
}

// announce writes step n's comment and its announcement.
func announce(w *shell, n, total int, st planner.Step) {
	w.comment(fmt.Sprintf("%d/%d %s: %s", n, total, st.Phase, objectWord(st.Object)))
	w.command("krmplan_say", shown(fmt.Sprintf("step %d/%d: %s: %s", n, total, st.Phase, objectWord(st.Object))))
}

// refused is what the script says when kubectl refuses step n.
func refused(n, total int, st planner.Step) string {
	return fmt.Sprintf("step %d/%d failed: kubectl refused the %s of %s", n, total, st.Action, objectWord(st.Object))
}

// stepReport is the report of a refused step (name its object's name as
// a word): for a patch or a delete each test that fails now
// (krmplan_guards), for a create whether the object exists
// (krmplan_absent).
func stepReport(st planner.Step, name word) ([]word, error) {
	plural := word(st.Object.Kind.Plural())
	if st.Action != planner.StepPatch && st.Action != planner.StepDelete {
		return []word{"krmplan_absent", shown(objectWord(st.Object)), plural, name}, nil
	}
	guards, err := guardArgs(st, "the snapshot", "the plan read")
	if err != nil {
		return nil, err
	}
	return append([]word{"krmplan_guards", shown(objectWord(st.Object)), plural, name}, guards...), nil
}

// guarded writes cmd (body its here-document, when not nil) and what the
// script does when kubectl fails: say failed, report what changed since
// (report: a krmplan_guards or krmplan_absent call), and stop at step n
// (krmplan_failed). The patch script and its rollback share it.
func (w *shell) guarded(cmd []word, body []byte, failed string, report []word, n int) {
	w.guardedUnless(cmd, body, failed, report, n, nil)
}

// unless is a command that, run after kubectl refused a step, tells that
// the refusal is no failure (the step's work is done already), and what
// the script says then.
type unless struct {
	check []word
	say   word
}

// guardedUnless is guarded, except that after a refusal u.check runs
// first (when u is not nil): when it succeeds the script says u.say and
// goes on.
func (w *shell) guardedUnless(cmd []word, body []byte, failed string, report []word, n int, u *unless) {
	if body != nil {
		w.hereDoc(body, cmd)
	} else {
		w.command(cmd...)
	}
	w.code("if [ $? -ne 0 ]; then")
	w.depth++
	if u != nil {
		w.b.WriteString(strings.Repeat("\t", w.depth) + "if ")
		w.words(u.check)
		w.b.WriteString("; then\n")
		w.depth++
		w.command("krmplan_say", u.say)
		w.depth--
		w.code("else")
		w.depth++
	}
	w.command("krmplan_say", shown(failed))
	w.continued(report, 4, 3)
	w.command("krmplan_failed", word(strconv.Itoa(n)))
	if u != nil {
		w.depth--
		w.code("fi")
	}
	w.depth--
	w.code("fi")
}

// stepCommand is the kubectl command line of a step — kubectl create -f -
// with the manifest (annotated with planID) as a here-document, whose body
// it returns too, or kubectl patch with the JSON patch as one quoted word;
// and the object's name as a word (validated).
func stepCommand(kubectl []word, planID string, st planner.Step) (cmd []word, name word, body []byte, err error) {
	if !planned(st.Object.Kind) {
		return nil, "", nil, fmt.Errorf("kind %q is not a KRM kind krmplan renders (NodePool, Department, Project)", st.Object.Kind)
	}
	if name, err = objectName(st.Object.Kind.String(), st.Object.Name); err != nil {
		return nil, "", nil, err
	}
	switch st.Action {
	case planner.StepCreate:
		if body, err = manifest(st, planID); err != nil {
			return nil, "", nil, err
		}
		return append(kubectl, "create", "-f", "-"), name, body, nil
	case planner.StepPatch:
		ops, err := opsWord(st.Ops)
		if err != nil {
			return nil, "", nil, err
		}
		return append(kubectl, "patch", word(st.Object.Kind.Plural()), name, "--type=json", "--field-manager=krmplan", "-p", ops), name, nil, nil
	case planner.StepDelete:
		tests, err := opsWord(planner.TestOps(st))
		if err != nil {
			return nil, "", nil, err
		}
		return []word{"krmplan_delete", word(st.Object.Kind.Plural()), name, deleteURL(st.Object.Kind, name), tests}, name, nil, nil
	}
	return nil, "", nil, fmt.Errorf("action %q is not %s, %s or %s", st.Action, planner.StepPatch, planner.StepCreate, planner.StepDelete)
}

// Commands is the kubectl commands of p's patch script, for a view of the
// plan: per step its comment and its command, kubectl with the
// snapshot's context, or --context "$KRMPLAN_CONTEXT" when the snapshot
// names none (the context render is given). The errors are PatchScript's.
func Commands(p *planner.Plan) ([]byte, error) {
	kubectl := []word{"kubectl", "--context", `"$KRMPLAN_CONTEXT"`}
	if ctx := p.Snapshot.Source.Context; ctx != "" {
		var err error
		if kubectl, err = (Options{Cluster: Cluster{Context: ctx}}).kubectl(); err != nil {
			return nil, err
		}
	}
	var w shell
	for n, st := range p.Steps {
		cmd, _, body, err := stepCommand(kubectl, p.PlanID, st)
		if err != nil {
			return nil, fmt.Errorf("step %d/%d (%s %q): %w", n+1, len(p.Steps), st.Object.Kind, st.Object.Name, err)
		}
		if n > 0 {
			w.blank()
		}
		w.comment(fmt.Sprintf("%d/%d %s: %s", n+1, len(p.Steps), st.Phase, objectWord(st.Object)))
		r, err := renameOf(p, st)
		if err != nil {
			return nil, fmt.Errorf("step %d/%d (%s %q): %w", n+1, len(p.Steps), st.Object.Kind, st.Object.Name, err)
		}
		switch {
		case body != nil:
			w.hereDoc(body, cmd)
		case st.Action == planner.StepDelete:
			// krmplan_delete is the script's own function: shown as the
			// kubectl calls it makes; a rename's relabel comes after
			// the checks.
			w.command(append(kubectl, "patch", cmd[1], cmd[2], "--type=json", "--dry-run=server", "-p", cmd[4])...)
			if r != nil {
				commandsOfRename(&w, kubectl, r, true)
			}
			w.comment("then DELETE " + string(cmd[3]) + ", a dry run first, with preconditions.uid = its uid")
		default:
			w.command(cmd...)
		}
		if r != nil {
			commandsOfRename(&w, kubectl, r, false)
		}
	}
	return w.b.Bytes(), nil
}

// planned reports whether k is a kind a plan changes.
func planned(k tenancy.Kind) bool { return slices.Contains(tenancy.Planned, k) }

// opsWord is a JSON patch as one quoted word of ASCII JSON.
func opsWord(ops []planner.Op) (word, error) {
	b, err := json.Marshal(ops)
	if err == nil {
		b, err = asciiJSON(b)
	}
	if err != nil {
		return "", fmt.Errorf("the patch is not JSON: %w", err)
	}
	return quoted(string(b)), nil
}

// manifest is the new object of a create step as indented ASCII JSON, with
// the annotation planner.CreatedByAnnotation set to planID. It must be a
// JSON object of the step's kind and name; its numbers keep their text.
func manifest(st planner.Step, planID string) ([]byte, error) {
	var obj struct {
		Kind     string `json:"kind"`
		Metadata struct {
			Name string `json:"name"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(st.Manifest, &obj); err != nil {
		return nil, fmt.Errorf("the manifest is not a JSON object: %w", err)
	}
	if obj.Kind != st.Object.Kind.String() || obj.Metadata.Name != st.Object.Name {
		return nil, fmt.Errorf("the manifest is %s %q, not the step's object", obj.Kind, obj.Metadata.Name)
	}
	annotated, err := annotate(st.Manifest, planID)
	if err == nil {
		annotated, err = asciiJSON(annotated)
	}
	if err != nil {
		return nil, fmt.Errorf("the manifest is not JSON: %w", err)
	}
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, annotated, "", "  "); err != nil {
		return nil, fmt.Errorf("the manifest is not JSON: %w", err)
	}
	return pretty.Bytes(), nil
}

// annotate is the manifest raw with metadata.annotations holding
// planner.CreatedByAnnotation = planID; members in JSON's sorted order,
// numbers as written.
func annotate(raw json.RawMessage, planID string) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return nil, err
	}
	meta, ok := m["metadata"].(map[string]any)
	if !ok {
		return nil, errors.New("metadata is not an object")
	}
	ann, _ := meta["annotations"].(map[string]any)
	if ann == nil {
		ann = map[string]any{}
	}
	ann[planner.CreatedByAnnotation] = planID
	meta["annotations"] = ann
	return json.Marshal(m)
}
