package absdata

import "encoding/json"

type Library struct {
	ID           string            `json:"id"`
	Name         string            `json:"name"`
	MediaType    string            `json:"mediaType"`
	Provider     string            `json:"provider"`
	Folders      []json.RawMessage `json:"folders"`
	DisplayOrder int               `json:"displayOrder"`
	Settings     json.RawMessage   `json:"settings"`
	CreatedAt    int64             `json:"createdAt"`
	LastUpdate   int64             `json:"lastUpdate"`
}
