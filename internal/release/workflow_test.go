package release

import (
	"bytes"
	"context"
	"io"
	"log"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"gopkg.in/yaml.v3"
)

const workflowFile = ".github/workflows/release.yml"

// workflowTargets reads the release workflow: the make target of each
// step that runs something (a step may run `make TARGET` and nothing
// else) and the actions it uses.
func workflowTargets(t *testing.T) (targets, uses []string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, workflowFile))
	if err != nil {
		t.Fatal(err)
	}
	var wf struct {
		On   map[string]map[string][]string `yaml:"on"`
		Jobs map[string]struct {
			Steps []struct {
				Name, Uses, Run string
			}
		}
	}
	if err := yaml.Unmarshal(b, &wf); err != nil {
		t.Fatalf("%s: %v", workflowFile, err)
	}
	if tags := wf.On["push"]["tags"]; !slices.Equal(tags, []string{"v*"}) {
		t.Errorf("the workflow runs on push of tags %v, want [v*]", tags)
	}
	only := regexp.MustCompile(`^make ([a-z][a-z0-9-]*)$`)
	for _, job := range wf.Jobs {
		for _, s := range job.Steps {
			switch {
			case s.Run != "":
				m := only.FindStringSubmatch(strings.TrimSpace(s.Run))
				if m == nil {
					t.Errorf("step %q runs %q: a step runs one make target and nothing else", s.Name, s.Run)
					continue
				}
				targets = append(targets, m[1])
			case s.Uses != "":
				uses = append(uses, s.Uses)
			}
		}
	}
	return targets, uses
}

// makefileTargets are the rules of the Makefile and its .PHONY list.
func makefileTargets(t *testing.T) (rules, phony []string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range regexp.MustCompile(`(?m)^([a-z][a-z0-9-]*):`).FindAllStringSubmatch(string(b), -1) {
		rules = append(rules, m[1])
	}
	if m := regexp.MustCompile(`(?m)^\.PHONY:(.*)$`).FindStringSubmatch(string(b)); m != nil {
		phony = strings.Fields(m[1])
	}
	return rules, phony
}

// runMake runs one target of the Makefile at the root with the variables
// given, and returns what it printed.
func runMake(t *testing.T, target string, vars ...string) (string, error) {
	t.Helper()
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("no make")
	}
	cmd := exec.Command("make", append([]string{"-s", "-C", root, target}, vars...)...)
	cmd.Env = append(os.Environ(), "MAKEFLAGS=")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

