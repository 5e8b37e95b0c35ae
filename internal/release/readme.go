package release

import (
	"fmt"
	"strings"
)

// ArchiveReadme is the short README.txt of the archive for p: what the
// binary is, its first start, where the rest is documented, and its license.
func ArchiveReadme(version string, p Platform) []byte {
	exe := "./" + p.Exe()
	setURL := "export AUDIOBOOKSHELF_URL=https://abs.example.org"
	setKey := "export AUDIOBOOKSHELF_API_KEY=...   # not echoed to any log"
	if p.OS == "windows" {
		exe = `.\` + p.Exe()
		setURL = `$env:AUDIOBOOKSHELF_URL = "https://abs.example.org"`
		setKey = `$env:AUDIOBOOKSHELF_API_KEY = "..."`
	}
	var b strings.Builder
	fmt.Fprintf(&b, `audiobookshelf-mcp %[1]s (%[2]s)
An MCP server for your Audiobookshelf library.

First start
1. Get an API key: in Audiobookshelf (2.26 or newer), Settings > API Keys.
   Only an admin can make one; its dialog asks which user the key acts
   for. Make sure the key is active.
2. Check that this binary reaches your Audiobookshelf with that key:
     %[3]s
     %[4]s
     %[5]s --check
   It connects once, says which server, user and libraries it found, and
   exits 0; or it says what is wrong and exits 1. This is the test of the
   setup: a client's list of servers may show this one as connected with
   a wrong key or URL, since the server starts without Audiobookshelf.
3. Point your MCP client at the absolute path of this binary, with
   AUDIOBOOKSHELF_URL and AUDIOBOOKSHELF_API_KEY in its environment.
`, version, p, setURL, setKey, exe)
	if p.OS == "darwin" {
		b.WriteString(`   The binary is not signed: allow it once with
     xattr -d com.apple.quarantine audiobookshelf-mcp
`)
	}
	fmt.Fprintf(&b, `
%[1]s --help lists the flags and variables; %[1]s tools lists the tools.
Setup for each client, the configuration and the container image:
%[2]s#readme

License: MIT, in the file LICENSE next to this one.
`, exe, Repository)
	return []byte(strings.ReplaceAll(b.String(), "\n", lineEnd(p)))
}

func lineEnd(p Platform) string {
	if p.OS == "windows" {
		return "\r\n"
	}
	return "\n"
}
