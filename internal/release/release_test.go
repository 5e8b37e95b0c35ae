package release

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"io"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/validate"
)

const root = "../.."

// ---------------------------------------------------------------- server.json

// TestGeneratedFilesAreCurrent is the drift check of server.json (from
// tools.yaml, main.go's version and config.Vars) and the Dockerfile (from the
// image's values): each is exactly what the generator makes now
// (`make generate` rewrites them).
func TestGeneratedFilesAreCurrent(t *testing.T) {
	files, err := Generated(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 3 {
		t.Fatalf("%d generated files, want server.json, the Dockerfile and the icon", len(files))
	}
	for name, want := range files {
		got, err := os.ReadFile(filepath.Join(root, name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is not what the generator makes now: run make generate", name)
		}
	}
}

func registrySchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	f, err := os.Open("testdata/registry/server.schema.2025-12-11.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	if id := doc.(map[string]any)["$id"]; id != ServerSchema {
		t.Fatalf("the schema copy is %v, server.json declares %s", id, ServerSchema)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource(ServerSchema, doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(ServerSchema)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func validateJSON(s *jsonschema.Schema, b []byte) error {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		return err
	}
	return s.Validate(v)
}

// TestServerJSONPassesTheRegistrySchema validates the checked-in server.json
// and one as `make release` writes it against the registry's published
// schema; broken copies are refused, so the validation is not vacuous.
func TestServerJSONPassesTheRegistrySchema(t *testing.T) {
	s := registrySchema(t)
	checkedIn, err := os.ReadFile(filepath.Join(root, ServerJSONFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := validateJSON(s, checkedIn); err != nil {
		t.Errorf("server.json: %v", err)
	}
	meta, err := LoadMeta(root)
	if err != nil {
		t.Fatal(err)
	}
	released, err := ServerJSON(meta, "v1.2.3", strings.Repeat("ab", 32))
	if err != nil {
		t.Fatal(err)
	}
	if err := validateJSON(s, released); err != nil {
		t.Errorf("server.json of a release: %v", err)
	}

	var sj map[string]any
	if err := json.Unmarshal(released, &sj); err != nil {
		t.Fatal(err)
	}
	for name, breakIt := range map[string]func(m map[string]any){
		"description over 100 characters": func(m map[string]any) { m["description"] = strings.Repeat("x", 101) },
		"name without a slash":            func(m map[string]any) { m["name"] = "audiobookshelf-mcp" },
		"hash that is not SHA-256": func(m map[string]any) {
			m["packages"].([]any)[1].(map[string]any)["fileSha256"] = "not-a-hash"
		},
		"transport of an unknown type": func(m map[string]any) {
			m["packages"].([]any)[0].(map[string]any)["transport"] = map[string]any{"type": "carrier-pigeon"}
		},
		"package without identifier": func(m map[string]any) {
			delete(m["packages"].([]any)[0].(map[string]any), "identifier")
		},
	} {
		var c map[string]any
		_ = json.Unmarshal(released, &c)
		breakIt(c)
		b, _ := json.Marshal(c)
		if err := validateJSON(s, b); err == nil {
			t.Errorf("%s: the schema accepted it", name)
		}
	}
}

// TestServerJSONPackages: the image and the bundle, each with the transport
// it serves; the checked-in file carries no bundle hash (there is no bundle
// yet), the released one the hash it is given.
func TestServerJSONPackages(t *testing.T) {
	type pkgT struct {
		RegistryType, Identifier, Version, FileSha256 string
		Transport                                     struct{ Type, URL string }
		EnvironmentVariables                          []struct {
			Name       string
			IsRequired bool
		}
	}
	var sj struct {
		Name, Version string
		Packages      []pkgT
	}
	meta, _ := LoadMeta(root)
	sum := strings.Repeat("0123456789abcdef", 4)
	b, err := ServerJSON(meta, "v2.0.0", sum)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &sj); err != nil {
		t.Fatal(err)
	}
	if sj.Version != "2.0.0" || len(sj.Packages) != 2 {
		t.Fatalf("version %q, %d packages", sj.Version, len(sj.Packages))
	}
	oci, bundle := sj.Packages[0], sj.Packages[1]
	if oci.RegistryType != "oci" || oci.Identifier != ImageRepository+":2.0.0" || oci.Version != "" ||
		oci.Transport.Type != "streamable-http" || oci.Transport.URL != "http://127.0.0.1:8080/mcp" {
		t.Errorf("image package %+v", oci)
	}
	if bundle.RegistryType != "mcpb" || bundle.Transport.Type != "stdio" || bundle.FileSha256 != sum ||
		bundle.Identifier != Repository+"/releases/download/v2.0.0/"+BundleName("v2.0.0") {
		t.Errorf("bundle package %+v", bundle)
	}
	has := func(p pkgT, name string) (present, required bool) {
		for _, e := range p.EnvironmentVariables {
			if e.Name == name {
				return true, e.IsRequired
			}
		}
		return false, false
	}
	if in, req := has(oci, "AUDIOBOOKSHELF_MCP_TOKEN"); !in || !req {
		t.Errorf("the image asks for the token (it listens on every interface): %v %v", in, req)
	}
	for _, name := range []string{"AUDIOBOOKSHELF_MCP_AUTH", "AUDIOBOOKSHELF_MCP_TOKEN", "AUDIOBOOKSHELF_MCP_ALLOWED_HOSTS"} {
		if in, _ := has(bundle, name); in {
			t.Errorf("the bundle (stdio) lists %s, which only --http reads", name)
		}
		if in, _ := has(oci, name); !in {
			t.Errorf("the image does not list %s", name)
		}
	}
	if in, req := has(bundle, "AUDIOBOOKSHELF_API_KEY"); !in || !req {
		t.Errorf("the bundle's API key: %v %v", in, req)
	}
	checkedIn, _ := os.ReadFile(filepath.Join(root, ServerJSONFile))
	if bytes.Contains(checkedIn, []byte("fileSha256")) {
		t.Errorf("the checked-in server.json carries a bundle hash it cannot know")
	}
}

func TestParsePlatforms(t *testing.T) {
	if ps, err := ParsePlatforms("all"); err != nil || len(ps) != 6 {
		t.Errorf("all: %v %v", ps, err)
	}
	if ps, err := ParsePlatforms("linux/arm64,windows/amd64"); err != nil || !slices.Equal(ps, []Platform{{"linux", "arm64"}, {"windows", "amd64"}}) {
		t.Errorf("list: %v %v", ps, err)
	}
	_, err := ParsePlatforms("plan9/386")
	if err == nil || !strings.Contains(err.Error(), `"plan9/386" is not one of all, host, linux/amd64`) {
		t.Errorf("plan9/386: %v", err)
	}
}

// ---------------------------------------------------------------- archives

// TestArchives: the tar.gz and the zip hold the files with their modes, and
// the same files give the same bytes (so a checksum can be reproduced).
func TestArchives(t *testing.T) {
	dir := t.TempDir()
	files := []File{{"audiobookshelf-mcp", 0o755, []byte("binary")}, {"README.md", 0o644, []byte("readme")}}
	date := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, write := range []struct {
		ext string
		fn  func(string, []File, time.Time) error
	}{{"tar.gz", WriteTarGz}, {"zip", WriteZip}} {
		a, b := filepath.Join(dir, "a."+write.ext), filepath.Join(dir, "b."+write.ext)
		if err := write.fn(a, files, date); err != nil {
			t.Fatal(err)
		}
		if err := write.fn(b, files, date); err != nil {
			t.Fatal(err)
		}
		ab, _ := os.ReadFile(a)
		bb, _ := os.ReadFile(b)
		if !bytes.Equal(ab, bb) {
			t.Errorf("%s: the same files gave different bytes", write.ext)
		}
		got := readArchive(t, a)
		for _, f := range files {
			g, ok := got[f.Name]
			if !ok || !bytes.Equal(g.Data, f.Data) || g.Mode.Perm() != f.Mode {
				t.Errorf("%s: %s is %+v, want mode %v", write.ext, f.Name, g, f.Mode)
			}
		}
	}
}

func readArchive(t *testing.T, path string) map[string]File {
	t.Helper()
	out := map[string]File{}
	if strings.HasSuffix(path, ".zip") {
		zr, err := zip.OpenReader(path)
		if err != nil {
			t.Fatal(err)
		}
		defer zr.Close()
		for _, f := range zr.File {
			rc, _ := f.Open()
			b, _ := io.ReadAll(rc)
			rc.Close()
			out[f.Name] = File{f.Name, f.Mode(), b}
		}
		return out
	}
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	gz, err := gzip.NewReader(fh)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(tr)
		out[h.Name] = File{h.Name, h.FileInfo().Mode(), b}
	}
	return out
}

// ---------------------------------------------------------------- image

var (
	linuxOnce sync.Once
	linuxBin  []byte
	linuxErr  error
)

// linuxBinary builds the server for linux on this machine's CPU, once.
func linuxBinary(t *testing.T) (Platform, []byte) {
	t.Helper()
	p := Platform{"linux", runtime.GOARCH}
	if !slices.Contains(ImagePlatforms, p) {
		t.Skipf("the image has no %s", p)
	}
	linuxOnce.Do(func() {
		dir, err := os.MkdirTemp("", "abs-mcp-release-test-")
		if err != nil {
			linuxErr = err
			return
		}
		defer os.RemoveAll(dir)
		path := filepath.Join(dir, Binary)
		if linuxErr = Build(context.Background(), root, p, "v0.0.0-imagetest", path); linuxErr == nil {
			linuxBin, linuxErr = os.ReadFile(path)
		}
	})
	if linuxErr != nil {
		t.Fatal(linuxErr)
	}
	return p, linuxBin
}

// untar extracts the tar at path into dir, refusing names that leave it.
func untar(t *testing.T, path, dir string) {
	t.Helper()
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	tr := tar.NewReader(fh)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		target := filepath.Join(dir, filepath.FromSlash(h.Name))
		if !strings.HasPrefix(target, dir+string(filepath.Separator)) {
			t.Fatalf("%s leaves the layout", h.Name)
		}
		if h.Typeflag == tar.TypeDir {
			os.MkdirAll(target, 0o755)
			continue
		}
		b, _ := io.ReadAll(tr)
		os.MkdirAll(filepath.Dir(target), 0o755)
		if err := os.WriteFile(target, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestImage writes the image of a freshly built binary as `make image` does,
// reads the tarball back as an OCI layout, and checks what the registry and
// a container runtime read: the ownership label (equal to server.json's
// name), the unprivileged user, the command, the port, and that the one file
// of the one layer is the binary just built, byte for byte.
func TestImage(t *testing.T) {
	p, bin := linuxBinary(t)
	meta, err := LoadMeta(root)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), ImageName("v0.0.0-imagetest"))
	license, err := os.ReadFile(filepath.Join(root, LicenseFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteImage(out, meta, "v0.0.0-imagetest", map[Platform][]byte{p: bin}, license, time.Unix(0, 0)); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	untar(t, out, dir)
	top, err := layout.ImageIndexFromPath(dir)
	if err != nil {
		t.Fatal(err)
	}
	topm, err := top.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	if len(topm.Manifests) != 1 || topm.Manifests[0].Annotations["org.opencontainers.image.ref.name"] != ImageRepository+":0.0.0-imagetest" {
		t.Fatalf("index.json: %+v", topm.Manifests)
	}
	idx, err := top.ImageIndex(topm.Manifests[0].Digest)
	if err != nil {
		t.Fatal(err)
	}
	if err := validate.Index(idx); err != nil { // every digest and size matches its blob
		t.Fatalf("the image index does not check out: %v", err)
	}
	im, err := idx.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	if len(im.Manifests) != 1 || im.Manifests[0].Platform == nil || im.Manifests[0].Platform.OS != "linux" || im.Manifests[0].Platform.Architecture != p.Arch {
		t.Fatalf("platforms: %+v", im.Manifests)
	}
	img, err := idx.Image(im.Manifests[0].Digest)
	if err != nil {
		t.Fatal(err)
	}
	cf, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}

	var sj struct{ Name string }
	b, _ := os.ReadFile(filepath.Join(root, ServerJSONFile))
	if err := json.Unmarshal(b, &sj); err != nil || sj.Name == "" {
		t.Fatalf("server.json: %v", err)
	}
	if got := cf.Config.Labels[ServerNameLabel]; got != sj.Name {
		t.Errorf("label %s = %q, server.json's name is %q", ServerNameLabel, got, sj.Name)
	}
	uid, _, _ := strings.Cut(cf.Config.User, ":")
	if cf.Config.User != "65532:65532" || uid == "0" || uid == "" {
		t.Errorf("user %q: want the numeric unprivileged 65532:65532", cf.Config.User)
	}
	if cmd := slices.Concat(cf.Config.Entrypoint, cf.Config.Cmd); !slices.Equal(cmd, []string{"/audiobookshelf-mcp", "--http", "0.0.0.0:8080", "--stateless"}) {
		t.Errorf("command %q", cmd)
	}
	if _, ok := cf.Config.ExposedPorts["8080/tcp"]; !ok || len(cf.Config.ExposedPorts) != 1 {
		t.Errorf("exposed ports %v", cf.Config.ExposedPorts)
	}
	if cf.OS != "linux" || cf.Architecture != p.Arch {
		t.Errorf("config platform %s/%s", cf.OS, cf.Architecture)
	}

	layers, err := img.Layers()
	if err != nil || len(layers) != 2 {
		t.Fatalf("%d layers (%v), want the CA certificates' and the binary's", len(layers), err)
	}
	ca := layerFiles(t, layers[0])
	if pemBytes, ok := ca["etc/ssl/certs/ca-certificates.crt"]; !ok || len(ca) != 4 {
		t.Errorf("the CA layer holds %v", slices.Collect(maps.Keys(ca)))
	} else {
		n := 0
		for rest := pemBytes; ; {
			var block *pem.Block
			if block, rest = pem.Decode(rest); block == nil {
				break
			}
			if _, err := x509.ParseCertificate(block.Bytes); err != nil {
				t.Fatalf("certificate %d of the CA bundle: %v", n, err)
			}
			n++
		}
		if n < 100 {
			t.Errorf("the CA bundle holds %d certificates", n)
		}
		if !bytes.Equal(pemBytes, CABundle()) {
			t.Errorf("the CA bundle is not CABundle()")
		}
	}
	files := layerFiles(t, layers[1])
	if got, ok := files[Binary]; !ok || len(files) != 2 {
		t.Errorf("the binary's layer holds %v, want [%s %s]", slices.Collect(maps.Keys(files)), Binary, LicenseFile)
	} else if !bytes.Equal(got, bin) {
		t.Errorf("the binary in the image (%d bytes) is not the one just built (%d bytes)", len(got), len(bin))
	}
	if !bytes.Equal(files[LicenseFile], license) {
		t.Errorf("the image's /%s is not the repository's", LicenseFile)
	}
	if got := cf.Config.Labels["org.opencontainers.image.licenses"]; got != "MIT" {
		t.Errorf("label org.opencontainers.image.licenses = %q", got)
	}
}

// layerFiles reads a layer's entries (a directory maps to nil); a regular
// file that is not executable where it should be fails the test.
func layerFiles(t *testing.T, l v1.Layer) map[string][]byte {
	t.Helper()
	rc, err := l.Uncompressed()
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	tr := tar.NewReader(rc)
	out := map[string][]byte{}
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.Typeflag == tar.TypeDir {
			out[h.Name] = nil
			continue
		}
		b, _ := io.ReadAll(tr)
		out[h.Name] = b
		if h.Name == Binary && h.Mode&0o111 == 0 {
			t.Errorf("the binary is not executable: mode %o", h.Mode)
		}
		if h.Uid != 0 || h.Gid != 0 {
			t.Errorf("%s is owned by %d:%d", h.Name, h.Uid, h.Gid)
		}
	}
}
