package snapshot

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"

	sigsyaml "sigs.k8s.io/yaml"
)

// kubectlLine is go-yaml v2's "yaml: line N: " before a syntax error.
var kubectlLine = regexp.MustCompile(`^line ([0-9]+): `)

// checkTabs refuses a file with a tab that kubectl's parser rejects and
// yaml.v3 takes: go-yaml v2 allows a tab in block context only after a
// token on the line, yaml.v3 also before a comment. A file with tabs is
// rare, so for it alone each document is decoded as kubectl decodes it
// (sigs.k8s.io/yaml, between the --- lines); separators are their lines.
func checkTabs(name string, src []byte, separators []int) error {
	if bytes.IndexByte(src, '\t') < 0 {
		return nil
	}
	starts := append([]int{0}, separators...)
	lines := bytes.SplitAfter(src, []byte("\n"))
	for i, first := range starts {
		end := len(lines)
		if i+1 < len(starts) {
			end = starts[i+1] - 1
		}
		if first >= end {
			continue
		}
		chunk := bytes.Join(lines[first:end], nil)
		if bytes.IndexByte(chunk, '\t') < 0 {
			continue
		}
		if _, err := sigsyaml.YAMLToJSON(chunk); err != nil {
			msg := strings.TrimPrefix(strings.TrimPrefix(err.Error(), "error converting YAML to JSON: "), "yaml: ")
			line := first + 1
			if m := kubectlLine.FindStringSubmatch(msg); m != nil {
				n, _ := strconv.Atoi(m[1])
				line = first + n
				msg = strings.Replace(msg, m[0], "", 1)
			}
			return &ParseError{File: name, Line: line, Msg: "kubectl cannot read this document: " + msg +
				" (go-yaml v2, which kubectl uses, refuses a tab at the start of a line that yaml.v3 takes); indent with spaces"}
		}
	}
	return nil
}
