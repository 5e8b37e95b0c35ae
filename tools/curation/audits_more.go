package curation

import (
	"bytes"
	"context"
	"fmt"
	"image"
	_ "image/jpeg" // covers come as JPEG
	"net/http"
	"strings"
	"time"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/gen/abs"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/absdata"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/kit"
	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/tools/naming"
)

// The audits that have no tool of their own: audit_library runs them
// beside the five above (alone with its audit argument). Each reads
// listings the others read too, so in a sweep they cost no request more
// but the podcasts' episodes.

// longBook is how long a book must be for one chapter to be a finding:
// two hours. A short story or a lecture in one piece is not one.
const longBook = 2 * 3600

// staleAfter is how old a podcast's newest episode may be before its
// feed counts as stale: a year.
const staleAfter = 365 * 24 * time.Hour

// auditNoAudio finds the books with no audio file: an ebook alone, or a
// folder Audiobookshelf found nothing to play in.
func auditNoAudio(ctx context.Context, d *kit.Deps, libraryID string) (*collected, error) {
	return auditBooks(ctx, d, libraryID, "no_audio", func(it *absdata.Item) string {
		if it.Media.NumAudioFiles > 0 {
			return ""
		}
		if it.Media.EbookFormat != "" {
			return "an ebook (" + it.Media.EbookFormat + ") and no audio file"
		}
		return "no audio file"
	})
}

// auditOneChapter finds the books of two hours or more held in one
// chapter (a book with none is audit_missing's).
func auditOneChapter(ctx context.Context, d *kit.Deps, libraryID string) (*collected, error) {
	return auditBooks(ctx, d, libraryID, "one_chapter", func(it *absdata.Item) string {
		if it.Media.NumChapters == 1 && it.Media.Duration >= longBook {
			return fmt.Sprintf("one chapter for %.1f hours", it.Media.Duration/3600)
		}
		return ""
	})
}

// auditAuthorInTitle finds the books whose title holds the name of one
// of their authors, whole and as words ("Ann Leckie - Ancillary
// Justice", "Provenance (Leckie, Ann)"): a name of one word is not
// looked for, nor a surname alone, nor a possessive ("Terry Pratchett's
// Hogfather" is how such books are sold).
func auditAuthorInTitle(ctx context.Context, d *kit.Deps, libraryID string) (*collected, error) {
	return auditBooks(ctx, d, libraryID, "author_in_title", func(it *absdata.Item) string {
		title := naming.FoldWords(titleOf(it))
		for _, name := range authorNames(&it.Media.Metadata) {
			words := naming.FoldWords(firstLast(name))
			if len(words) < 2 {
				continue
			}
			lastFirst := append([]string{words[len(words)-1]}, words[:len(words)-1]...)
			if holdsWords(title, words) || holdsWords(title, lastFirst) {
				return fmt.Sprintf("the title holds its author's name %q", name)
			}
		}
		return ""
	})
}

// auditBooks reads every book of the library and finds those that
// detail describes (a book it answers "" for is fine), as findings of
// kind.
func auditBooks(ctx context.Context, d *kit.Deps, libraryID, kind string, detail func(*absdata.Item) string) (*collected, error) {
	items, err := readItems(ctx, d, libraryID, "")
	if err != nil {
		return nil, err
	}
	var findings []Finding
	for i := range items {
		it := &items[i]
		if s := detail(it); s != "" {
			findings = append(findings, Finding{Kind: kind, IDs: []string{it.ID}, Names: []string{titleOf(it)}, Detail: s})
		}
	}
	return done(findings, []string{kind}, plural(len(items), "book", "books")), nil
}

// authorNames are a book's authors: by name where the page gives them,
// else its authorName cut at ", " (Audiobookshelf joins the names so).
func authorNames(m *absdata.Metadata) []string {
	if len(m.Authors) > 0 {
		out := make([]string, len(m.Authors))
		for i, a := range m.Authors {
			out[i] = a.Name
		}
		return out
	}
	if strings.TrimSpace(m.AuthorName) == "" {
		return nil
	}
	return strings.Split(m.AuthorName, ", ")
}

// holdsWords says whether words appear in s one after the other.
func holdsWords(s, words []string) bool {
	for i := 0; i+len(words) <= len(s); i++ {
		all := true
		for j, w := range words {
			if s[i+j] != w {
				all = false
				break
			}
		}
		if all {
			return true
		}
	}
	return false
}

// auditAuthorImages finds the authors with no image.
func auditAuthorImages(ctx context.Context, d *kit.Deps, libraryID string) (*collected, error) {
	authors, err := readAuthors(ctx, d, libraryID)
	if err != nil {
		return nil, err
	}
	var findings []Finding
	for i := range authors {
		a := &authors[i]
		if strings.TrimSpace(a.ImagePath) == "" {
			findings = append(findings, Finding{Kind: "no_image", IDs: []string{a.ID}, Names: []string{a.Name},
				Detail: plural(a.NumBooks, "book", "books")})
		}
	}
	return done(findings, []string{"no_image"}, plural(len(authors), "author", "authors")), nil
}

// podcastsAtOnce is how many podcasts' episodes are read at the same time.
const podcastsAtOnce = 4

