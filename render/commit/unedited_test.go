package commit

import (
	"bytes"
	"testing"

	"github.com/krmplan/krmplan/internal/jsonfile"
)

// TestUneditedRenderable: the preflight runs git only for the bytes of
// the plan its plan_id line names, unedited, that says it renders.
func TestUneditedRenderable(t *testing.T) {
	file := func(renderable, body string) []byte {
		b := []byte("{\n  \"format_version\": 4,\n  \"plan_id\": \"\",\n  \"renderable\": " + renderable + ",\n  \"snapshot\": " + body + "\n}\n")
		sum, _, err := jsonfile.SumEmpty(b, "plan_id")
		if err != nil {
			t.Fatal(err)
		}
		return bytes.Replace(b, []byte(`"plan_id": ""`), []byte(`"plan_id": "`+sum+`"`), 1)
	}
	good := file("true", `{"repo":"/srv/gitops"}`)
	edited := bytes.Replace(good, []byte("/srv/gitops"), []byte("/tmp/other"), 1)
	cases := []struct {
		name string
		b    []byte
		want bool
	}{
		{"the plan as made", good, true},
		{"its repository edited, the plan_id line kept", edited, false},
		{"a plan with errors", file("false", `{"repo":"/srv/gitops"}`), false},
		{"no plan_id", []byte("{\n  \"renderable\": true,\n}\n"), false},
	}
	for _, c := range cases {
		if got := UneditedRenderable(c.b); got != c.want {
			t.Errorf("%s: UneditedRenderable = %v, want %v", c.name, got, c.want)
		}
	}
}
