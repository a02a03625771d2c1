package tenancy_test

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/krmplan/krmplan/internal/jsonfile"
	"github.com/krmplan/krmplan/tenancy"
)

// TestOriginJSONIsEncodingJSON: the v2 engine's path (MarshalJSONTo,
// UnmarshalJSONFrom, which jsonfile takes) writes exactly the bytes
// encoding/json writes through the struct and Pos.MarshalJSON, in both
// layouts, for every form of a position, and reads them back to the same
// origins.
func TestOriginJSONIsEncodingJSON(t *testing.T) {
	type object struct {
		Name   string          `json:"name"`
		Origin *tenancy.Origin `json:"origin,omitempty"`
	}
	type file struct {
		Objects []object `json:"objects"`
	}
	in := file{Objects: []object{
		{Name: "no origin"},
		{Name: "no values", Origin: &tenancy.Origin{File: "a.yaml", Line: 3}},
		{Name: "empty values", Origin: &tenancy.Origin{File: "a.yaml", Line: 3, Values: tenancy.PositionsOf(map[string]tenancy.Pos{})}},
		{Name: "every form", Origin: &tenancy.Origin{File: "dir/ü <b>.yaml", Line: 12, Values: tenancy.PositionsOf(map[string]tenancy.Pos{
			"/spec/queues/0/resources/gpu/deserved": {Line: 31, Column: 28, Start: 1214, End: 1215, Text: "4"},
			"/spec/queues/0/name":                   {Line: 30, Column: 13, Start: 1190, End: 1198, Text: `"a-h100"`},
			"/spec/queues/1/name":                   {Line: 40, Column: 13, Start: 1290, End: 1300, Text: "'ü\u2028x'"},
			"/spec/queues/0/resources/cpu/limit":    {Line: 33, Column: 5, Start: 1300, End: 1302, Text: "<&>\t"},
			"/spec/queues/0/resources/gpu/limit":    {Line: 32, Column: 28, Start: 1230, End: 1235, Text: "*lim", Alias: true, AnchorLine: 4},
			"/spec/queues/0/priority":               {Line: 5, Column: 3, Start: 90, End: 93, Text: "100", Anchor: "p", AnchorLine: 5},
			"/spec/queues/0/resources/memory/limit": {Line: 6, Column: 3, Start: 90, End: 99, Text: "1"},
			"/spec/parent":                          {Line: 2, Column: 11, Start: 20, End: 28, Text: "platform"},
			"/spec/Parent":                          {Line: 2, Column: 11, Start: 20, End: 28, Text: "PLATFORM"},
		})}},
	}}
	var std bytes.Buffer
	enc := json.NewEncoder(&std)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(in); err != nil {
		t.Fatal(err)
	}
	got, err := jsonfile.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, std.Bytes()) {
		t.Fatalf("jsonfile.Marshal:\n%s\nencoding/json:\n%s", got, std.Bytes())
	}
	lines, err := jsonfile.MarshalLines(in)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range [][]byte{got, lines} {
		var back file
		if err := jsonfile.DecodeStrict(b, &back); err != nil {
			t.Fatal(err)
		}
		in.Objects[2].Origin.Values = tenancy.Positions{} // omitted when empty
		if !reflect.DeepEqual(back, in) {
			t.Fatalf("read back %+v", back)
		}
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, lines); err != nil {
		t.Fatal(err)
	}
	var stdCompact bytes.Buffer
	_ = json.Compact(&stdCompact, std.Bytes())
	if !bytes.Equal(compact.Bytes(), stdCompact.Bytes()) {
		t.Fatalf("MarshalLines differs from encoding/json:\n%s", lines)
	}
}

// TestPosJSONErrorsAreTheSame: a bad position is refused by jsonfile with
// the message encoding/json's path gives.
func TestPosJSONErrorsAreTheSame(t *testing.T) {
	for _, bad := range []string{`"11:28 200"`, `"11:28 200-202 3"`, `7`, `{"line":1,"bogus":2}`} {
		var viaStd tenancy.Pos
		want := json.Unmarshal([]byte(bad), &viaStd)
		var viaV2 struct {
			P tenancy.Pos `json:"p"`
		}
		got := jsonfile.DecodeStrict([]byte(`{"p":`+bad+`}`), &viaV2)
		if want == nil || got == nil || got.Error() != "line 1: /p: "+want.Error() {
			t.Errorf("%s: jsonfile %v, encoding/json %v", bad, got, want)
		}
	}
}
