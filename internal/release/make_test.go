package release

import (
	"archive/zip"
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/v1/layout"
)

// allFake writes stand-in bytes for every platform: the layout of a whole
// release without six compilations (make release builds real ones in
// TestReleaseWorkflow).
func allFake(_ context.Context, _ string, p Platform, version, out string) error {
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return err
	}
	return os.WriteFile(out, []byte("binary for "+p.String()+" "+version), 0o755)
}

func makeRelease(t *testing.T, version string, build func(context.Context, string, Platform, string, string) error) (out, work string, log string) {
	t.Helper()
	out, work = filepath.Join(t.TempDir(), "dist"), filepath.Join(t.TempDir(), "build")
	var lb bytes.Buffer
	err := Make(context.Background(), Options{Root: root, Out: out, Work: work, Version: version,
		Platforms: Platforms, Date: time.Unix(1700000000, 0), Log: &lb, build: build})
	if err != nil {
		t.Fatalf("Make: %v\n%s", err, lb.String())
	}
	return out, work, lb.String()
}

func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var n []string
	for _, e := range es {
		n = append(n, e.Name())
	}
	return n
}

// TestReleaseHoldsTogether makes a whole release of a tagged version and
// checks that every artifact carries that version and the license, and
// that dist/ holds only what is uploaded: --version of the binary, the
// archives' names and folders, the bundle's manifest, server.json (its
// version, the image's tag, the bundle's download URL under the tag), the
// image's tag and labels, SHA256SUMS.
func TestReleaseHoldsTogether(t *testing.T) {
	const v = "1.2.3-rc.1"
	out, work, _ := makeRelease(t, v, allFake)
	license, _ := os.ReadFile(filepath.Join(root, LicenseFile))

	// dist/: exactly what is uploaded.
	var want []string
	for _, p := range Platforms {
		want = append(want, ArchiveName(v, p))
	}
	want = append(want, BundleName(v), ImageName(v), ServerJSONFile, ChecksumsFile)
	sort.Strings(want)
	if got := dirNames(t, out); !slices.Equal(got, want) {
		t.Errorf("dist holds %v\nwant %v", got, want)
	}
	if !slices.Contains(want, "audiobookshelf-mcp_1.2.3-rc.1_windows_arm64.zip") {
		t.Errorf("no Windows ARM64 archive")
	}
	// The intermediates are under build/.
	if _, err := os.Stat(filepath.Join(work, BinDir, "linux-amd64", Binary)); err != nil {
		t.Errorf("the binaries are not under the work folder: %v", err)
	}

	// SHA256SUMS lists every other file, and each sum checks out.
	sums, _ := os.ReadFile(filepath.Join(out, ChecksumsFile))
	var listed []string
	sc := bufio.NewScanner(bytes.NewReader(sums))
	for sc.Scan() {
		sum, name, ok := strings.Cut(sc.Text(), "  ")
		if !ok {
			t.Fatalf("SHA256SUMS line %q", sc.Text())
		}
		if got, _ := SHA256File(filepath.Join(out, name)); got != sum {
			t.Errorf("SHA256SUMS: %s does not check out", name)
		}
		listed = append(listed, name)
	}
	if !slices.Equal(listed, slices.DeleteFunc(slices.Clone(want), func(s string) bool { return s == ChecksumsFile })) {
		t.Errorf("SHA256SUMS lists %v", listed)
	}
	if sha, err := exec.LookPath("sha256sum"); err == nil {
		cmd := exec.Command(sha, "-c", ChecksumsFile)
		cmd.Dir = out
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("sha256sum -c: %v\n%s", err, b)
		}
	}

	// Each archive unpacks into its own folder: the binary, LICENSE, README.txt.
	for _, p := range Platforms {
		files := readArchive(t, filepath.Join(out, ArchiveName(v, p)))
		dir := "audiobookshelf-mcp_" + v + "_" + p.OS + "_" + p.Arch + "/"
		var names []string
		for n := range files {
			names = append(names, n)
		}
		sort.Strings(names)
		wantNames := []string{dir, dir + LicenseFile, dir + "README.txt", dir + p.Exe()}
		sort.Strings(wantNames)
		if !slices.Equal(names, wantNames) {
			t.Errorf("%s holds %v, want %v", p, names, wantNames)
			continue
		}
		if !files[dir].Mode.IsDir() || files[dir+p.Exe()].Mode.Perm() != 0o755 {
			t.Errorf("%s: modes %v %v", p, files[dir].Mode, files[dir+p.Exe()].Mode)
		}
		if !bytes.Equal(files[dir+LicenseFile].Data, license) {
			t.Errorf("%s: LICENSE is not the repository's", p)
		}
		readme := string(files[dir+"README.txt"].Data)
		for _, s := range []string{"audiobookshelf-mcp " + v + " (" + p.String() + ")", "Settings > API Keys", "--check", "License: MIT"} {
			if !strings.Contains(readme, s) {
				t.Errorf("%s: README.txt lacks %q:\n%s", p, s, readme)
			}
		}
		// --version of a released binary: TestReleaseWorkflow, which
		// builds one with make release.
		if got := string(files[dir+p.Exe()].Data); got != "binary for "+p.String()+" "+v {
			t.Errorf("%s: the archive's binary is %q", p, got)
		}
	}

	// The bundle: manifest version and license, LICENSE, a binary for
	// every platform the launcher and Windows can start (Windows on Arm
	// starts the amd64 one under its emulation).
	zr, err := zip.OpenReader(filepath.Join(out, BundleName(v)))
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	inBundle := map[string][]byte{}
	for _, f := range zr.File {
		rc, _ := f.Open()
		inBundle[f.Name], _ = io.ReadAll(rc)
		rc.Close()
	}
	var manifest struct{ Version, License string }
	if err := json.Unmarshal(inBundle["manifest.json"], &manifest); err != nil {
		t.Fatal(err)
	}
	if manifest.Version != v || manifest.License != LicenseID {
		t.Errorf("manifest: version %q license %q", manifest.Version, manifest.License)
	}
	if !bytes.Equal(inBundle[LicenseFile], license) {
		t.Errorf("the bundle has no LICENSE")
	}
	for _, p := range Platforms {
		path, ok := BundlePath(p)
		if !ok {
			t.Errorf("the bundle carries no binary for %s", p)
			continue
		}
		if string(inBundle[path]) != "binary for "+p.String()+" "+v {
			t.Errorf("the bundle's %s is %q", path, inBundle[path])
		}
	}

	// server.json: the version, the image's tag, the bundle under the tag,
	// its hash, the license.
	var sj struct {
		Version  string
		Meta     map[string]map[string]string `json:"_meta"`
		Packages []struct {
			RegistryType, Identifier, Version, FileSha256 string
		}
	}
	b, _ := os.ReadFile(filepath.Join(out, ServerJSONFile))
	if err := json.Unmarshal(b, &sj); err != nil {
		t.Fatal(err)
	}
	bundleSum, _ := SHA256File(filepath.Join(out, BundleName(v)))
	if sj.Version != v || sj.Packages[0].Identifier != ImageRepository+":"+v ||
		sj.Packages[1].Identifier != Repository+"/releases/download/v"+v+"/"+BundleName(v) ||
		sj.Packages[1].Version != v || sj.Packages[1].FileSha256 != bundleSum {
		t.Errorf("server.json: %+v", sj)
	}
	if sj.Meta["io.modelcontextprotocol.registry/publisher-provided"]["license"] != "MIT" {
		t.Errorf("server.json's license: %v", sj.Meta)
	}
	if err := validateJSON(registrySchema(t), b); err != nil {
		t.Errorf("server.json of the release: %v", err)
	}

	// The image: its tag, and the version and license labels of each
	// platform's config.
	ldir := t.TempDir()
	untar(t, filepath.Join(out, ImageName(v)), ldir)
	top, err := layout.ImageIndexFromPath(ldir)
	if err != nil {
		t.Fatal(err)
	}
	topm, _ := top.IndexManifest()
	if len(topm.Manifests) != 1 || topm.Manifests[0].Annotations["org.opencontainers.image.ref.name"] != ImageRepository+":"+v {
		t.Fatalf("image index: %+v", topm.Manifests)
	}
	idx, _ := top.ImageIndex(topm.Manifests[0].Digest)
	im, _ := idx.IndexManifest()
	if len(im.Manifests) != len(ImagePlatforms) {
		t.Errorf("the image has %d platforms", len(im.Manifests))
	}
	for _, d := range im.Manifests {
		img, _ := idx.Image(d.Digest)
		cf, err := img.ConfigFile()
		if err != nil {
			t.Fatal(err)
		}
		if cf.Config.Labels["org.opencontainers.image.version"] != v || cf.Config.Labels["org.opencontainers.image.licenses"] != "MIT" {
			t.Errorf("image %s labels %v", d.Platform, cf.Config.Labels)
		}
	}
}

