package snapshot

import (
	"bytes"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/krmplan/krmplan/internal/jsonfile"
	"github.com/krmplan/krmplan/quota"
	"github.com/krmplan/krmplan/tenancy"
)

// sealedState is a small git state with positions of every kind: plain,
// quoted with an escape, an alias and one inside a shared anchor.
func sealedState(t *testing.T, takenAt string) (*State, []byte) {
	t.Helper()
	s := &State{
		TakenAt: takenAt,
		Source:  Source{Kind: "git", Repo: "/r", Ref: "HEAD", Commit: "c0ffee", Files: []SourceFile{{Path: "t.yaml", Blob: "b10b"}}},
		Tenancy: tenancy.Tenancy{
			Projects: []tenancy.Project{{
				Metadata: tenancy.Meta{Name: "workspace"},
				Spec: tenancy.ProjectSpec{Parent: "platform", Queues: []tenancy.Queue{{Name: "workspace-h100", NodePool: "h100",
					Resources: tenancy.Resources{GPU: &tenancy.Resource{Deserved: num("3"), Limit: num("4"), OverQuotaWeight: num("1")}}}}},
				Origin: &tenancy.Origin{File: "t.yaml", Line: 3, Values: tenancy.PositionsOf(map[string]tenancy.Pos{
					"/spec/parent":                                 {Line: 6, Column: 11, Start: 80, End: 90, Text: `"platform"`},
					"/spec/queues/0/name":                          {Line: 9, Column: 13, Start: 120, End: 134, Text: `"a\"b"` + "\u00e9\t<&>"},
					"/spec/queues/0/resources/gpu/deserved":        {Line: 11, Column: 28, Start: 200, End: 201, Text: "3"},
					"/spec/queues/0/resources/gpu/limit":           {Line: 11, Column: 40, Start: 212, End: 217, Text: "*four", Alias: true, AnchorLine: 2},
					"/spec/queues/0/resources/gpu/overQuotaWeight": {Line: 11, Column: 60, Start: 232, End: 233, Text: "1", Anchor: "w", AnchorLine: 11},
				})},
			}},
		},
	}
	// The name's text above is not its bytes' length; fix End to match.
	p, _ := s.Projects[0].Origin.Values.Value("/spec/queues/0/name")
	p.End = p.Start + len(p.Text)
	s.Projects[0].Origin.Values.Put("/spec/queues/0/name", p)
	return s, s.Seal()
}

func num(s string) *quota.Value {
	v := quota.MustParse(s)
	return &v
}

func TestSealIsMarshal(t *testing.T) {
	s, b := sealedState(t, "2026-11-30T10:00:00Z")
	if got := s.Marshal(); !bytes.Equal(got, b) {
		t.Fatalf("Seal and Marshal differ:\n%s\n---\n%s", b, got)
	}
	if !strings.HasPrefix(string(b), "{\n  \"format_version\": 3,\n  \"taken_at\": \"2026-11-30T10:00:00Z\",\n  \"digest\": \"sha256:") {
		t.Fatalf("head:\n%s", b[:120])
	}
}

func TestPositionsAreStrings(t *testing.T) {
	_, b := sealedState(t, "")
	for _, want := range []string{
		`"/spec/queues/0/resources/gpu/deserved":"11:28 200 3"`,
		`"/spec/parent":"6:11 80 \"platform\""`,
		`"/spec/queues/0/name":"9:13 120 \"a\\\"b\"é\t<&>"`,
		`"/spec/queues/0/resources/gpu/limit":{"line":11,"column":40,"start":212,"end":217,"text":"*four","alias":true,"anchor_line":2}`,
		`"/spec/queues/0/resources/gpu/overQuotaWeight":{"line":11,"column":60,"start":232,"end":233,"text":"1","anchor":"w","anchor_line":11}`,
	} {
		if !strings.Contains(string(b), want) {
			t.Errorf("state.json lacks %s:\n%s", want, b)
		}
	}
}

// TestOneObjectToALine: state.json is laid out one object to a line, so
// that a project is one line to grep and a changed object one line of a
// diff.
func TestOneObjectToALine(t *testing.T) {
	_, b := sealedState(t, "")
	lines := strings.Split(string(b), "\n")
	want := []string{"{", `  "format_version": 3,`, `  "taken_at": "",`}
	if !reflect.DeepEqual(lines[:3], want) {
		t.Errorf("head = %q, want %q", lines[:3], want)
	}
	i := slices.Index(lines, `  "projects": [`)
	if i < 0 || !strings.HasPrefix(lines[i+1], `    {"metadata":{"name":"workspace"},"spec":{`) || lines[i+2] != "  ]," {
		t.Errorf("the project is not one line of its own:\n%s", b)
	}
	if !slices.Contains(lines, `  "node_pools": [],`) || lines[len(lines)-1] != "" || lines[len(lines)-2] != "}" {
		t.Errorf("empty lists and the end:\n%s", b)
	}
}

