package main

import (
	"bytes"
	"testing"

	"github.com/krmplan/krmplan/internal/jsonfile"
)

// TestApprovedHeader: the splice's preflight (git in the repository the
// plan file names) starts only for the plan_id line that --approve names.
func TestApprovedHeader(t *testing.T) {
	const id = "b01a2f778c8d01e99ec67dc28de4399bdd7e5adf8bb56b811ba9ef814a391f14"
	file := []byte("{\n  \"format_version\": 4,\n  \"plan_id\": \"" + id + "\",\n  \"renderable\": true\n}\n")
	nested := []byte("{\n  \"format_version\": 4,\n  \"snapshot\": {\n    \"plan_id\": \"" + id + "\"\n  }\n}\n")
	cases := []struct {
		name    string
		b       []byte
		approve string
		want    bool
	}{
		{"the whole id", file, id, true},
		{"its first 12 hex digits", file, id[:12], true},
		{"upper case, spaces around", file, "  B01A2F778C8D  ", true},
		{"11 digits", file, id[:11], false},
		{"another plan's id", file, "c01a2f778c8d", false},
		{"no --approve", file, "", false},
		{"no top-level plan_id line", nested, id, false},
		{"an unterminated plan_id", []byte("{\n  \"plan_id\": \"" + id), id, false},
	}
	for _, c := range cases {
		if got := approvedHeader(c.b, c.approve); got != c.want {
			t.Errorf("%s: approvedHeader(…, %q) = %v, want %v", c.name, c.approve, got, c.want)
		}
	}
}

// TestOwnRenderablePlan: the preflight runs git only for the bytes of
// the plan its plan_id line names, unedited, that says it renders.
func TestOwnRenderablePlan(t *testing.T) {
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
		if got := ownRenderablePlan(c.b); got != c.want {
			t.Errorf("%s: ownRenderablePlan = %v, want %v", c.name, got, c.want)
		}
	}
}
