package main

import "testing"

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
