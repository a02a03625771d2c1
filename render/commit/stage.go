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
	var files RepoFiles = gitFiles{repo: repo, commit: commit}
	pf := opts.Preflight.answers(p, opts)
	if pf != nil && pf.repo.Dir == repo.Dir { // at the snapshot's commit: atTip did not move p
		files = prefetchedFiles{gitFiles: gitFiles{repo: repo, commit: commit}, pf: pf}
	}
	sp, err := prepare(p, files, opts)
	if err != nil {
		return nil, err
	}
	st := &staged{plan: sp.plan, checked: make(chan struct{})}
	if moved != "" {
		st.plan.Notes = append([]string{moved}, st.plan.Notes...)
	}
	q, err := stagingArea(repo, pf, forDiff)
	var first *gitcli.Started
	if err == nil {
		// git starts hashing the new bytes before the check takes both cores.
		if first, err = q.startBlob(st.plan); err != nil {
			q.close()
		}
	}
	go func() {
		defer close(st.checked)
		st.checkErr = sp.verify()
	}()
	if err != nil {
		return nil, st.check(err)
	}
	tree, err := q.writeTree(commit, st.plan, first)
	if err != nil {
		q.close()
		return nil, st.check(err)
	}
	st.q, st.tree = q, tree
	return st, nil
}

// stagingArea is the quarantine a splice writes into, with what pf read
// ahead (nil: ask git). forDiff writes the blobs uncompressed.
func stagingArea(repo gitcli.Repo, pf *Preflight, forDiff bool) (*quarantine, error) {
	var q *quarantine
	var err error
	if pf != nil && pf.objects != "" {
		if q, err = newQuarantineAt(repo, pf.objects); err == nil {
			q.trees = pf.trees
		}
	} else {
		q, err = newQuarantine(repo)
	}
	if err != nil {
		return nil, err
	}
	if forDiff {
		q.hashConfig = []string{"-c", "core.looseCompression=0"}
	}
	return q, nil
}
