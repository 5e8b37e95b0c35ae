package podcasts

import (
	"path"
	"regexp"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

var (
	illegalRe         = regexp.MustCompile(`[/?<>\\:*|"]`)
	controlRe         = regexp.MustCompile("[\x00-\x1f\u0080-\u009f]")
	reservedRe        = regexp.MustCompile(`^\.+$`)
	windowsReservedRe = regexp.MustCompile(`(?i)^(con|prn|aux|nul|com[0-9]|lpt[0-9])(\..*)?$`)
	windowsTrailingRe = regexp.MustCompile(`[. ]+$`)
	spacesRe          = regexp.MustCompile(`\s+`)
)

// sanitizeFilename is the web client's $sanitizeFilename
// (client/plugins/init.client.js), with which it names a new podcast's
// folder: the first colon becomes " - ", characters illegal in file names
// go, and the name is cut to 255 bytes of UTF-16.
func sanitizeFilename(name string) string {
	s := strings.Replace(name, ":", " - ", 1)
	s = illegalRe.ReplaceAllString(s, "")
	s = controlRe.ReplaceAllString(s, "")
	s = reservedRe.ReplaceAllString(s, "")
	s = strings.NewReplacer("\n", "", "\r", "").Replace(s)
	s = windowsReservedRe.ReplaceAllString(s, "")
	s = windowsTrailingRe.ReplaceAllString(s, "")
	s = spacesRe.ReplaceAllString(s, " ")
	ext := path.Ext(s)
	base := strings.TrimSuffix(s, ext)
	u16 := func(x string) int { return 2 * len(utf16.Encode([]rune(x))) }
	if u16(base)+u16(ext) > 255 {
		room := 255 - u16(ext)
		total := 0
		var b strings.Builder
		for _, c := range base {
			total += 2 * len(utf16.Encode([]rune{c}))
			if total > room {
				break
			}
			b.WriteRune(c)
		}
		s = strings.TrimSpace(b.String()) + ext
	}
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "")
	}
	return s
}
