package commit

// A plan is made from a snapshot of a ref at one commit; by the time it is
// rendered, the ref may have moved (a colleague merged a change). A splice
// on the old commit would then conflict when merged, or merge cleanly into
// a tenancy that breaks the checks (two growths that each fit, 5 cards
// guaranteed of 4 together). So splice and diff look at the ref again: on
// the tip when the plan still holds there, else a refusal that names what
// changed and in which commit.

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/krmplan/krmplan/internal/gitcli"
	"github.com/krmplan/krmplan/internal/words"
	"github.com/krmplan/krmplan/planner"
	"github.com/krmplan/krmplan/snapshot"
	"github.com/krmplan/krmplan/tenancy"
)

// maxListed bounds the values a staleness refusal lists; the rest are
// counted.
const maxListed = 10

// atTip returns the plan a splice or diff of p writes in repo, and a note
// saying where it starts:
//
//   - the snapshot read a fixed commit (Source.RefName is empty: a commit
//     id, main~1, a detached HEAD; none of them moves), or its ref still
//     names the snapshot's commit, or is now behind it (an older clone): p
//     itself, on the snapshot's commit (with a note in the last case, and
//     when the ref is gone);
//   - the ref moved, and at its tip every value the plan changes (and the
//     bytes that hold it) is what the plan read, every object it creates is
//     still absent, and the tenancy at the tip with the plan's changes has
//     no error finding: p moved onto the tip (the tenancy read at the tip,
//     the same changes, their target there), and a note "main moved from
//     A to B (2 commits); the values this plan changes are the same there:
//     the branch starts at B";
//   - else an error naming each value that changed and the commit that
//     changed it, or the errors the tip would have.
func atTip(p *planner.Plan, repo gitcli.Repo, pf *Preflight) (*planner.Plan, string, error) {
	src := p.Snapshot.Source
	if src.RefName == "" { // a commit id, main~1, a detached HEAD
		return p, "", nil
	}
	ref := shortRefName(src.RefName)
	var tip string
	var err error
	if pf != nil {
		tip, err = pf.tip, pf.tipErr
	} else {
		tip, err = refTip(repo, src.RefName)
	}
	switch {
	case err != nil || tip == "":
		return p, fmt.Sprintf("%s no longer names a commit in %s: the branch starts at the snapshot's commit %s", ref, repo.Dir, words.ShortID(src.Commit)), nil
	case tip == src.Commit:
		return p, "", nil
	}
	if behind, _ := isAncestor(repo, tip, src.Commit); behind {
		n, _ := repo.Line("rev-list", "--count", tip+".."+src.Commit)
		return p, fmt.Sprintf("%s is at %s in %s, %s behind the snapshot's commit: the branch starts at the snapshot's commit %s",
			ref, words.ShortID(tip), repo.Dir, commitCount(n), words.ShortID(src.Commit)), nil
	}
	moved := movedText(repo, ref, src.Commit, tip)
	st, err := tipState(p, repo, tip)
	if err != nil {
		return nil, "", fmt.Errorf("%s, and the tenancy there cannot be read: %w; take a new snapshot at %s and plan again", moved, err, ref)
	}
	s := &staleness{repo: repo, from: src.Commit, tip: tip, paths: tenancyPaths(src), before: tenancy.NewIndex(&p.Snapshot.Tenancy), now: tenancy.NewIndex(&st.Tenancy)}
	if conflicts := s.conflicts(p.Changes); len(conflicts) > 0 {
		return nil, "", fmt.Errorf("%s, and values this plan changes are different there: %s; take a new snapshot at %s and plan again",
			moved, s.list(conflicts), ref)
	}
	target, err := tenancy.Apply(&st.Tenancy, p.Changes)
	if err != nil { // conflicts compares what Apply checks: a bug if reached
		return nil, "", fmt.Errorf("%s, and this plan's changes do not apply there (%v); take a new snapshot at %s and plan again", moved, err, ref)
	}
	if errs := errorFindings(st, target); len(errs) > 0 {
		since := s.list(s.changedSince())
		if since == "" {
			since = "no node pool, department or project (the ManagedNodesConfig or the KRMConfig)"
		}
		return nil, "", fmt.Errorf("%s; the values this plan changes are the same there, but with its changes the tenancy at %s would have %s: %s; changed since the snapshot: %s; take a new snapshot at %s and plan again",
			moved, words.ShortID(tip), words.Count(len(errs), "error"), joinListed(errs), since, ref)
	}
	moved2 := &planner.Plan{PlanID: p.PlanID, OrderVerified: p.OrderVerified, Summary: p.Summary, Changes: p.Changes,
		Steps: p.Steps, Findings: p.Findings, Desired: p.Desired, Head: p.Head, Snapshot: st, Target: target}
	return moved2, fmt.Sprintf("%s; the values this plan changes are the same there: the branch starts at %s", moved, words.ShortID(tip)), nil
}

