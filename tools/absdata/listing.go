package absdata

// Listing is a list answer of Audiobookshelf. A route that pages sends the
// page in results, with total; a route that sends every entry names the
// list after what it holds: the server-wide collections and playlists, a
// library's authors when not paged.
type Listing[T any] struct {
	Results     []T  `json:"results"`
	Total       *int `json:"total"`
	Collections []T  `json:"collections"`
	Playlists   []T  `json:"playlists"`
	Authors     []T  `json:"authors"`
}

// Rows is what the answer holds: the page with its total (Audiobookshelf's
// count, or the page's length when it sent none), or every entry with a
// nil total.
func (l *Listing[T]) Rows() (rows []T, total *int) {
	if l.Total != nil {
		return l.Results, l.Total
	}
	if l.Results != nil {
		n := len(l.Results)
		return l.Results, &n
	}
	for _, all := range [][]T{l.Collections, l.Playlists, l.Authors} {
		if all != nil {
			return all, nil
		}
	}
	return nil, nil
}