func TestDecodeRoundTrip(t *testing.T) {
	s, b := sealedState(t, "2026-11-30T10:00:00Z")
	got, err := Decode("state.json", b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, s) {
		t.Fatalf("decoded state differs:\n%+v\n%+v", got.Projects[0].Origin, s.Projects[0].Origin)
	}
}

func TestDigestLeavesOutTakenAt(t *testing.T) {
	a, _ := sealedState(t, "2026-11-30T10:00:00Z")
	b, _ := sealedState(t, "2027-01-01T00:00:00Z")
	c, _ := sealedState(t, "")
	if a.Digest != b.Digest || a.Digest != c.Digest {
		t.Fatalf("digests differ with taken_at: %s %s %s", a.Digest, b.Digest, c.Digest)
	}
	c.Projects[0].Spec.Queues[0].Resources.GPU.Deserved = num("2")
	c.Seal()
	if c.Digest == a.Digest {
		t.Fatal("a changed deserved kept the digest")
	}
}

func TestDecodeRefusesChangedBytes(t *testing.T) {
	_, b := sealedState(t, "2026-11-30T10:00:00Z")
	const mismatch = "state.json: the digest does not match the content (the file was changed after the snapshot was taken); take a new snapshot"
	for name, edit := range map[string]func(string) string{
		"a value":             func(s string) string { return strings.Replace(s, `"deserved":3`, `"deserved":2`, 1) },
		"a position":          func(s string) string { return strings.Replace(s, `"11:28 200 3"`, `"11:28 201 3"`, 1) },
		"whitespace":          func(s string) string { return strings.Replace(s, `"deserved":3`, `"deserved": 3`, 1) },
		"the digest":          func(s string) string { return strings.Replace(s, `"sha256:`, `"sha256:0`, 1) },
		"an escape rewritten": func(s string) string { return strings.Replace(s, `é`, `\u00e9`, 1) },
	} {
		_, err := Decode("state.json", []byte(edit(string(b))))
		if err == nil || err.Error() != mismatch {
			t.Errorf("%s: got %v", name, err)
		}
	}
}

// A state.json whose taken_at or digest is not where Seal writes them
// (megabytes of spaces after format_version, the digest made right for
// them) is refused for that, naming the member and where it was looked
// for, not as a file changed after the snapshot was taken: its digest
// cannot be checked. The same spaces within the head are read.
func TestDecodeNamesADigestOutOfPlace(t *testing.T) {
	s, b := sealedState(t, "2026-11-30T10:00:00Z")
	if _, err := Decode("state.json", spacedHead(t, s, b, `  "format_version": 3,`, 100)); err != nil {
		t.Fatalf("100 spaces in the head: %v", err)
	}
	const far = 4 << 20
	for name, c := range map[string]struct {
		b    []byte
		want string
	}{
		"spaces after format_version": {spacedHead(t, s, b, `  "format_version": 3,`, far),
			`the member "taken_at" is not in the file's first 256 bytes, where krmplan writes it`},
		"spaces after taken_at": {spacedHead(t, s, b, `  "taken_at": `, far),
			`the member "digest" is not in the 256 bytes after the member "taken_at", where krmplan writes it`},
		"no taken_at": {bytes.Replace(b, []byte("  \"taken_at\": \"2026-11-30T10:00:00Z\",\n"), nil, 1),
			`the member "taken_at" is not in the file's first 256 bytes, where krmplan writes it`},
		"the digest escaped": {bytes.Replace(b, []byte(`"digest": "sha256:`), []byte(`"digest": "\u0073ha256:`), 1),
			`the member "digest" is not written as krmplan writes it`},
	} {
		want := "state.json: the digest cannot be checked: " + c.want + "; take a new snapshot"
		if _, err := Decode("state.json", c.b); err == nil || err.Error() != want {
			t.Errorf("%s:\n got %v\nwant %s", name, err, want)
		}
	}
}