// refTip is the commit the full ref name refName names now.
func refTip(repo gitcli.Repo, refName string) (string, error) {
	return repo.Line("rev-parse", "--verify", "--quiet", refName+"^{commit}")
}

// shortRefName is the full ref name as a user writes it: main for
// refs/heads/main, origin/main for refs/remotes/origin/main, v1 for
// refs/tags/v1.
func shortRefName(full string) string {
	for _, prefix := range []string{"refs/heads/", "refs/remotes/", "refs/tags/", "refs/"} {
		if s, ok := strings.CutPrefix(full, prefix); ok {
			return s
		}
	}
	return full
}

// tipState is the snapshot of the plan's tenancy files at commit tip, with
// the ref as the snapshot named it and the plan's cluster data.
func tipState(p *planner.Plan, repo gitcli.Repo, tip string) (*snapshot.State, error) {
	src := p.Snapshot.Source
	st, err := snapshot.FromGit(snapshot.GitSource{Repo: repo.Dir, Ref: tip, Paths: tenancyPaths(src)})
	if err != nil {
		return nil, err
	}
	st.Source.Ref, st.Source.RefName, st.Source.Context, st.Source.Server = src.Ref, src.RefName, src.Context, src.Server
	st.Nodes, st.LiveQueues, st.Namespaces, st.NotRead = p.Snapshot.Nodes, p.Snapshot.LiveQueues, p.Snapshot.Namespaces, p.Snapshot.NotRead
	return st, nil
}

// tenancyPaths are the tenancy paths to read at another commit: the
// snapshot's --tenancy files and folders, so that a file added to a folder
// since is read too; or, for a snapshot that did not record them (an older
// krmplan), the files it read.
func tenancyPaths(src snapshot.Source) []string {
	if len(src.Paths) > 0 {
		return src.Paths
	}
	paths := make([]string, len(src.Files))
	for i, f := range src.Files {
		paths[i] = f.Path
	}
	return paths
}

// errorFindings are the error findings of the tenancy target reached from
// st, as messages.
func errorFindings(st *snapshot.State, target *tenancy.Tenancy) []string {
	after := *st
	after.Tenancy = *target
	var out []string
	for _, f := range planner.CheckChange(st, &after, nil) {
		if f.Level == planner.LevelError {
			out = append(out, f.Message)
		}
	}
	return out
}

// movedText is "main moved from A to B (2 commits)", or with "(the
// snapshot's commit is no longer on it)" when B does not descend from A.
func movedText(repo gitcli.Repo, ref, from, tip string) string {
	how := "the snapshot's commit is no longer on it"
	if ok, _ := isAncestor(repo, from, tip); ok {
		n, _ := repo.Line("rev-list", "--count", from+".."+tip)
		how = commitCount(n)
	}
	return fmt.Sprintf("%s moved from %s to %s (%s) since the snapshot", ref, words.ShortID(from), words.ShortID(tip), how)
}

// commitCount is "1 commit" or "N commits" for git's count n.
func commitCount(n string) string {
	k, err := strconv.Atoi(n)
	if err != nil {
		return "some commits"
	}
	return words.Count(k, "commit")
}

// isAncestor reports whether commit a is an ancestor of commit b.
func isAncestor(repo gitcli.Repo, a, b string) (bool, error) {
	_, err := repo.Run(nil, "merge-base", "--is-ancestor", a, b)
	var ge *gitcli.Error
	if errors.As(err, &ge) && strings.TrimSpace(ge.Stderr) == "" {
		return false, nil // exit 1: not an ancestor
	}
	return err == nil, err
}

// staleness compares the snapshot's tenancy (before) with the tenancy at
// the ref's tip (now).
type staleness struct {
	repo      gitcli.Repo
	from, tip string
	paths     []string // the tenancy files
	before    *tenancy.Index
	now       *tenancy.Index
}

// difference is one value that is not at the tip what the snapshot read
// (or, with object, an object that is there at one and not the other):
// its address, and what a message says of it.
type difference struct {
	what   string
	addr   tenancy.FieldAddr
	object bool
}

