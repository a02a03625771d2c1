package snapshot

import (
	"cmp"
	"errors"
	"fmt"
	"strings"

	"github.com/krmplan/krmplan/internal/inputfile"
	"github.com/krmplan/krmplan/internal/jsonfile"
	"github.com/krmplan/krmplan/internal/sortby"
	"github.com/krmplan/krmplan/internal/words"
	"github.com/krmplan/krmplan/tenancy"
)

// Normalize sorts every list of s by name (then by file and line), so
// that the same input always gives the same bytes.
func (s *State) Normalize() {
	sortby.Key(s.NodePools, func(p *tenancy.NodePool) string { return p.Metadata.Name })
	sortby.Key(s.Departments, func(d *tenancy.Department) string { return d.Metadata.Name })
	sortby.Key(s.Projects, func(p *tenancy.Project) string { return p.Metadata.Name })
	sortby.Stable(s.Other, func(a, b *OtherDocument) int {
		return cmp.Or(strings.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line))
	})
	sortby.Key(s.Nodes, func(n *Node) string { return n.Name })
	sortby.Key(s.LiveQueues, func(q *LiveQueue) string { return q.Name })
	sortby.Key(s.Namespaces, func(n *Namespace) string { return n.Name })
	sortby.Key(s.NotRead, func(n *NotRead) string { return n.What })
	sortby.Key(s.Source.Files, func(f *SourceFile) string { return f.Path })
	if s.NotRead == nil {
		s.NotRead = []NotRead{}
	}
	// Empty lists are written as [] rather than null: "none" is data.
	if s.NodePools == nil {
		s.NodePools = []tenancy.NodePool{}
	}
	if s.Departments == nil {
		s.Departments = []tenancy.Department{}
	}
	if s.Projects == nil {
		s.Projects = []tenancy.Project{}
	}
}

// Seal normalizes s, sets FormatVersion, computes Digest and returns the
// state.json bytes of s (what Marshal returns after Seal).
//
// The digest is "sha256:<hex>" over the state.json bytes written with
// taken_at and digest empty: the same content gives the same digest
// whenever it was taken, and the file is marshalled once.
func (s *State) Seal() []byte { return s.SealParts().Bytes() }

// SealParts is Seal's file kept in its parts (jsonfile.Lines), to be
// written (WriteTo) rather than copied into one buffer.
func (s *State) SealParts() *jsonfile.Lines {
	s.FormatVersion = FormatVersion
	s.Normalize()
	s.Digest = digestPlaceholder
	l, err := jsonfile.MarshalLinesParts(s)
	if err != nil {
		panic(fmt.Sprintf("snapshot: marshal: %v", err))
	}
	sum, _, err := l.SumEmpty("taken_at", "digest")
	if err == nil {
		err = l.Overwrite(jsonfile.Member{Name: "digest", Value: s.Digest}, "sha256:"+sum)
	}
	if err != nil {
		panic(fmt.Sprintf("snapshot: seal: %v", err)) // Marshal writes both members first
	}
	s.Digest = "sha256:" + sum
	return l
}

// digestPlaceholder is as long as a digest: Seal marshals the state with
// it and writes the digest over it.
var digestPlaceholder = "sha256:" + strings.Repeat("0", 64)

// Marshal returns the state.json bytes of s: JSON one object to a line
// (jsonfile.MarshalLines: each top-level member, and each element of a
// top-level list, on its own line) with a final newline, HTML characters
// as they are.
func (s *State) Marshal() []byte {
	b, err := jsonfile.MarshalLines(s)
	if err != nil {
		panic(fmt.Sprintf("snapshot: marshal: %v", err))
	}
	return b
}

// Load reads a state.json file (of at most inputfile.State's size). It
// refuses a file of another format version and one whose digest cannot be
// checked or does not match its content (edited by hand), naming the file.
func Load(path string) (*State, error) {
	b, err := inputfile.Read(path, inputfile.State)
	if err != nil {
		return nil, err
	}
	return Decode(path, b)
}

// Decode is Load for bytes already read; name is used in errors.
func Decode(name string, b []byte) (*State, error) {
	var s State
	fp, err := jsonfile.DecodeLinesSummed(b, &s, "taken_at", "digest")
	return decoded(name, &s, fp, err)
}

// DecodeIndented is Decode of the state.json bytes that b holds as
// plan.json embeds them: each line after the first indented by indent
// more, and no final newline (jsonfile.DecodeLinesSummedIndented). A line
// not so indented is refused first, as a *jsonfile.IndentError.
func DecodeIndented(name string, b []byte, indent string) (*State, error) {
	var s State
	fp, err := jsonfile.DecodeLinesSummedIndented(b, indent, &s, "taken_at", "digest")
	if ie, ok := errors.AsType[*jsonfile.IndentError](fp.Err); ok {
		return nil, ie
	}
	return decoded(name, &s, fp, err)
}

// decoded is the state that decoding a state.json into s read (err, and
// the fingerprint of its bytes, fp): s once its format version and digest
// are checked, and its content (Check).
func decoded(name string, s *State, fp jsonfile.Fingerprint, err error) (*State, error) {
	if err != nil {
		return nil, fmt.Errorf("%s: not a krmplan snapshot: %w", name, err)
	}
	switch {
	case s.FormatVersion >= oldestFormat && s.FormatVersion <= FormatVersion:
	case s.FormatVersion == 0:
		return nil, fmt.Errorf("%s: not a krmplan snapshot: it has no format_version", name)
	default:
		return nil, fmt.Errorf("%s: snapshot format_version %d, this krmplan reads %d to %d: take a new snapshot", name, s.FormatVersion, oldestFormat, FormatVersion)
	}
	if s.Digest == "" {
		return nil, fmt.Errorf("%s: not a krmplan snapshot: it has no digest", name)
	}
	if fp.Err != nil {
		// Its head not as Seal lays it out is what is wrong, not an edit.
		return nil, fmt.Errorf("%s: the digest cannot be checked: %w; take a new snapshot", name, fp.Err)
	}
	if !fp.Holds(s.TakenAt, s.Digest) || "sha256:"+fp.Sum != s.Digest {
		return nil, fmt.Errorf("%s: the digest does not match the content (the file was changed after the snapshot was taken); take a new snapshot", name)
	}
	if err := s.Check(); err != nil {
		return nil, fmt.Errorf("%s: not a krmplan snapshot: %w", name, err)
	}
	return s, nil
}

// Check refuses what decoding a state alone lets through and snapshot
// would not have written: in its nodes and Queues (checkCluster) and in
// its repository profile (profile.Profile.Check). A plan file's snapshot
// is checked alike. The tenancy's names and values are checked by the
// planner (invalid-name and the other checks), as they are after a
// snapshot from git.
func (s *State) Check() error {
	if err := checkCluster(s.Nodes, s.LiveQueues); err != nil {
		return err
	}
	if s.Profile != nil {
		if err := s.Profile.Check(); err != nil {
			return fmt.Errorf("its repository profile: %w", err)
		}
	}
	return nil
}

// Provenance is the lines that name s in a file made from it (an exported
// desired.hcl): its digest, and where it was read, "(git /repo at main,
// commit 0123456789ab)." or "(cluster context prod).".
func (s *State) Provenance() []string {
	out := []string{s.Digest}
	switch src := s.Source; {
	case src.Kind == "git":
		out = append(out, fmt.Sprintf("(git %s at %s, commit %s).", src.Repo, src.Ref, words.ShortID(src.Commit)))
	case src.Context != "":
		out = append(out, fmt.Sprintf("(cluster context %s).", src.Context))
	}
	return out
}
