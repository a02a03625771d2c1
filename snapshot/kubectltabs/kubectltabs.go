// Package kubectltabs finds the tab that kubectl's YAML parser refuses
// and yaml.v3 takes: go-yaml v2 (sigs.k8s.io/yaml, which kubectl uses)
// allows a tab in block context only after a token on the line, yaml.v3
// also before a comment. The tenancy reader (package snapshot) refuses
// such a file, since kubectl apply could not read it.
package kubectltabs

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"

	sigsyaml "sigs.k8s.io/yaml"
)

// kubectlLine is go-yaml v2's "yaml: line N: " before a syntax error.
var kubectlLine = regexp.MustCompile(`^line ([0-9]+): `)

// Check decodes each document of src that holds a tab as kubectl decodes
// it (sigs.k8s.io/yaml, between the --- lines; separators are their
// 1-based lines, in order) and returns the first refusal: the file's
// line (1-based) and go-yaml v2's words for it, ok false. A file without
// a tab (the common case) is not decoded again.
func Check(src []byte, separators []int) (line int, msg string, ok bool) {
	if bytes.IndexByte(src, '\t') < 0 {
		return 0, "", true
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
			return line, msg, false
		}
	}
	return 0, "", true
}
