package snapshot

// ParseFile is parseFile, for the tests of package snapshot_test;
// DocumentParts is the number of parts documentParts cuts src into;
// DocumentCuts is the offsets it cuts src at.
var ParseFile = (*Parsed).parseFile

func DocumentParts(src []byte, n int) int { return len(documentParts(src, n)) }

func DocumentCuts(src []byte, n int) []int {
	var cuts []int
	for _, p := range documentParts(src, n)[1:] {
		cuts = append(cuts, p.start)
	}
	return cuts
}
