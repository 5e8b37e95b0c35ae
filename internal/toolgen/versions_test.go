package toolgen

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const versionsSpec = `openapi: 3.0.3
info: {title: t, version: 2.36.0}
paths:
  /api/things/{id}:
    get:
      operationId: getThing
      SINCE
      parameters:
        - {name: id, in: path, required: true, schema: {type: string}}
      responses:
        '200': {description: ok}
    patch:
      operationId: updateThing
      parameters:
        - {name: id, in: path, required: true, schema: {type: string}}
      responses:
        '200': {description: ok}
components:
  securitySchemes:
    bearerAuth: {type: http, scheme: bearer, x-abs-since: 2.26.0}
`

func loadVersions(t *testing.T, since string) (*Versions, error) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "spec.yaml")
	if err := os.WriteFile(p, []byte(strings.Replace(versionsSpec, "SINCE", since, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := Parse([]byte(baseManifest))
	if err != nil {
		t.Fatal(err)
	}
	return LoadVersions(p, m)
}

func TestLoadVersions(t *testing.T) {
	v, err := loadVersions(t, "x-abs-since: 2.30.1")
	if err != nil {
		t.Fatal(err)
	}
	if v.Spec != "2.36.0" || v.APIKeys != "2.26.0" || len(v.Gates) != 1 {
		t.Fatalf("got %+v", v)
	}
	g := v.Gates[0]
	if g.Operation != "getThing" || g.Method != "GET" || g.Path != "/api/things/{id}" || g.Since != "2.30.1" ||
		strings.Join(g.Tools, ",") != "get_thing,update_thing" {
		t.Errorf("gate %+v", g)
	}
	src, err := renderVersions(v)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`const Spec = "2.36.0"`, `const APIKeys = "2.26.0"`, `Since: "2.30.1"`} {
		if !strings.Contains(string(src), want) {
			t.Errorf("rendered versions lack %s:\n%s", want, src)
		}
	}
}

func TestLoadVersionsRefusals(t *testing.T) {
	for since, want := range map[string]string{
		"x-abs-since: 2.37.0":   "getThing: x-abs-since 2.37.0 is newer than the spec's version 2.36.0",
		"x-abs-since: latest":   `getThing: x-abs-since "latest" is not a release`,
		"x-abs-since: '2.36'":   `getThing: x-abs-since "2.36" is not a release`,
		"x-abs-since: 2.100.0":  "newer than the spec's version",
		"x-abs-since: 2.9.0":    "",
		"x-abs-since: 02.09.00": "",
	} {
		_, err := loadVersions(t, since)
		switch {
		case want == "" && err != nil:
			t.Errorf("%s: %v", since, err)
		case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
			t.Errorf("%s: got %v, want %q", since, err, want)
		}
	}
}
