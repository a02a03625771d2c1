package commit

import (
	"github.com/krmplan/krmplan/internal/gitcli"
	"github.com/krmplan/krmplan/planner"
)

// staged is a splice written into a quarantine object store (nothing
// reaches the repository until migrated), and the check that the spliced
// tenancy holds exactly the plan's target (verify), which runs while git
// writes the blobs and trees and, for a diff, compares them: on two cores
// the check and git's work overlap. Nothing of it is used before check
// passes.
type staged struct {
	plan     *SplicePlan
	q        *quarantine
	tree     string
	checked  chan struct{}
	checkErr error
}

// check waits for the splice's check and returns its error, else err (the
// check's refusal comes first, as when it ran before git).
func (st *staged) check(err error) error {
	<-st.checked
	if st.checkErr != nil {
		return st.checkErr
	}
	return err
}

// stageTree splices the files at the snapshot's commit and writes them and
// their tree into a quarantine, while checking the splice. The caller
// closes st.q and calls st.check before using anything else. moved, when
// not "", says where the splice starts (atTip): the first note. forDiff
// writes the blobs uncompressed: a diff's quarantine is removed unread by
// anyone else, and zlib's default level costs git most of its time
// writing a large tenancy file.
func stageTree(p *planner.Plan, repo gitcli.Repo, opts Options, moved string, forDiff bool) (*staged, error) {
	commit := p.Snapshot.Source.Commit
	sp, err := prepare(p, gitFiles{repo: repo, commit: commit}, opts)
	if err != nil {
		return nil, err
	}
	st := &staged{plan: sp.plan, checked: make(chan struct{})}
	go func() {
		defer close(st.checked)
		st.checkErr = sp.verify()
	}()
	if moved != "" {
		st.plan.Notes = append([]string{moved}, st.plan.Notes...)
	}
	q, err := newQuarantine(repo)
	if err != nil {
		return nil, st.check(err)
	}
	if forDiff {
		q.hashConfig = []string{"-c", "core.looseCompression=0"}
	}
	tree, err := q.writeTree(commit, st.plan)
	if err != nil {
		q.close()
		return nil, st.check(err)
	}
	st.q, st.tree = q, tree
	return st, nil
}
