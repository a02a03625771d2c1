package parjson

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand"
	"reflect"
	"testing"
)

type dTop struct {
	Version int               `json:"version"`
	Name    string            `json:"name,omitempty"`
	Items   []dItem           `json:"items"`
	Ptrs    []*dItem          `json:"ptrs"`
	Inner   dInner            `json:"inner"`
	Labels  map[string]string `json:"labels,omitempty"`
	Any     any               `json:"any"`
}

type dInner struct {
	Items []dItem `json:"items"`
	Note  string  `json:"note"`
}

type dItem struct {
	Name  string            `json:"name"`
	N     float64           `json:"n"`
	Tags  []string          `json:"tags,omitempty"`
	Meta  map[string]string `json:"meta,omitempty"`
	Child *dItem            `json:"child,omitempty"`
}

func sample(r *rand.Rand) dTop {
	item := func(i int) dItem {
		it := dItem{Name: fmt.Sprintf("i%d \"<x>\" \\ é", i), N: float64(r.Intn(100)) / 4}
		if r.Intn(3) == 0 {
			it.Tags = []string{"a", "b,]}"}
			it.Meta = map[string]string{"k": "{[v]}"}
		}
		if r.Intn(5) == 0 {
			it.Child = &dItem{Name: "child"}
		}
		return it
	}
	t := dTop{Version: 1, Name: "top", Labels: map[string]string{"a": "b"}, Any: []any{1.0, "x"}}
	for i := 0; i < 40; i++ {
		t.Items = append(t.Items, item(i))
		t.Inner.Items = append(t.Inner.Items, item(100+i))
		if i%4 == 0 {
			t.Ptrs = append(t.Ptrs, nil)
		} else {
			it := item(200 + i)
			t.Ptrs = append(t.Ptrs, &it)
		}
	}
	return t
}

// slow is the decoding Decode must agree with.
func slow(data []byte, strict bool) (dTop, error) {
	var v dTop
	dec := json.NewDecoder(bytes.NewReader(data))
	if strict {
		dec.DisallowUnknownFields()
	}
	err := dec.Decode(&v)
	return v, err
}

// TestDecodeAgreesOnMutatedInput decodes valid and broken JSON (bytes
// changed, dropped or added at random, unknown and repeated and odd keys,
// trailing data) with the slices cut into small chunks: the same value, or
// the same error.
func TestDecodeAgreesOnMutatedInput(t *testing.T) {
	defer func(n int) { minSplitBytes = n }(minSplitBytes)
	minSplitBytes = 64
	r := rand.New(rand.NewSource(1))
	edits := []func([]byte) []byte{
		func(b []byte) []byte { return b },
		func(b []byte) []byte { i := r.Intn(len(b)); return append(b[:i:i], b[i+1:]...) },
		func(b []byte) []byte {
			i := r.Intn(len(b))
			return append(append(b[:i:i], `,]}"\:{[ 0nx`[r.Intn(12)]), b[i:]...)
		},
		func(b []byte) []byte {
			b = append([]byte(nil), b...)
			b[r.Intn(len(b))] = `,]}"\:{[ 0nx`[r.Intn(12)]
			return b
		},
		func(b []byte) []byte { return bytes.Replace(b, []byte(`"note"`), []byte(`"Note"`), 1) },
		func(b []byte) []byte {
			return bytes.Replace(b, []byte(`"version":1,`), []byte(`"version":1,"version":2,`), 1)
		},
		func(b []byte) []byte { return bytes.Replace(b, []byte(`"name":"top"`), []byte(`"n\u0061me":"top"`), 1) },
		func(b []byte) []byte {
			return bytes.Replace(b, []byte(`"name":"top"`), []byte(`"extra":1,"name":"top"`), 1)
		},
		func(b []byte) []byte { return append(append([]byte(nil), b...), " {\"x\": ]"...) },
		func(b []byte) []byte {
			return bytes.Replace(b, []byte(`"items":[`), []byte(`"items":null,"ptrs":[`), 1)
		},
	}
	same := 0
	for i := 0; i < 4000; i++ {
		v := sample(r)
		var data []byte
		if i%2 == 0 {
			data, _ = json.Marshal(v)
		} else {
			data, _ = json.MarshalIndent(v, "", "  ")
		}
		data = edits[r.Intn(len(edits))](data)
		strict := r.Intn(2) == 0
		want, werr := slow(data, strict)
		var got dTop
		gerr := Decode(data, &got, strict)
		if (werr == nil) != (gerr == nil) || (werr != nil && werr.Error() != gerr.Error()) {
			t.Fatalf("case %d: error %v, encoding/json %v\n%s", i, gerr, werr, data)
		}
		if werr == nil {
			same++
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("case %d: values differ\n%s", i, data)
			}
		}
	}
	if same < 1000 {
		t.Fatalf("only %d inputs decoded: the cases do not exercise the fast path", same)
	}
}
