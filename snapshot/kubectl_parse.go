package snapshot

import "github.com/krmplan/krmplan/snapshot/kubectltabs"

// checkTabs refuses a file with a tab that kubectl's parser rejects and
// yaml.v3 takes (kubectltabs.Check); separators are the --- lines.
func checkTabs(name string, src []byte, separators []int) error {
	if line, msg, ok := kubectltabs.Check(src, separators); !ok {
		return &ParseError{File: name, Line: line, Msg: "kubectl cannot read this document: " + msg +
			" (go-yaml v2, which kubectl uses, refuses a tab at the start of a line that yaml.v3 takes); indent with spaces"}
	}
	return nil
}