// TestLocalRelease: a local build's version is stamped everywhere it can
// be, writes no server.json (nothing to publish), and tags the image with
// "_" for "+"; a dist/ holding anything a release does not write is not
// emptied.
func TestLocalRelease(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("sha256sum and the shell")
	}
	const v = "0.0.0-dev+0123456789ab.dirty"
	out, _, log := makeRelease(t, v, allFake)
	names := dirNames(t, out)
	if slices.Contains(names, ServerJSONFile) || !strings.Contains(log, "no server.json, nothing here is for publishing") {
		t.Errorf("a local build wrote %v\n%s", names, log)
	}
	if !slices.Contains(names, "audiobookshelf-mcp_"+v+"_linux_amd64.tar.gz") || !slices.Contains(names, ImageName(v)) {
		t.Errorf("dist holds %v", names)
	}
	ldir := t.TempDir()
	untar(t, filepath.Join(out, ImageName(v)), ldir)
	top, _ := layout.ImageIndexFromPath(ldir)
	topm, _ := top.IndexManifest()
	if got := topm.Manifests[0].Annotations["org.opencontainers.image.ref.name"]; got != ImageRepository+":0.0.0-dev_0123456789ab.dirty" {
		t.Errorf("a local build's image is tagged %s", got)
	}

	// A second run replaces the first's files; a stray file stops it.
	os.WriteFile(filepath.Join(out, "notes.txt"), []byte("mine"), 0o644)
	err := Make(context.Background(), Options{Root: root, Out: out, Work: t.TempDir(), Version: "1.0.0",
		Platforms: Platforms, Log: io.Discard, build: allFake})
	if err == nil || !strings.Contains(err.Error(), "holds notes.txt, which no release writes") {
		t.Errorf("a stray file: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(out, "notes.txt")); string(b) != "mine" {
		t.Error("the stray file was touched")
	}
	if err := Make(context.Background(), Options{Root: root, Out: out, Work: t.TempDir(), Version: "not-semver", Platforms: Platforms, Log: io.Discard}); err == nil || !strings.Contains(err.Error(), "is not semver") {
		t.Errorf("a version that is not semver: %v", err)
	}
}