// auditPodcasts finds, in a podcast library, the podcasts with no
// episode, and those whose newest episode is over a year old (a feed
// that stopped, or one that is no longer checked). A podcast's episodes
// are not on the library's pages: each podcast with episodes is read
// once, podcastsAtOnce at the same time.
func auditPodcasts(ctx context.Context, d *kit.Deps, libraryID string, now time.Time) (*collected, error) {
	items, err := walkItems(ctx, d, libraryID, "", true)
	if err != nil {
		return nil, err
	}
	newest := make([]int64, len(items))
	errs := make([]error, len(items))
	kit.EachLimit(len(items), podcastsAtOnce, func(i int) {
		if items[i].Media.NumEpisodes == 0 {
			return
		}
		_, it, err := d.ReadItem(ctx, items[i].ID, nil)
		if err != nil {
			errs[i] = err
			return
		}
		for _, e := range it.Media.Episodes {
			newest[i] = max(newest[i], e.PublishedAt)
		}
	})
	var findings []Finding
	for i := range items {
		if errs[i] != nil {
			return nil, errs[i]
		}
		it := &items[i]
		switch {
		case it.Media.NumEpisodes == 0:
			findings = append(findings, Finding{Kind: "no_episodes", IDs: []string{it.ID}, Names: []string{titleOf(it)}, Detail: "no episode"})
		case newest[i] > 0 && now.Sub(time.UnixMilli(newest[i])) > staleAfter:
			detail := "newest episode published " + time.UnixMilli(newest[i]).UTC().Format("2006-01-02")
			if it.Media.Metadata.FeedURL.Value == "" {
				detail += "; no feed URL"
			}
			findings = append(findings, Finding{Kind: "stale_feed", IDs: []string{it.ID}, Names: []string{titleOf(it)}, Detail: detail})
		}
	}
	return done(findings, []string{"no_episodes", "stale_feed"}, plural(len(items), "podcast", "podcasts")), nil
}

// done is an audit's findings, sorted, with the count of each kind.
func done(findings []Finding, kinds []string, read string) *collected {
	c := &collected{counts: tally(kinds, findings), read: read}
	for _, f := range findings {
		c.findings = append(c.findings, f)
	}
	return c
}

// coverProbeWidth is the width the covers audit asks each cover at:
// Audiobookshelf scales it to that width keeping its shape, so a small
// image (about a kilobyte) tells the shape.
const coverProbeWidth = 64

// squareSlack is how far from square a cover may be: 10 %.
const squareSlack = 0.10

// coversAtOnce is how many covers are read at the same time.
const coversAtOnce = 8

// auditCovers finds the books whose cover is not square (an audiobook's
// cover is; a 2:3 book jacket or a wide banner shows cut or boxed). It
// reads each book's cover at coverProbeWidth pixels wide, coversAtOnce at
// the same time: a request per book with a cover, so audit_library runs
// it only when asked for it.
func auditCovers(ctx context.Context, d *kit.Deps, libraryID string) (*collected, error) {
	items, err := readItems(ctx, d, libraryID, "")
	if err != nil {
		return nil, err
	}
	type shape struct {
		w, h int
		err  error
	}
	shapes := make([]shape, len(items))
	read := 0
	kit.EachLimit(len(items), coversAtOnce, func(i int) {
		if items[i].Media.CoverPath.Value == "" {
			return
		}
		w, h, err := coverShape(ctx, d, items[i].ID)
		shapes[i] = shape{w, h, err}
	})
	var findings []Finding
	for i := range items {
		s := shapes[i]
		if s.err != nil {
			return nil, s.err
		}
		if s.w == 0 {
			continue
		}
		read++
		ratio := float64(s.h) / float64(s.w)
		if ratio < 1-squareSlack || ratio > 1+squareSlack {
			findings = append(findings, Finding{Kind: "not_square", IDs: []string{items[i].ID}, Names: []string{titleOf(&items[i])},
				Detail: fmt.Sprintf("%d × %d at %d wide: %.2f as high as wide", s.w, s.h, coverProbeWidth, ratio)})
		}
	}
	return done(findings, []string{"not_square"}, plural(read, "cover", "covers")+" of "+plural(len(items), "book", "books")), nil
}

// coverShape reads a library item's cover at coverProbeWidth wide and
// answers its width and height; 0, 0 when Audiobookshelf has none (404).
func coverShape(ctx context.Context, d *kit.Deps, id string) (int, int, error) {
	width := coverProbeWidth
	format := abs.GetLibraryItemCoverParamsFormat("jpeg")
	resp, err := d.API.GetLibraryItemCover(ctx, id, &abs.GetLibraryItemCoverParams{Width: &width, Format: &format})
	if err != nil {
		return 0, 0, d.TransportError(ctx, false, err)
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusNotFound:
		return 0, 0, nil
	case resp.StatusCode/100 != 2 || resp.StatusCode == http.StatusNoContent:
		body, _ := kit.ReadLimited(resp.Body, -1, 64<<10)
		return 0, 0, kit.StatusError(&kit.Response{Status: resp.StatusCode, Body: d.Redact(ctx, body), ContentType: resp.Header.Get("Content-Type")},
			"the cover of library item "+id, false)
	}
	img, err := kit.ReadLimited(resp.Body, resp.ContentLength, 1<<20)
	if err != nil {
		return 0, 0, kit.Errorf(kit.Unchanged, "the cover of library item %s at %d pixels wide: %v", id, width, err)
	}
	cfg, _, err := image.DecodeConfig(bytes.NewReader(img))
	if err != nil || cfg.Width <= 0 || cfg.Height <= 0 {
		return 0, 0, kit.Errorf(kit.Unchanged, "the cover of library item %s: Audiobookshelf's answer is not an image this server reads (%d bytes).", id, len(img))
	}
	return cfg.Width, cfg.Height, nil
}
