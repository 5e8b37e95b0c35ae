package main

import "runtime/debug"

// The garbage collector's pace for a server whose live heap is a few MB
// and whose every call makes a few hundred kB of short-lived garbage
// (go-sdk decodes each JSON-RPC message through a fresh 32 kB buffer, several
// times per call). With Go's default (GOGC=100, which for a small heap means
// a collection every 4 MB allocated) a collection ran every dozen calls.
// Measured in process, client and server together
// (BenchmarkReadToolsReplayed), 200 takes 46% off the CPU per call and 400
// 54%, for far more memory (a heap of up to five times the live one). The
// memory limit
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