// conflicts lists the values the plan reads that are different at the tip:
// the value each change replaces (and its bytes), the queue it belongs
// to, and the absence of each object the plan creates.
func (s *staleness) conflicts(changes []tenancy.Change) []difference {
	var out []difference
	seen := map[string]bool{}
	add := func(d difference) {
		if !seen[d.what] {
			seen[d.what] = true
			out = append(out, d)
		}
	}
	tip := words.ShortID(s.tip)
	for i := range changes {
		c := &changes[i]
		o := c.Object()
		switch {
		case c.Creates():
			if s.now.Has(o) {
				add(objectDifference(o, fmt.Sprintf("%s: the plan creates it, and it exists at %s", objectWords(o), tip)))
			}
			continue
		case !s.now.Has(o):
			add(objectDifference(o, fmt.Sprintf("%s: the plan changes it, and it is gone at %s", objectWords(o), tip)))
			continue
		case c.NewQueue:
			if b, n := len(s.before.Queues(o)), len(s.now.Queues(o)); b != n {
				a := o.Queue(min(b, n)).Field(tenancy.FieldQueueName)
				add(difference{addr: a, what: fmt.Sprintf("%s: the plan adds a queue after its %s, and it has %s at %s",
					objectWords(o), words.Count(b, "queue"), words.Count(n, "queue"), tip)})
			}
			continue
		}
		if q, ok := c.Field.QueueAddr(); ok {
			for _, f := range []tenancy.Field{tenancy.FieldQueueName, tenancy.FieldQueueNodePool} {
				if d, differs := s.compare(q.Field(f)); differs {
					add(d)
				}
			}
		}
		if d, differs := s.compare(c.Field); differs {
			add(d)
		}
	}
	return out
}

// objectDifference is a difference about object o's existence.
func objectDifference(o tenancy.ObjectAddr, what string) difference {
	return difference{what: what, addr: o.Field(tenancy.FieldName), object: true}
}

// compare says how the value a differs between the snapshot and the tip:
// its value, or the bytes that hold it when both are written in a file.
func (s *staleness) compare(a tenancy.FieldAddr) (difference, bool) {
	tip := words.ShortID(s.tip)
	was, _ := s.before.Value(a)
	is, ok := s.now.Value(a)
	switch {
	case !ok:
		return difference{addr: a, what: fmt.Sprintf("%s: the queue is gone at %s", s.who(a), tip)}, true
	case !was.Equal(is):
		return difference{addr: a, what: fmt.Sprintf("%s: %s is %s at %s, the snapshot read %s", s.who(a), a.Field, valueText(is), tip, valueText(was))}, true
	}
	bp, ok1 := s.before.Pos(a)
	np, ok2 := s.now.Pos(a)
	if ok1 && ok2 && bp.Text != np.Text {
		return difference{addr: a, what: fmt.Sprintf("%s: %s is written %s at %s, the snapshot read %s", s.who(a), a.Field, np.Text, tip, bp.Text)}, true
	}
	return difference{}, false
}

// changedSince lists every value of the planned kinds that differs between
// the snapshot and the tip, objects added and removed included, in the
// order of the kinds and names.
func (s *staleness) changedSince() []difference {
	var out []difference
	for _, k := range tenancy.Planned {
		for _, name := range objectNames(k, s.before, s.now) {
			o := k.Object(name)
			switch bs, ns := s.before.Spec(o), s.now.Spec(o); {
			case bs == nil:
				out = append(out, objectDifference(o, objectWords(o)+": added"))
			case ns == nil:
				out = append(out, objectDifference(o, objectWords(o)+": removed"))
			case specJSON(bs) != specJSON(ns):
				out = append(out, s.fieldChanges(o)...)
			}
		}
	}
	return out
}

// fieldChanges lists the fields of object o that differ: its own, then
// its queues' by index.
func (s *staleness) fieldChanges(o tenancy.ObjectAddr) []difference {
	var out []difference
	for f := tenancy.Field(1); f.Valid(); f++ {
		if f.Of(o.Kind) && !f.InQueue() {
			if d, differs := s.compare(o.Field(f)); differs {
				out = append(out, d)
			}
		}
	}
	nb, nn := len(s.before.Queues(o)), len(s.now.Queues(o))
	for qi := range max(nb, nn) {
		a := o.Queue(qi).Field(tenancy.FieldQueueName)
		if qi >= nb {
			out = append(out, difference{addr: a, what: fmt.Sprintf("%s: queue %s added", objectWords(o), s.now.Queues(o)[qi].KAIName(o.Name))})
			continue
		}
		for f := tenancy.Field(1); f.Valid(); f++ {
			if f.InQueue() {
				if d, differs := s.compare(o.Queue(qi).Field(f)); differs {
					out = append(out, d)
				}
			}
		}
	}
	return out
}

// list writes the differences on one line, each with the commit that
// made it, the first maxListed of them and a count of the rest.
func (s *staleness) list(ds []difference) string {
	by := s.attribute(ds)
	parts := make([]string, 0, min(len(ds), maxListed)+1)
	for i, d := range ds {
		if i == maxListed {
			parts = append(parts, fmt.Sprintf("and %d more", len(ds)-maxListed))
			break
		}
		parts = append(parts, fmt.Sprintf("%s (%s)", d.what, by[i]))
	}
	return strings.Join(parts, "; ")
}

