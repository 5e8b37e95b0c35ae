package specdrift

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// ops is a small spec: the operations the fixtures are about, with the
// tools that call them.
var ops = []Op{
	{ID: "getServerStatus", Method: "GET", Path: "/status", Tools: []string{"get_server_status"}},
	{ID: "listLibraries", Method: "GET", Path: "/api/libraries", Tools: []string{"list_libraries"}},
	{ID: "getLibrary", Method: "GET", Path: "/api/libraries/{id}", Tools: []string{"get_library"}},
	{ID: "getMediaProgress", Method: "GET", Path: "/api/me/progress/{id}", Tools: []string{"get_media_progress"}},
	{ID: "getEpisodeMediaProgress", Method: "GET", Path: "/api/me/progress/{libraryItemId}/{episodeId}", Tools: []string{"get_media_progress"}},
	{ID: "updateMediaProgress", Method: "PATCH", Path: "/api/me/progress/{id}", Tools: []string{"set_media_progress"}},
	{ID: "updateEpisodeMediaProgress", Method: "PATCH", Path: "/api/me/progress/{libraryItemId}/{episodeId}", Tools: []string{"set_media_progress"}},
	{ID: "deleteMediaProgress", Method: "DELETE", Path: "/api/me/progress/{id}", Tools: []string{"delete_media_progress"}},
	{ID: "getSeries", Method: "GET", Path: "/api/series/{id}", Tools: []string{"get_series"}},
	{ID: "createBackup", Method: "POST", Path: "/api/backups"},
}

func source(t *testing.T, router string) *Source {
	t.Helper()
	files := map[string][]byte{}
	for name, f := range map[string]string{apiRouterFile: router, serverFile: "Server.js"} {
		b, err := os.ReadFile(filepath.Join("testdata", f))
		if err != nil {
			t.Fatal(err)
		}
		files[name] = b
	}
	files[packageFile] = []byte(`{"name":"audiobookshelf","version":"9.9.9"}`)
	s, err := Parse(files)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func keys(rs []Route) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.Method+" "+r.Path+" "+r.Where)
	}
	return out
}

func TestParseRoutes(t *testing.T) {
	s := source(t, "today_ApiRouter.js")
	want := []string{
		"GET /status Server.js:2",
		"GET /healthcheck Server.js:5",
		"GET /api/libraries ApiRouter.js:6",
		"GET /api/libraries/{id} ApiRouter.js:7",
		"GET /api/me/progress/{id} ApiRouter.js:8",
		"GET /api/me/progress/{id}/{episodeId} ApiRouter.js:8",
		"PATCH /api/me/progress/{libraryItemId} ApiRouter.js:9",
		"PATCH /api/me/progress/{libraryItemId}/{episodeId} ApiRouter.js:9",
		"DELETE /api/me/progress/{id} ApiRouter.js:10",
		"GET /api/series/{id} ApiRouter.js:11",
		"POST /api/backups ApiRouter.js:12",
	}
	if got := keys(s.Routes); !reflect.DeepEqual(got, want) {
		t.Errorf("routes:\n got %q\nwant %q", got, want)
	}
	if s.Version != "9.9.9" {
		t.Errorf("version %q", s.Version)
	}
}

func TestToday(t *testing.T) {
	r := Compare(source(t, "today_ApiRouter.js"), ops, "2.36.0")
	if len(r.Gone)+len(r.MethodChanged)+len(r.Lacking) != 0 || len(r.Breaking()) != 0 {
		t.Errorf("no drift expected: gone %v, changed %v, lacking %v", r.Gone, r.MethodChanged, r.Lacking)
	}
	if r.Matched != len(ops) {
		t.Errorf("matched %d of %d", r.Matched, len(ops))
	}
	var out bytes.Buffer
	r.Print(&out, "spec.yaml", "today")
	if !strings.Contains(out.String(), "ok: every route a tool uses") {
		t.Errorf("report:\n%s", out.String())
	}
}

