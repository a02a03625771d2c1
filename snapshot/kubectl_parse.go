package snapshot

import (
	"errors"

	"github.com/krmplan/krmplan/snapshot/kubectltabs"
)

// checkTabs refuses a file with a tab that kubectl's parser rejects and
// yaml.v3 takes (kubectltabs.Check); separators are the --- lines.
func checkTabs(name string, src []byte, separators []int) error {
	if line, msg, ok := kubectltabs.Check(src, separators); !ok {
		return &ParseError{File: name, Line: line, Msg: "kubectl cannot read this document: " + msg +
			" (go-yaml v2, which kubectl uses, refuses a tab at the start of a line that yaml.v3 takes); indent with spaces"}
	}
	return nil
}

// firstOf is the error of yaml.v3's syntax error syn and kubectl's tab
// refusal tabs (checkTabs of the whole file, nil when kubectl reads its
// tabs) that a reader from the file's start meets first: a tab only
// kubectl refuses on line 2 comes before yaml.v3's error on line 24,
// which would otherwise be reported alone. On the same line, or when
// yaml.v3's line is not known, yaml.v3's: the tab is one yaml.v3 refuses
// too, or which comes first cannot be told.
func firstOf(syn *ParseError, tabs error) error {
	var tab *ParseError
	if errors.As(tabs, &tab) && syn.Line > 0 && tab.Line < syn.Line {
		return tab
	}
	return syn
}
