package yamlremove

import (
	"fmt"
	"strings"

	"github.com/krmplan/krmplan/internal/yamlsrc"
	"github.com/krmplan/krmplan/render/yamledit"
	"go.yaml.in/yaml/v3"
)

// RemoveItems returns the edits that remove the items at indices idx of the
// list that is the value of key in mapping m of file f (spec.queues of an
// object, resources of a kustomization), for Splice. A block list loses
// each item's lines with the comments that are its own (see
// Removals) and the blank lines that separated it from its next (for
// the last, its previous) item; a flow list loses the item and one comma,
// or, when its items stand on lines of their own, their lines. Removing
// every item leaves an empty flow list, `key: []`, the comment on the key's
// line kept. what names the items in messages. It refuses (an *Error
// naming the file and line) a list that is an alias, an index it does not
// have, a block list whose key line holds more than the key (a tag, an
// anchor), an item it cannot find the "- " of.
func RemoveItems(f *yamledit.File, m *yaml.Node, key string, idx []int, what string) ([]yamledit.Edit, error) {
	t := text{f}
	edits, err := t.removeItems(m, key, idx, what)
	if err != nil {
		return nil, err
	}
	return t.finishCuts(edits), nil
}

// removeItems is RemoveItems without finishCuts.
func (f text) removeItems(m *yaml.Node, key string, idx []int, what string) ([]yamledit.Edit, error) {
	var kn, seq *yaml.Node
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key && m.Content[i].Tag != "!!merge" {
			kn, seq = m.Content[i], m.Content[i+1]
		}
	}
	if seq == nil || seq.Kind != yaml.SequenceNode {
		line := m.Line
		if seq != nil {
			line = seq.Line
		}
		return nil, &yamledit.Error{File: f.Path(), Line: line, Msg: fmt.Sprintf("cannot remove %s: %s is not a list", what, key)}
	}
	mark := make([]bool, len(seq.Content))
	left := len(mark)
	for _, i := range idx {
		if i < 0 || i >= len(mark) {
			return nil, &yamledit.Error{File: f.Path(), Line: seq.Line, Msg: fmt.Sprintf("cannot remove %s: %s has %d items, not an item %d", what, key, len(mark), i)}
		}
		if !mark[i] {
			mark[i] = true
			left--
		}
	}
	if yamlsrc.IsFlow(seq) {
		return f.removeFlowItems(seq, mark, left == 0, what)
	}
	colon, err := f.keyColon(kn, what)
	if err != nil {
		return nil, err
	}
	own, err := f.itemsOwn(kn.Line, seq)
	if err != nil {
		return nil, err
	}
	if left == 0 {
		return []yamledit.Edit{{File: f.Path(), Line: kn.Line, Start: colon + 1, End: colon + 1, New: " []", What: what},
			f.cut(lineSpan{kn.Line + 1, own[len(own)-1].last}, what)}, nil
	}
	var edits []yamledit.Edit
	for _, r := range runs(mark) {
		edits = append(edits, f.cut(f.runCut(own, r[0], r[1]), what))
	}
	return edits, nil
}

// itemsOwn is the lines each item of block list seq owns: from the comment
// lines directly above its "- " (at most as indented as the dash; any
// comment above the first item, below the key's line keyLine) to the
// comment lines indented under it that follow its last line.
func (f text) itemsOwn(keyLine int, seq *yaml.Node) ([]lineSpan, error) {
	dashCol := f.Col(seq)
	cores := make([]lineSpan, len(seq.Content))
	prev := keyLine
	for k, it := range seq.Content {
		dash := -1
		for l := it.Line; l > prev && dash < 0; l-- {
			t := f.LineText(l)
			if f.Indent(l) == dashCol && len(t) > dashCol && t[dashCol] == '-' && (len(t) == dashCol+1 || t[dashCol+1] == ' ' || t[dashCol+1] == '\t') {
				dash = l
			}
		}
		if dash < 0 {
			return nil, &yamledit.Error{File: f.Path(), Line: it.Line, Msg: "cannot find the \"- \" of this list item; remove it by hand, or render with --format patch"}
		}
		last, err := f.ItemLastLine(seq, k)
		if err != nil {
			return nil, err
		}
		cores[k] = lineSpan{dash, last}
		prev = last
	}
	own := make([]lineSpan, len(cores))
	for k := range cores {
		lo := keyLine + 1
		if k > 0 {
			lo = cores[k-1].last + 1
		}
		first := cores[k].first
		for first-1 >= lo && f.isComment(first-1) && (k == 0 || f.Indent(first-1) <= dashCol) {
			first--
		}
		own[k].first = first
	}
	for k := range cores {
		limit := f.Lines()
		if k+1 < len(cores) {
			limit = own[k+1].first - 1
		}
		last := cores[k].last
		for last+1 <= limit && f.isComment(last+1) && f.Indent(last+1) > dashCol {
			last++
		}
		own[k].last = last
	}
	return own, nil
}

