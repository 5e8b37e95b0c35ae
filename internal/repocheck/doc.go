// Package repocheck holds tests of the repository itself rather than of the
// server: what git tracks. No executable is tracked (an ELF, Mach-O or PE
// file, or a file with an exec bit that is not a script starting with #!),
// no tracked file is over 1 MiB unless the test's allow-list names it and
// says why, and the binary that `go build` leaves at the root for each
// command (cmd/*, bench/cmd/*) is ignored by .gitignore, and no
// hand-written Go file (gen/ and tests aside) drops the error of a decode
// (TestNoDecodeErrorDropped). It has no non-test code. The tests read
// `git ls-files`; outside a git checkout they skip.
package repocheck