// spacedHead is s's state.json bytes b with n spaces after the line that
// starts with line, and the digest made right for them, as anyone may (it
// is a sha256 of the file with taken_at and digest empty).
func spacedHead(t *testing.T, s *State, b []byte, line string, n int) []byte {
	t.Helper()
	i := bytes.Index(b, []byte("\n"+line))
	if i < 0 {
		t.Fatalf("no line %q", line)
	}
	i += 1 + bytes.IndexByte(b[i+1:], '\n')
	spaced := slices.Concat(b[:i], bytes.Repeat([]byte(" "), n), b[i:])
	taken, digest := []byte(`"taken_at": "`+s.TakenAt+`"`), []byte(`"digest": "`+s.Digest+`"`)
	blank := bytes.Replace(bytes.Replace(spaced, taken, []byte(`"taken_at": ""`), 1), digest, []byte(`"digest": ""`), 1)
	return bytes.Replace(spaced, digest, []byte(`"digest": "sha256:`+jsonfile.Sum(blank)+`"`), 1)
}

func TestDecodeRefusesOtherVersionAndBadPositions(t *testing.T) {
	_, b := sealedState(t, "")
	for v, want := range map[string]string{
		"1": "old.json: snapshot format_version 1, this krmplan reads 2 to 3: take a new snapshot",
		"4": "old.json: snapshot format_version 4, this krmplan reads 2 to 3: take a new snapshot",
	} {
		old := strings.Replace(string(b), `"format_version": 3`, `"format_version": `+v, 1)
		if _, err := Decode("old.json", []byte(old)); err == nil || err.Error() != want {
			t.Errorf("version %s: %v", v, err)
		}
	}
	for pos, want := range map[string]string{
		`"11:28 200 3"`:       ``,
		`"11:28 200-201 3"`:   ``, // format 2
		`"11:28 200-202 3"`:   `position "11:28 200-202 3": END-START is 2, but TEXT is 1 bytes long`,
		`"11:28 200"`:         `position "11:28 200" is not "LINE:COLUMN START TEXT"`,
		`"11 200 3"`:          `position "11 200 3" is not "LINE:COLUMN START TEXT"`,
		`"11:x 200 3"`:        `position "11:x 200 3" is not "LINE:COLUMN START TEXT"`,
		`"11:-2 200 3"`:       `position "11:-2 200 3" is not "LINE:COLUMN START TEXT"`,
		`"11:028 200 3"`:      `position "11:028 200 3" is not "LINE:COLUMN START TEXT"`,
		`"11:28 200- 3"`:      `position "11:28 200- 3" is not "LINE:COLUMN START TEXT"`,
		`"11:28 200-201-2 3"`: `position "11:28 200-201-2 3" is not "LINE:COLUMN START TEXT"`,
		`7`:                   `a JSON number where an object belongs`,
	} {
		var p tenancy.Pos
		err := json.Unmarshal([]byte(pos), &p)
		if want == "" {
			if err != nil || p != (tenancy.Pos{Line: 11, Column: 28, Start: 200, End: 201, Text: "3"}) {
				t.Errorf("%s: %+v %v", pos, p, err)
			}
			continue
		}
		if err == nil || err.Error() != want {
			t.Errorf("%s: got %v, want %s", pos, err, want)
		}
	}
}

// TestDecodeReadsFormat2: a snapshot taken before format 3 (indented, with
// "LINE:COLUMN START-END TEXT" positions) is still read, to the same state.
func TestDecodeReadsFormat2(t *testing.T) {
	s, _ := sealedState(t, "2026-11-30T10:00:00Z")
	b, err := jsonfile.Marshal(s) // indented, as format 2 was written
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(string(b), `"format_version": 3`, `"format_version": 2`, 1)
	for _, r := range [][2]string{
		{`"11:28 200 3"`, `"11:28 200-201 3"`},
		{`"6:11 80 \"platform\""`, `"6:11 80-90 \"platform\""`},
		{`"9:13 120 \"a`, `"9:13 120-132 \"a`},
	} {
		if !strings.Contains(text, r[0]) {
			t.Fatalf("no %s in\n%s", r[0], text)
		}
		text = strings.Replace(text, r[0], r[1], 1)
	}
	b = []byte(text)
	sum, _, err := jsonfile.SumEmpty(b, "taken_at", "digest")
	if err != nil {
		t.Fatal(err)
	}
	if err := jsonfile.Overwrite(b, jsonfile.Member{Name: "digest", Value: s.Digest}, "sha256:"+sum); err != nil {
		t.Fatal(err)
	}
	got, err := Decode("state.json", b)
	if err != nil {
		t.Fatal(err)
	}
	s.FormatVersion, s.Digest = 2, "sha256:"+sum
	if !reflect.DeepEqual(got, s) {
		t.Fatalf("format 2 decoded differs:\n%+v\n%+v", got.Projects[0].Origin, s.Projects[0].Origin)
	}
}