// maxWalked bounds the commits attribute reads the tenancy at.
const maxWalked = 50

// attribute names, for each difference, the commit that made it: of the
// commits since the snapshot that change a tenancy file (git rev-list),
// the last one (in git's topological order) at which the value is not
// what any of its parents holds. The tenancy is read at each of those
// commits and their parents, so a change made in a branch and merged is
// the branch's own commit, not the merge. Past maxWalked commits, or when
// git cannot tell, it says so.
func (s *staleness) attribute(ds []difference) []string {
	out := make([]string, len(ds))
	for i := range out {
		out[i] = "changed since the snapshot"
	}
	if len(ds) == 0 {
		return out
	}
	args := []string{"rev-list", "--topo-order", "--reverse", "--format=%P%x00%s", s.from + ".." + s.tip, "--"}
	for _, f := range s.paths {
		args = append(args, ":(top,literal)"+f)
	}
	raw, err := s.repo.Line(args...)
	if err != nil {
		return out
	}
	commits := parseRevList(raw)
	if len(commits) > maxWalked {
		for i := range out {
			out[i] = fmt.Sprintf("in one of the %d commits since the snapshot that change the tenancy files", len(commits))
		}
		return out
	}
	at := map[string]*tenancy.Index{s.from: s.before, s.tip: s.now}
	read := func(id string) *tenancy.Index {
		if x, ok := at[id]; ok {
			return x
		}
		st, err := snapshot.FromGit(snapshot.GitSource{Repo: s.repo.Dir, Ref: id, Paths: s.paths})
		if err != nil {
			at[id] = tenancy.NewIndex(&tenancy.Tenancy{}) // unreadable: read as empty
		} else {
			at[id] = tenancy.NewIndex(&st.Tenancy)
		}
		return at[id]
	}
	for _, c := range commits {
		x := read(c.id)
		for i, d := range ds {
			sig := signature(x, d)
			if !slices.ContainsFunc(c.parents, func(p string) bool { return signature(read(p), d) == sig }) {
				out[i] = fmt.Sprintf("by commit %s %q", words.ShortID(c.id), c.subject)
			}
		}
	}
	return out
}

// revCommit is one commit of git rev-list: its id, parents and subject.
type revCommit struct {
	id      string
	parents []string
	subject string
}

// parseRevList reads `git rev-list --format=%P%x00%s`: a "commit <id>"
// line, then "<parents>\x00<subject>".
func parseRevList(raw string) []revCommit {
	var out []revCommit
	lines := strings.Split(raw, "\n")
	for i := 0; i+1 < len(lines); i += 2 {
		id, ok := strings.CutPrefix(lines[i], "commit ")
		parents, subject, _ := strings.Cut(lines[i+1], "\x00")
		if !ok {
			continue
		}
		out = append(out, revCommit{id: id, parents: strings.Fields(parents), subject: subject})
	}
	return out
}

// signature is what a difference is about in the tenancy x: the value at
// its address and the bytes that hold it, or the object's existence.
func signature(x *tenancy.Index, d difference) string {
	if d.object {
		return strconv.FormatBool(x.Has(d.addr.Object))
	}
	v, ok := x.Value(d.addr)
	p, _ := x.Pos(d.addr)
	return fmt.Sprintf("%t %s %s", ok, v, p.Text)
}

// who names the object, and the queue, of the value a as the snapshot
// read them: "project workspace queue workspace-rtx".
func (s *staleness) who(a tenancy.FieldAddr) string {
	w := objectWords(a.Object)
	if q, ok := a.QueueAddr(); ok {
		if qs := s.before.Queues(a.Object); q.Index < len(qs) {
			return w + " queue " + qs[q.Index].KAIName(a.Object.Name)
		}
		if qs := s.now.Queues(a.Object); q.Index < len(qs) {
			return w + " queue " + qs[q.Index].KAIName(a.Object.Name)
		}
	}
	return w
}

// objectWords is "project workspace".
func objectWords(o tenancy.ObjectAddr) string {
	return strings.ToLower(o.Kind.String()) + " " + o.Name
}

// valueText is a value as a message shows it: "(omitted)" when absent.
func valueText(v tenancy.Value) string {
	if v.IsNull() {
		return "(omitted)"
	}
	return v.String()
}

// objectNames lists the names of kind k in either index, sorted.
func objectNames(k tenancy.Kind, xs ...*tenancy.Index) []string {
	var names []string
	for _, x := range xs {
		names = append(names, x.Names(k)...)
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// joinListed joins messages with "; ", the first maxListed of them and a
// count of the rest.
func joinListed(msgs []string) string {
	if len(msgs) > maxListed {
		return strings.Join(msgs[:maxListed], "; ") + fmt.Sprintf("; and %d more", len(msgs)-maxListed)
	}
	return strings.Join(msgs, "; ")
}
