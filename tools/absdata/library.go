package absdata

import "encoding/json"

// Library is a library: its media type, its folders and, kept as it came
// for get_library, its settings.
type Library struct {
	ID           string          `json:"id"`
	Name         string          `json:"name"`
	MediaType    string          `json:"mediaType"`
	Provider     string          `json:"provider"`
	Folders      []Folder        `json:"folders"`
	DisplayOrder int             `json:"displayOrder"`
	Settings     json.RawMessage `json:"settings"`
	CreatedAt    int64           `json:"createdAt"`
	LastUpdate   int64           `json:"lastUpdate"`
	// LastScan moves when a scan of the library completes.
	LastScan *int64 `json:"lastScan"`
}

// Folder is one folder of a library on the server's disk.
type Folder struct {
	ID       string `json:"id"`
	FullPath string `json:"fullPath"`
}

// ServerStatus is GET /status: no key is needed for it.
type ServerStatus struct {
	App           string   `json:"app"`
	ServerVersion string   `json:"serverVersion"`
	IsInit        bool     `json:"isInit"`
	Language      string   `json:"language"`
	AuthMethods   []string `json:"authMethods"`
}

// Task is one of the server's tasks (GET /api/tasks): a library scan while
// it runs, with its counts once it ends.
type Task struct {
	ID     string `json:"id"`
	Action string `json:"action"`
	Data   struct {
		LibraryID   string `json:"libraryId"`
		ScanResults *struct {
			Added   int `json:"added"`
			Updated int `json:"updated"`
			Missing int `json:"missing"`
		} `json:"scanResults"`
	} `json:"data"`
	IsFinished bool  `json:"isFinished"`
	IsFailed   bool  `json:"isFailed"`
	StartedAt  int64 `json:"startedAt"`
}
