package main

import "runtime/debug"

// The garbage collector's pace for a server whose live heap is a few MB
// and whose every call makes a few hundred kB of short-lived garbage
// (go-sdk decodes each JSON-RPC message through a fresh 32 kB buffer, several
// times per call). With Go's default (GOGC=100, which for a small heap means
// a collection every 4 MB allocated) a collection ran every dozen calls and
// took about half of the CPU per call, client and server together, in
// process (BenchmarkReadToolsReplayed); at 200 that share falls to about a
// tenth, and 400 gains little more for much more memory. The memory limit
// keeps a large live heap (a big answer read while many calls run) from
// growing to three times its size before a collection.
const (
	gcPercent   = 200
	memoryLimit = 512 << 20
)

// tuneGC sets the collector's pace unless the environment sets its own
// (GOGC, GOMEMLIMIT: the runtime has read them already).
func tuneGC(getenv func(string) string) {
	if getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent)
	}
	if getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(memoryLimit)
	}
}
