package e2e

import (
	sd "github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/standin"
)

// The cases of update_author and update_series in the tables every
// guarded and every write tool is held to.
func init() {
	questionNames["update_author"] = []string{"give " + named("author", "Terry Pratchett", sd.AuthorPratchett) + " an image",
		"the image cannot be taken back from here"}
	questionNames["update_series"] = []string{"set the description of " + named("series", "The Expanse", sd.SeriesExpanse),
		"Audiobookshelf holds null"}
	putBackCases["update_author"] = []putBackCase{
		{name: "name, biography and ASIN", args: map[string]any{"author_id": sd.AuthorPratchett, "name": "Sir Terry Pratchett",
			"description": "Wrote the Discworld novels.", "asin": "B000AP9A6K"}},
		{name: "a biography cleared", args: map[string]any{"author_id": sd.AuthorPratchett, "description": ""},
			setup: func(d *sd.Data) { authorIn(d, sd.AuthorPratchett).Description = "Wrote the Discworld novels." }},
	}
	putBackCases["update_series"] = []putBackCase{
		{name: "a rename", args: map[string]any{"series_id": sd.SeriesExpanse, "name": "Expanse"}},
		{name: "a description replaced", args: map[string]any{"series_id": sd.SeriesExpanse, "description": "Space opera."},
			setup: func(d *sd.Data) { seriesIn(d, sd.SeriesExpanse).Description = "Nine novels." }},
	}
}

// recordRequestCases reach the most requests tools.yaml gives for
// update_author and update_series (TestRequestsPerCall).
var recordRequestCases = []readCase{
	// A rename (the library's authors read) with an image, which asks:
	// everything read twice, then the change and the image.
	{tool: "update_author", args: map[string]any{"author_id": sd.AuthorPratchett, "name": "Sir Terry Pratchett",
		"image_url": "https://images.example/pratchett.jpg"}},
	// A first description asks: read twice, then the change.
	{tool: "update_series", args: map[string]any{"series_id": sd.SeriesExpanse, "description": "Space opera."}},
}

func authorIn(d *sd.Data, id string) *sd.Author {
	for i := range d.Authors {
		if d.Authors[i].ID == id {
			return &d.Authors[i]
		}
	}
	panic("no author " + id)
}

func seriesIn(d *sd.Data, id string) *sd.Series {
	for i := range d.Series {
		if d.Series[i].ID == id {
			return &d.Series[i]
		}
	}
	panic("no series " + id)
}

func authorOf(s *sd.Server, id string) sd.Author {
	d := s.Snapshot()
	return *authorIn(d, id)
}

func seriesOf(s *sd.Server, id string) sd.Series {
	d := s.Snapshot()
	return *seriesIn(d, id)
}