func TestChanged(t *testing.T) {
	r := Compare(source(t, "changed_ApiRouter.js"), ops, "2.36.0")
	var gone, changed, lacking []string
	for _, c := range r.Gone {
		gone = append(gone, c.Op.ID)
	}
	for _, c := range r.MethodChanged {
		changed = append(changed, c.Op.ID+" now "+strings.Join(c.NowMethods, ","))
	}
	for _, l := range r.Lacking {
		lacking = append(lacking, l.Method+" "+l.Path+" "+l.Where)
	}
	if want := []string{"createBackup", "getSeries"}; !reflect.DeepEqual(gone, want) {
		t.Errorf("gone %v, want %v", gone, want)
	}
	if want := []string{"updateMediaProgress now PUT", "updateEpisodeMediaProgress now PUT"}; !reflect.DeepEqual(changed, want) {
		t.Errorf("method changes %v, want %v", changed, want)
	}
	if want := []string{
		"GET /api/libraries/{id}/narrators ApiRouter.js:9",
		"PUT /api/me/progress/{libraryItemId} ApiRouter.js:15",
		"PUT /api/me/progress/{libraryItemId}/{episodeId} ApiRouter.js:15",
	}; !reflect.DeepEqual(lacking, want) {
		t.Errorf("lacking %v, want %v", lacking, want)
	}
	// Breaking: the two a tool uses, not the backup route.
	var breaking []string
	for _, c := range r.Breaking() {
		breaking = append(breaking, c.Op.ID)
	}
	if want := []string{"getSeries", "updateMediaProgress", "updateEpisodeMediaProgress"}; !reflect.DeepEqual(breaking, want) {
		t.Errorf("breaking %v, want %v", breaking, want)
	}
	var out bytes.Buffer
	r.Print(&out, "spec.yaml", "changed")
	for _, s := range []string{
		"FAIL: 3 route(s) that tools use have gone or changed",
		"GET /api/series/{id} (get_series)",
		"PATCH  /api/me/progress/{id}",
		"the server serves PUT there now",
		"(Audiobookshelf 9.9.9)",
	} {
		if !strings.Contains(out.String(), s) {
			t.Errorf("report lacks %q:\n%s", s, out.String())
		}
	}
}

// A release archive (files under one top directory) reads as the tree does.
func TestLoadArchive(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "audiobookshelf-9.9.9.tar.gz")
	f, err := os.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	gz := gzip.NewWriter(f)
	tw := tar.NewWriter(gz)
	add := func(p string, b []byte) {
		tw.WriteHeader(&tar.Header{Name: p, Mode: 0o644, Size: int64(len(b)), Typeflag: tar.TypeReg})
		tw.Write(b)
	}
	router, _ := os.ReadFile("testdata/changed_ApiRouter.js")
	server, _ := os.ReadFile("testdata/Server.js")
	add("audiobookshelf-9.9.9/package.json", []byte(`{"version":"9.9.9"}`))
	add("audiobookshelf-9.9.9/client/package.json", []byte(`{"version":"0.0.1"}`))
	add("audiobookshelf-9.9.9/server/routers/ApiRouter.js", router)
	add("audiobookshelf-9.9.9/server/Server.js", server)
	tw.Close()
	gz.Close()
	f.Close()
	s, err := Load(name)
	if err != nil {
		t.Fatal(err)
	}
	if s.Version != "9.9.9" || len(Compare(s, ops, "").Breaking()) != 3 {
		t.Errorf("archive read as version %q with routes %q", s.Version, keys(s.Routes))
	}
	if _, err := Load(filepath.Join(dir, "missing")); err == nil {
		t.Error("a missing source loads")
	}
	empty := t.TempDir()
	if _, err := Load(empty); err == nil || !strings.Contains(err.Error(), apiRouterFile) {
		t.Errorf("a directory without ApiRouter.js: %v", err)
	}
}
