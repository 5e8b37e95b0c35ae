package absdata

// Collection is a collection of books with its books expanded, in their
// order.
type Collection struct {
	ID          string  `json:"id"`
	LibraryID   string  `json:"libraryId"`
	UserID      string  `json:"userId"`
	Name        string  `json:"name"`
	Description *string `json:"description"`
	Books       []Item  `json:"books"`
	LastUpdate  int64   `json:"lastUpdate"`
	CreatedAt   int64   `json:"createdAt"`
}

// BookIDs are the ids of the collection's books, in their order.
func (c *Collection) BookIDs() []string {
	ids := make([]string, 0, len(c.Books))
	for _, b := range c.Books {
		ids = append(ids, b.ID)
	}
	return ids
}
