package snapshot_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/krmplan/krmplan/internal/gentenancy"
	"github.com/krmplan/krmplan/internal/jsonfile"
	"github.com/krmplan/krmplan/internal/plantest"
	"github.com/krmplan/krmplan/snapshot"
)

// states are the demo's snapshot and a generated one of 1,000 projects,
// sealed.
func states(t *testing.T) map[string]*snapshot.State {
	gen, _, err := gentenancy.Generate(gentenancy.Spec{Projects: 1000, Seed: gentenancy.BenchSeed}).State()
	if err != nil {
		t.Fatal(err)
	}
	return map[string]*snapshot.State{"demo": plantest.DemoState(t), "1000 projects": gen}
}

// Seal writes state.json in pieces on every core: the same bytes as one
// pass of the encoder, and so the same digest; Decode reads them in
// pieces: the same state as one pass of the decoder.
func TestSealAndDecodeAsOnOneCore(t *testing.T) {
	for name, st := range states(t) {
		b := st.Seal()
		want, err := jsonfile.MarshalLinesOneCore(st)
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != string(want) {
			t.Fatalf("%s: Seal wrote other bytes than one pass of the encoder", name)
		}
		got, err := snapshot.Decode("state.json", b)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var one snapshot.State
		if err := jsonfile.DecodeStrict(b, &one); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(*got, one) {
			t.Fatalf("%s: Decode read another state than one pass of the decoder", name)
		}
	}
}

// Decode refuses a state.json changed inside a project, a node, a Queue
// or a namespace with the words of a reading from the start: the file's
// line and the value's pointer; and one changed anywhere else but
// taken_at for its digest.
func TestDecodeRefusesInPieces(t *testing.T) {
	st := states(t)["1000 projects"]
	b := string(st.Seal())
	project := fmt.Sprintf(`{"metadata":{"name":%q`, st.Projects[500].Metadata.Name)
	node := fmt.Sprintf(`{"name":%q`, st.Nodes[100].Name)
	queue := fmt.Sprintf(`{"name":%q`, st.LiveQueues[700].Name)
	namespace := fmt.Sprintf(`{"name":%q`, st.Namespaces[900].Name)
	for _, c := range []struct {
		section  string // from is looked for after this
		from, to string
		line     bool // the message names the line of from
		want     string
	}{
		{"", project, project + `,"x":1`, true, `/projects/500/metadata: unknown key "x"`},
		{"", project, project + `,"name":"b"`, true, `/projects/500/metadata/name: duplicate object member name`},
		{"", project, `{"metadata":{"name":500`, true, `/projects/500/metadata/name: a JSON number where a string belongs`},
		{`"nodes": [`, node, node + `,"ready":"yes"`, true, `/nodes/100/ready: a JSON string where true or false belongs`},
		{`"live_queues": [`, queue, queue + `,"parentQueue":1`, true, `/live_queues/700/parentQueue: a JSON number where a string belongs`},
		{`"namespaces": [`, namespace, namespace + `,"labels":[]`, true, `/namespaces/900/labels: a JSON array where an object belongs`},
		{"", "\n}\n", "\n}\n{}", false, `not a krmplan snapshot: line %d: invalid character '{' after top-level value`},
		{"", project, project[:len(project)-2] + `x"`, false, `the digest does not match the content (the file was changed after the snapshot was taken); take a new snapshot`},
	} {
		section := strings.Index(b, c.section)
		at := strings.Index(b[section:], c.from)
		if section < 0 || at < 0 {
			t.Fatalf("no %q in the state", c.from)
		}
		at += section
		want := "state.json: " + c.want
		if c.line {
			want = fmt.Sprintf("state.json: not a krmplan snapshot: line %d: %s", 1+strings.Count(b[:at], "\n"), c.want)
		}
		if strings.Contains(want, "%d") {
			want = fmt.Sprintf(want, 1+strings.Count(b, "\n"))
		}
		_, err := snapshot.Decode("state.json", []byte(b[:at]+strings.Replace(b[at:], c.from, c.to, 1)))
		if err == nil || err.Error() != want {
			t.Errorf("%s → %s: %v\nwant %s", c.from, c.to, err, want)
		}
	}
}

// A big state laid out as format 2 was (indented, each element over many
// lines) is read in pieces too, to what one pass reads.
func TestDecodeIndentedAsOnOneCore(t *testing.T) {
	st := states(t)["1000 projects"]
	b, err := jsonfile.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	sum, _, err := jsonfile.SumEmpty(b, "taken_at", "digest")
	if err != nil {
		t.Fatal(err)
	}
	if err := jsonfile.Overwrite(b, jsonfile.Member{Name: "digest", Value: st.Digest}, "sha256:"+sum); err != nil {
		t.Fatal(err)
	}
	got, err := snapshot.Decode("state.json", b)
	if err != nil {
		t.Fatal(err)
	}
	var one snapshot.State
	if err := jsonfile.DecodeStrict(b, &one); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(*got, one) || len(got.Projects) != 1000 {
		t.Fatal("Decode read another state than one pass of the decoder")
	}
	// A node's unknown key, deep in the indented layout, is named as one
	// pass names it.
	text := strings.Replace(string(b), `"cordoned": false`, `"cordoned": false, "x": 1`, 1)
	line := 1 + strings.Count(text[:strings.Index(text, `"x": 1`)], "\n")
	want := fmt.Sprintf(`state.json: not a krmplan snapshot: line %d: /nodes/0: unknown key "x"`, line)
	if _, err := snapshot.Decode("state.json", []byte(text)); err == nil || err.Error() != want {
		t.Errorf("Decode: %v\nwant %s", err, want)
	}
}
