package absdata

type Series struct {
	ID          string   `json:"id"`
	Name        string   `json:"name"`
	Description LazyText `json:"description"`
	AddedAt     int64    `json:"addedAt"`
	Books       []Item   `json:"books"`
	NumBooks    int      `json:"numBooks"`
}