// TestReleaseWorkflow: the workflow a tag runs calls only make targets
// that the Makefile has, in the order a release needs (tests before
// anything is made, the GitHub release and the image before the registry,
// which checks both), and every one of them is run here: the tests by CI
// itself, make release for this machine, and the publishing ones on a
// whole release of stand-in binaries, dry (the upload, the registry) or
// for real against an in-process OCI registry (the image). Only the
// publisher's installation, a download, is not run here.
func TestReleaseWorkflow(t *testing.T) {
	targets, uses := workflowTargets(t)
	want := []string{"check-generated", "test", "test-race", "release", "upload-release", "push-image", "mcp-publisher", "publish-registry"}
	if !slices.Equal(targets, want) {
		t.Fatalf("the workflow runs make %v, want %v", targets, want)
	}
	for _, u := range uses {
		if !regexp.MustCompile(`^actions/(checkout|setup-go|setup-node)@v\d+$`).MatchString(u) {
			t.Errorf("the workflow uses %s: only the setup actions, the rest is make's", u)
		}
	}
	rules, phony := makefileTargets(t)
	for _, target := range targets {
		if !slices.Contains(rules, target) || !slices.Contains(phony, target) {
			t.Errorf("make %s: not a (phony) target of the Makefile", target)
		}
	}

	// make test and make test-race are what CI runs (.ci/run), this test
	// among them.
	ci, err := os.ReadFile(filepath.Join(root, ".ci", "run"))
	if err != nil || !regexp.MustCompile(`(?m)^make test$`).Match(ci) || !regexp.MustCompile(`(?m)^make test-race$`).Match(ci) {
		t.Errorf(".ci/run does not run make test and make test-race: %v", err)
	}
	// The publisher is pinned, not @latest.
	out, err := runMake(t, "mcp-publisher", "-n")
	if err != nil || !regexp.MustCompile(`go install github\.com/modelcontextprotocol/registry/cmd/publisher@v\d+\.\d+\.\d+\n`).MatchString(out) {
		t.Errorf("make -n mcp-publisher: %v\n%s", err, out)
	}
	if out, err := runMake(t, "check-generated"); err != nil {
		t.Errorf("make check-generated: %v\n%s", err, out)
	}

	// make release, for this machine's platform with a given version.
	tmp := t.TempDir()
	dist, build := filepath.Join(tmp, "dist"), filepath.Join(tmp, "build")
	out, err = runMake(t, "release", "DIST="+dist, "BUILD_DIR="+build, "RELEASE_FLAGS=-version=7.8.9-wf -platforms=host")
	if err != nil {
		t.Fatalf("make release: %v\n%s", err, out)
	}
	// The binary it released says the version it was given.
	files := readArchive(t, filepath.Join(dist, ArchiveName("7.8.9-wf", Host())))
	exe := files[ArchiveDir("7.8.9-wf", Host())+"/"+Host().Exe()]
	bin := filepath.Join(tmp, Host().Exe())
	if err := os.WriteFile(bin, exe.Data, 0o755); err != nil {
		t.Fatal(err)
	}
	if got, err := exec.Command(bin, "--version").Output(); err != nil || strings.TrimSpace(string(got)) != "audiobookshelf-mcp 7.8.9-wf" {
		t.Errorf("--version of the binary make release packed: %q %v", got, err)
	}
	// One platform is not a release to publish.
	out, err = runMake(t, "upload-release", "DRY_RUN=1", "DIST="+dist, "RELEASE_FLAGS=-version=7.8.9-wf")
	if err == nil || !strings.Contains(out, "is not release 7.8.9-wf") {
		t.Errorf("upload of a partial release: %v\n%s", err, out)
	}

	// A whole release, stand-in binaries but for this machine's.
	const v = "7.8.9"
	whole := filepath.Join(tmp, "whole")
	if err := Make(context.Background(), Options{Root: root, Out: whole, Work: filepath.Join(tmp, "wb"), Version: v,
		Platforms: Platforms, Date: time.Unix(1700000000, 0), Log: io.Discard, build: allFake}); err != nil {
		t.Fatal(err)
	}
	flags := "RELEASE_FLAGS=-version=" + v

	out, err = runMake(t, "upload-release", "DRY_RUN=1", "DIST="+whole, flags)
	if err != nil {
		t.Fatalf("make upload-release DRY_RUN=1: %v\n%s", err, out)
	}
	if !strings.Contains(out, "would run: gh release create v7.8.9 --verify-tag --title v7.8.9") {
		t.Errorf("upload: %s", out)
	}
	for _, f := range ReleaseFiles(v) {
		if !strings.Contains(out, filepath.Join(whole, f)) {
			t.Errorf("the upload leaves out %s:\n%s", f, out)
		}
	}

	out, err = runMake(t, "publish-registry", "DRY_RUN=1", "DIST="+whole, "MCP_PUBLISHER=/opt/mcp-publisher", flags)
	if err != nil || !strings.Contains(out, "would run: /opt/mcp-publisher login github-oidc") ||
		!strings.Contains(out, "would run: /opt/mcp-publisher publish "+filepath.Join(whole, ServerJSONFile)) {
		t.Errorf("make publish-registry DRY_RUN=1: %v\n%s", err, out)
	}

	// The image, pushed for real to a registry in this process, with a
	// login as the workflow gives one.
	reg := httptest.NewServer(registry.New(registry.Logger(nilLogger())))
	defer reg.Close()
	repo := strings.TrimPrefix(reg.URL, "http://") + "/audiobookshelf-mcp"
	out, err = runMake(t, "push-image", "DRY_RUN=1", "DIST="+whole, "IMAGE_REPOSITORY="+repo, flags)
	if err != nil || !strings.Contains(out, "dry run, would push "+repo+":"+v) {
		t.Errorf("make push-image DRY_RUN=1: %v\n%s", err, out)
	}
	ref, _ := name.NewTag(repo + ":" + v)
	if _, err := remote.Head(ref); err == nil {
		t.Fatal("the dry run pushed the image")
	}
	cmd := exec.Command("make", "-s", "-C", root, "push-image", "DIST="+whole, "IMAGE_REPOSITORY="+repo, flags)
	cmd.Env = append(os.Environ(), "MAKEFLAGS=", "REGISTRY_USERNAME=workflow", "REGISTRY_PASSWORD=not-a-real-token")
	b, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("make push-image: %v\n%s", err, b)
	}
	if strings.Contains(string(b), "not-a-real-token") {
		t.Error("the push printed the registry password")
	}
	idx, err := remote.Index(ref)
	if err != nil {
		t.Fatalf("the pushed image: %v", err)
	}
	local, _, done, err := LoadImageIndex(filepath.Join(whole, ImageName(v)))
	if err != nil {
		t.Fatal(err)
	}
	defer done()
	gotD, _ := idx.Digest()
	wantD, _ := local.Digest()
	if gotD != wantD || !strings.Contains(string(b), "pushed "+repo+":"+v+"@"+wantD.String()) {
		t.Errorf("the registry holds %s, the tarball is %s\n%s", gotD, wantD, b)
	}
	im, _ := idx.IndexManifest()
	if len(im.Manifests) != len(ImagePlatforms) {
		t.Errorf("the pushed index has %d platforms", len(im.Manifests))
	}
	for _, d := range im.Manifests {
		img, err := idx.Image(d.Digest)
		if err != nil {
			t.Fatal(err)
		}
		cf, err := img.ConfigFile()
		if err != nil {
			t.Fatal(err)
		}
		if cf.Config.Labels["org.opencontainers.image.version"] != v || cf.Config.Labels["org.opencontainers.image.licenses"] != "MIT" {
			t.Errorf("pushed %s: labels %v", d.Platform, cf.Config.Labels)
		}
	}
}

