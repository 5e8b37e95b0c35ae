package absdata

// Series is a series of a library: in a page of list_series (with its
// books), alone (GET /api/series/:id, with the user's progress) or on a
// home shelf.
type Series struct {
	ID          string          `json:"id"`
	Name        string          `json:"name"`
	LibraryID   string          `json:"libraryId"`
	Description LazyText        `json:"description"`
	AddedAt     int64           `json:"addedAt"`
	UpdatedAt   int64           `json:"updatedAt"`
	Books       []Item          `json:"books"`
	NumBooks    int             `json:"numBooks"`
	Progress    *SeriesProgress `json:"progress"`
}

// SeriesProgress is the user's progress through a series' books.
type SeriesProgress struct {
	LibraryItemIDs         []string `json:"libraryItemIds"`
	LibraryItemIDsFinished []string `json:"libraryItemIdsFinished"`
	IsFinished             bool     `json:"isFinished"`
}

// Author is an author of a library: in a page of list_authors, alone (GET
// /api/authors/:id, with its books and series when asked), in search
// results or on a home shelf.
type Author struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Description string `json:"description"`
	ASIN        string `json:"asin"`
	ImagePath   string `json:"imagePath"`
	LibraryID   string `json:"libraryId"`
	AddedAt     int64  `json:"addedAt"`
	UpdatedAt   int64  `json:"updatedAt"`
	NumBooks    int    `json:"numBooks"`
	// LibraryItems and Series come with include=items,series.
	LibraryItems []Item `json:"libraryItems"`
	Series       []struct {
		ID    string `json:"id"`
		Name  string `json:"name"`
		Items []Item `json:"items"`
	} `json:"series"`
}

// SearchResults is a library's search answer, by kind of match.
type SearchResults struct {
	Book    []SearchHit `json:"book"`
	Podcast []SearchHit `json:"podcast"`
	Series  []struct {
		Series Ref    `json:"series"`
		Books  []Item `json:"books"`
	} `json:"series"`
	Authors   []Author   `json:"authors"`
	Narrators []Narrator `json:"narrators"`
	Tags      []Term     `json:"tags"`
	Genres    []Term     `json:"genres"`
}

// SearchHit is an item a search matched, and what of it matched.
type SearchHit struct {
	LibraryItem Item   `json:"libraryItem"`
	MatchKey    string `json:"matchKey"`
	MatchText   string `json:"matchText"`
}

// Narrator is a narrator's name with their number of books: an entry of a
// library's narrators (GET /api/libraries/:id/narrators, with an id, the
// name in base64 that the rename route takes) and of a search's narrators
// (no id).
type Narrator struct {
	ID       string `json:"id,omitempty"`
	Name     string `json:"name"`
	NumBooks int    `json:"numBooks"`
}

// Term is a tag or a genre with its number of items.
type Term struct {
	Name     string `json:"name"`
	NumItems int    `json:"numItems"`
}

// Shelf is one of a library's home shelves: its entities are items,
// episodes (in a podcast's item), series, authors or others, as its Type
// says, each decoded by that.
type Shelf struct {
	ID       string     `json:"id"`
	Label    string     `json:"label"`
	Type     string     `json:"type"`
	Entities []RawValue `json:"entities"`
	Total    int        `json:"total"`
}
