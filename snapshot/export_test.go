package snapshot

// ParseFile is parseFile, for the tests of package snapshot_test;
// DocumentParts is the number of parts documentParts cuts src into.
var ParseFile = (*Tenancy).parseFile

func DocumentParts(src []byte, n int) int { return len(documentParts(src, n)) }
