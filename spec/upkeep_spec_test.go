package spec

import "net/http"

// The upkeep toolset's routes, their quirks and their plain "OK" answers.
func init() {
	for id, op := range map[string]struct{ method, path string }{
		"scanLibrary":            {http.MethodPost, "/api/libraries/{id}/scan"},
		"listTasks":              {http.MethodGet, "/api/tasks"},
		"updateLibraryItemMedia": {http.MethodPatch, "/api/items/{id}/media"},
		"matchLibraryItem":       {http.MethodPost, "/api/items/{id}/match"},
		"getLibraryItemCover":    {http.MethodGet, "/api/items/{id}/cover"},
		"removeLibraryItemCover": {http.MethodDelete, "/api/items/{id}/cover"},
		"getLoggerData":          {http.MethodGet, "/api/logger-data"},
	} {
		operations[id] = op
	}
	quirks = append(quirks, []struct{ operationID, substring string }{
		{"scanLibrary", "answers 200 \"OK\" before the scan runs"},
		{"scanLibrary", "already being scanned, or one without folders, is not scanned"},
		{"scanLibrary", "reach only socket clients"},
		{"updateLibraryItemMedia", "metadata.tags is ignored"},
		{"updateLibraryItemMedia", "series left without books is always deleted"},
		{"updateLibraryItemMedia", "deleted only when its asin, description and imagePath are all empty"},
		{"updateLibraryItemMedia", "\"\" and null store null"},
		{"matchLibraryItem", "always send both"},
		{"getLibraryItemCover", "no access check"},
		{"removeLibraryItemCover", "403 without the delete permission"},
		{"removeLibraryItemCover", "the image file itself is not deleted"},
	}...)
	plainOK = append(plainOK, "scanLibrary", "removeLibraryItemCover")
}
