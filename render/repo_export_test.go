package render

// MemRepo and GitBlobID let the benchmarks (package render_test) run
// PrepareSplice over files held in memory, with git's blob ids.
type MemRepo = memRepo

// GitBlobID is the git blob id of b.
var GitBlobID = gitBlobID