// TestCheckDist: what is published is refused when it is not a whole,
// untouched release of that version.
func TestCheckDist(t *testing.T) {
	const v = "3.2.1"
	tmp := t.TempDir()
	mk := func() string {
		out := filepath.Join(tmp, "dist")
		os.RemoveAll(out)
		if err := Make(context.Background(), Options{Root: root, Out: out, Work: filepath.Join(tmp, "b"), Version: v,
			Platforms: Platforms, Log: io.Discard, build: allFake}); err != nil {
			t.Fatal(err)
		}
		return out
	}
	dist := mk()
	files, err := CheckDist(dist, v)
	if err != nil || len(files) != len(ReleaseFiles(v)) {
		t.Fatalf("a whole release: %v %v", files, err)
	}
	if _, err := CheckDist(dist, "3.2.2"); err == nil || !strings.Contains(err.Error(), "is not release 3.2.2") {
		t.Errorf("another version: %v", err)
	}
	if _, err := CheckDist(dist, "0.0.0-dev+abc"); err == nil || !strings.Contains(err.Error(), "never published") {
		t.Errorf("a local build's version: %v", err)
	}
	// A file changed after make release.
	f, _ := os.OpenFile(filepath.Join(dist, ArchiveName(v, Host())), os.O_APPEND|os.O_WRONLY, 0)
	f.Write([]byte("x"))
	f.Close()
	if _, err := CheckDist(dist, v); err == nil || !strings.Contains(err.Error(), "does not match its line in SHA256SUMS") {
		t.Errorf("a changed archive: %v", err)
	}
	// A stray file.
	dist = mk()
	os.WriteFile(filepath.Join(dist, "notes.txt"), nil, 0o644)
	if _, err := CheckDist(dist, v); err == nil || !strings.Contains(err.Error(), "not of it [notes.txt]") {
		t.Errorf("a stray file: %v", err)
	}
	// server.json of another bundle (its hash), with SHA256SUMS rewritten.
	dist = mk()
	sj, _ := os.ReadFile(filepath.Join(dist, ServerJSONFile))
	sj = regexp.MustCompile(`"fileSha256": "[0-9a-f]+"`).ReplaceAll(sj, []byte(`"fileSha256": "`+strings.Repeat("0", 64)+`"`))
	os.WriteFile(filepath.Join(dist, ServerJSONFile), sj, 0o644)
	if err := WriteChecksums(dist); err != nil {
		t.Fatal(err)
	}
	if _, err := CheckDist(dist, v); err == nil || !strings.Contains(err.Error(), "is not the bundle of release 3.2.1") {
		t.Errorf("server.json with another hash: %v", err)
	}
}

// nilLogger keeps the in-process registry's request log out of the test's
// output.
func nilLogger() *log.Logger { return log.New(io.Discard, "", 0) }