// keyColon is the offset of the ":" after key kn of a block list, which
// must end its line but for a comment: a tag or an anchor there is refused.
// Emptying the list writes " []" after it, the comment kept.
func (f text) keyColon(kn *yaml.Node, what string) (int, error) {
	end, err := f.TokenEnd(kn)
	if err != nil {
		return 0, err
	}
	colon := end
	for colon < len(f.Src()) && (f.Src()[colon] == ' ' || f.Src()[colon] == '\t') {
		colon++
	}
	rest := ""
	if colon < len(f.Src()) && f.Src()[colon] == ':' {
		rest = strings.TrimLeft(f.LineText(kn.Line)[colon+1-f.LineStart(kn.Line):], " \t")
	}
	if colon >= len(f.Src()) || f.Src()[colon] != ':' || (rest != "" && !strings.HasPrefix(rest, "#")) {
		return 0, &yamledit.Error{File: f.Path(), Line: kn.Line, Msg: fmt.Sprintf("cannot remove %s: the line of %s holds more than the key (a tag or an anchor); remove it by hand, or render with --format patch", what, kn.Value)}
	}
	return colon, nil
}

// flowItem is the byte range of an item of a flow list.
type flowItem struct{ start, end int }

// removeFlowItems removes the marked items of flow list seq (every item:
// the list becomes "[]").
func (f text) removeFlowItems(seq *yaml.Node, mark []bool, all bool, what string) ([]yamledit.Edit, error) {
	open := f.Offset(seq)
	close, err := f.FlowEnd(seq)
	if err != nil {
		return nil, err
	}
	if all {
		return []yamledit.Edit{{File: f.Path(), Line: seq.Line, Start: open, End: close, Old: string(f.Src()[open:close]), New: "[]", What: what, Cut: true}}, nil
	}
	items := make([]flowItem, len(seq.Content))
	for k, it := range seq.Content {
		end, err := f.NodeEnd(it)
		if err != nil {
			return nil, err
		}
		items[k] = flowItem{f.Offset(it), end}
	}
	if f.itemsOnOwnLines(open, close, items) {
		return f.removeFlowLines(f.LineOf(open), items, mark, what), nil
	}
	var edits []yamledit.Edit
	for _, r := range runs(mark) {
		i, j := r[0], r[1]
		var start, end int
		switch {
		case j+1 < len(items) && (i == 0 || f.LineOf(items[j].end) == f.LineOf(items[j+1].start)):
			start, end = items[i].start, items[j+1].start // "B, "
		default:
			start, end = items[i-1].end, items[j].end // ", B"
		}
		edits = append(edits, yamledit.Edit{File: f.Path(), Line: f.LineOf(start), Start: start, End: end, Old: string(f.Src()[start:end]), What: what, Cut: true})
	}
	return edits, nil
}

// afterItem is what follows a flow item on its line: an optional comma,
// then only spaces and a comment; comma is its offset (-1 without one).
func (f text) afterItem(end int) (comma int, ok bool) {
	t := f.Src()[end : f.LineStart(f.LineOf(end))+len(f.LineText(f.LineOf(end)))]
	s := strings.TrimLeft(string(t), " \t")
	comma = -1
	if strings.HasPrefix(s, ",") {
		comma = end + len(t) - len(s)
		s = strings.TrimLeft(s[1:], " \t")
	}
	return comma, s == "" || strings.HasPrefix(s, "#")
}

// itemsOnOwnLines reports a flow list whose "[", items and "]" each stand
// on lines of their own (an item's comma and comment after it).
func (f text) itemsOnOwnLines(open, close int, items []flowItem) bool {
	prev := f.LineOf(open)
	if strings.TrimSpace(string(f.Src()[open+1:f.LineNext(prev)])) != "" && !strings.HasPrefix(strings.TrimSpace(string(f.Src()[open+1:f.LineNext(prev)])), "#") {
		return false
	}
	for _, it := range items {
		l := f.LineOf(it.start)
		if l <= prev || f.LineStart(l)+f.Indent(l) != it.start {
			return false
		}
		if _, ok := f.afterItem(it.end); !ok {
			return false
		}
		prev = f.LineOf(it.end)
	}
	return f.LineOf(close-1) > prev
}

// removeFlowLines removes the lines of the marked items of a flow list
// whose items stand on lines of their own, with the comment lines directly
// above each. When the last item goes and had no comma after it, the new
// last item loses its comma too.
func (f text) removeFlowLines(openLine int, items []flowItem, mark []bool, what string) []yamledit.Edit {
	own := make([]lineSpan, len(items))
	for k, it := range items {
		lo := openLine
		if k > 0 {
			lo = own[k-1].last
		}
		first := f.LineOf(it.start)
		for first-1 > lo && f.isComment(first-1) {
			first--
		}
		own[k] = lineSpan{first, f.LineOf(it.end)}
	}
	var edits []yamledit.Edit
	for _, r := range runs(mark) {
		i, j := r[0], r[1]
		edits = append(edits, f.cut(f.runCut(own, i, j), what))
		if j+1 < len(items) {
			continue
		}
		if c, _ := f.afterItem(items[j].end); c < 0 {
			pc, _ := f.afterItem(items[i-1].end)
			e := yamledit.Edit{File: f.Path(), Line: f.LineOf(pc), Start: pc, End: pc + 1, Old: ",", What: what, Cut: true}
			if rest := strings.TrimLeft(string(f.Src()[pc+1:f.LineStart(f.LineOf(pc))+len(f.LineText(f.LineOf(pc)))]), " \t"); rest != "" {
				e.New = " " // a comment after it keeps its column
			}
			edits = append(edits, e)
		}
	}
	return edits
}
