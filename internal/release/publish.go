package release

import (
	"archive/tar"
	"archive/zip"
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/validate"
)

// Publishing a release: what `make release` wrote into dist/ is checked
// (CheckDist), then uploaded to the GitHub release of its tag
// (UploadCommands, run with the gh CLI), the image pushed to its registry
// (PushImage, go-containerregistry, no daemon), and dist/server.json
// published to the MCP registry with its official publisher
// (PublishCommands). Each has a dry run that checks everything and sends
// nothing.

// ReleaseFiles are the files a whole release of version has in dist/, sorted.
func ReleaseFiles(version string) []string {
	var names []string
	for _, p := range Platforms {
		names = append(names, ArchiveName(version, p))
	}
	names = append(names, BundleName(version), ImageName(version), ServerJSONFile, ChecksumsFile)
	sort.Strings(names)
	return names
}

// CheckDist says whether dir holds a whole release of version, ready to
// publish, and nothing else: every file of ReleaseFiles; SHA256SUMS listing
// every other one with its hash; the bundle's manifest and server.json
// carrying the version; server.json naming the image's tag and the bundle
// under the release's tag with its hash. It returns the files' paths.
func CheckDist(dir, version string) ([]string, error) {
	v := Version(version)
	if IsDev(v) {
		return nil, fmt.Errorf("%s is a local build's version: it is never published (tag the commit vX.Y.Z and run make release)", v)
	}
	if _, err := CheckVersion(v); err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("no release to publish in %s: %w (run make release)", dir, err)
	}
	var have []string
	for _, e := range entries {
		have = append(have, e.Name())
	}
	want := ReleaseFiles(v)
	var missing, extra []string
	for _, n := range want {
		if !slices.Contains(have, n) {
			missing = append(missing, n)
		}
	}
	for _, n := range have {
		if !slices.Contains(want, n) {
			extra = append(extra, n)
		}
	}
	if len(missing) > 0 || len(extra) > 0 {
		return nil, fmt.Errorf("%s is not release %s (run make release on the tagged commit): missing %v, not of it %v", dir, v, missing, extra)
	}
	sums, err := os.ReadFile(filepath.Join(dir, ChecksumsFile))
	if err != nil {
		return nil, err
	}
	var listed []string
	sc := bufio.NewScanner(bytes.NewReader(sums))
	for sc.Scan() {
		sum, n, ok := strings.Cut(sc.Text(), "  ")
		if !ok {
			return nil, fmt.Errorf("%s: line %q is not HASH  NAME", ChecksumsFile, sc.Text())
		}
		got, err := SHA256File(filepath.Join(dir, filepath.Base(n)))
		if err != nil {
			return nil, fmt.Errorf("%s lists %s: %w", ChecksumsFile, n, err)
		}
		if got != sum {
			return nil, fmt.Errorf("%s does not match its line in %s: the file changed after make release", n, ChecksumsFile)
		}
		listed = append(listed, n)
	}
	if others := slices.DeleteFunc(slices.Clone(want), func(s string) bool { return s == ChecksumsFile }); !slices.Equal(listed, others) {
		return nil, fmt.Errorf("%s lists %v, want %v", ChecksumsFile, listed, others)
	}
	// The bundle's manifest.
	zr, err := zip.OpenReader(filepath.Join(dir, BundleName(v)))
	if err != nil {
		return nil, err
	}
	defer zr.Close()
	var manifest struct{ Version string }
	found := false
	for _, f := range zr.File {
		if f.Name != "manifest.json" {
			continue
		}
		rc, err := f.Open()
		if err != nil {
			return nil, err
		}
		b, _ := io.ReadAll(rc)
		rc.Close()
		if err := json.Unmarshal(b, &manifest); err != nil {
			return nil, fmt.Errorf("the bundle's manifest.json: %w", err)
		}
		found = true
	}
	if !found || manifest.Version != v {
		return nil, fmt.Errorf("the bundle's manifest says version %q, the release is %s", manifest.Version, v)
	}
	// server.json.
	var sj struct {
		Version  string
		Packages []struct{ RegistryType, Identifier, Version, FileSha256 string }
	}
	b, err := os.ReadFile(filepath.Join(dir, ServerJSONFile))
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(b, &sj); err != nil {
		return nil, fmt.Errorf("%s: %w", ServerJSONFile, err)
	}
	bundleSum, _ := SHA256File(filepath.Join(dir, BundleName(v)))
	if sj.Version != v {
		return nil, fmt.Errorf("%s says version %q, the release is %s", ServerJSONFile, sj.Version, v)
	}
	for _, p := range sj.Packages {
		switch p.RegistryType {
		case "oci":
			if p.Identifier != ImageRef(v) {
				return nil, fmt.Errorf("%s names the image %s, the release's is %s", ServerJSONFile, p.Identifier, ImageRef(v))
			}
		case "mcpb":
			url := Repository + "/releases/download/" + ReleaseTag(v) + "/" + BundleName(v)
			if p.Identifier != url || p.Version != v || p.FileSha256 != bundleSum {
				return nil, fmt.Errorf("%s's bundle package (%s, %s, sha256 %s) is not the bundle of release %s (%s, sha256 %s)", ServerJSONFile, p.Identifier, p.Version, p.FileSha256, v, url, bundleSum)
			}
		default:
			return nil, fmt.Errorf("%s has a package of type %q", ServerJSONFile, p.RegistryType)
		}
	}
	var paths []string
	for _, n := range want {
		paths = append(paths, filepath.Join(dir, n))
	}
	return paths, nil
}

// UploadCommands are the gh commands that create the GitHub release of
// version's tag with files (exists: whether it already does, when a run
// is repeated; then the files replace those of the same name).
func UploadCommands(gh, version string, files []string, exists bool) [][]string {
	tag := ReleaseTag(version)
	if exists {
		return [][]string{append([]string{gh, "release", "upload", tag, "--clobber"}, files...)}
	}
	cmd := []string{gh, "release", "create", tag, "--verify-tag", "--title", tag,
		"--notes", "audiobookshelf-mcp " + Version(version) + ". What each file is, and how to check it against SHA256SUMS: " + Repository + "#install"}
	if strings.Contains(Version(version), "-") {
		cmd = append(cmd, "--prerelease")
	}
	return [][]string{append(cmd, files...)}
}

// PublishCommands are the official publisher's commands that publish
// serverJSON to the MCP registry, logged in by GitHub's OIDC token (the
// io.github.OWNER namespace is proven by the workflow running in OWNER's
// repository).
func PublishCommands(publisher, serverJSON string) [][]string {
	return [][]string{{publisher, "login", "github-oidc"}, {publisher, "publish", serverJSON}}
}

// Run runs each command with its output on log; with dryRun it prints them.
func Run(ctx context.Context, cmds [][]string, dryRun bool, log io.Writer) error {
	for _, c := range cmds {
		if dryRun {
			fmt.Fprintf(log, "release: dry run, would run: %s\n", strings.Join(c, " "))
			continue
		}
		fmt.Fprintf(log, "release: %s %s\n", c[0], strings.Join(c[1:min(len(c), 4)], " "))
		cmd := exec.CommandContext(ctx, c[0], c[1:]...)
		cmd.Stdout, cmd.Stderr = log, log
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("%s %s: %w", c[0], c[1], err)
		}
	}
	return nil
}

// ReleaseExists asks gh whether the GitHub release of version's tag exists.
func ReleaseExists(ctx context.Context, gh, version string) bool {
	return exec.CommandContext(ctx, gh, "release", "view", ReleaseTag(version)).Run() == nil
}

// LoadImageIndex reads the image index out of an OCI layout tarball that
// WriteImage wrote, with the name it is tagged with; done removes the
// unpacked layout once the index is no longer read.
func LoadImageIndex(tarball string) (idx v1.ImageIndex, refName string, done func(), err error) {
	dir, err := os.MkdirTemp("", "abs-mcp-push-")
	if err != nil {
		return nil, "", nil, err
	}
	done = func() { os.RemoveAll(dir) }
	fail := func(err error) (v1.ImageIndex, string, func(), error) { done(); return nil, "", nil, err }
	if err := untarTo(tarball, dir); err != nil {
		return fail(err)
	}
	top, err := layout.ImageIndexFromPath(dir)
	if err != nil {
		return fail(err)
	}
	m, err := top.IndexManifest()
	if err != nil {
		return fail(err)
	}
	if len(m.Manifests) != 1 {
		return fail(fmt.Errorf("%s holds %d indexes, want the one WriteImage writes", tarball, len(m.Manifests)))
	}
	idx, err = top.ImageIndex(m.Manifests[0].Digest)
	if err != nil {
		return fail(err)
	}
	return idx, m.Manifests[0].Annotations["org.opencontainers.image.ref.name"], done, nil
}

// untarTo unpacks the tar at path into dir, refusing names that leave it.
func untarTo(path, dir string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	tr := tar.NewReader(f)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		target := filepath.Join(dir, filepath.FromSlash(h.Name))
		if !strings.HasPrefix(target, dir+string(filepath.Separator)) {
			return fmt.Errorf("%s: %s leaves the layout", path, h.Name)
		}
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(target, 0o755); err != nil {
				return err
			}
		case tar.TypeReg:
			if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
				return err
			}
			out, err := os.Create(target)
			if err != nil {
				return err
			}
			_, err = io.Copy(out, tr)
			if cerr := out.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return err
			}
		default:
			return fmt.Errorf("%s: %s is not a file or a folder", path, h.Name)
		}
	}
}

// Keychain is the registry login: REGISTRY_USERNAME and REGISTRY_PASSWORD
// when both are set (the release workflow passes its GitHub token), else
// the Docker configuration's (docker login, podman login).
func Keychain(getenv func(string) string) authn.Keychain {
	if u, p := getenv("REGISTRY_USERNAME"), getenv("REGISTRY_PASSWORD"); u != "" && p != "" {
		return staticKeychain{authn.FromConfig(authn.AuthConfig{Username: u, Password: p})}
	}
	return authn.DefaultKeychain
}

type staticKeychain struct{ a authn.Authenticator }

func (k staticKeychain) Resolve(authn.Resource) (authn.Authenticator, error) { return k.a, nil }

// PushImage pushes the image index of the tarball of version, every
// platform of it, to repository:ImageTag(version), and reads back its
// digest from the registry. With dryRun it checks the tarball (every
// digest and size) and sends nothing.
func PushImage(ctx context.Context, tarball, repository, version string, kc authn.Keychain, dryRun bool, log io.Writer) (string, error) {
	idx, refName, done, err := LoadImageIndex(tarball)
	if err != nil {
		return "", err
	}
	defer done()
	if want := ImageRef(version); refName != want {
		return "", fmt.Errorf("%s is tagged %s, the release's image is %s", tarball, refName, want)
	}
	if err := validate.Index(idx); err != nil {
		return "", fmt.Errorf("%s does not check out: %w", tarball, err)
	}
	digest, err := idx.Digest()
	if err != nil {
		return "", err
	}
	im, err := idx.IndexManifest()
	if err != nil {
		return "", err
	}
	var platforms []string
	for _, m := range im.Manifests {
		platforms = append(platforms, m.Platform.String())
	}
	ref, err := name.NewTag(repository + ":" + ImageTag(version))
	if err != nil {
		return "", err
	}
	if dryRun {
		fmt.Fprintf(log, "release: dry run, would push %s (%s, %v)\n", ref, digest, platforms)
		return digest.String(), nil
	}
	fmt.Fprintf(log, "release: pushing %s (%v)\n", ref, platforms)
	if err := remote.WriteIndex(ref, idx, remote.WithAuthFromKeychain(kc), remote.WithContext(ctx)); err != nil {
		return "", fmt.Errorf("push %s: %w", ref, err)
	}
	desc, err := remote.Head(ref, remote.WithAuthFromKeychain(kc), remote.WithContext(ctx))
	if err != nil {
		return "", fmt.Errorf("read back %s: %w", ref, err)
	}
	if desc.Digest != digest {
		return "", fmt.Errorf("%s is %s in the registry, %s was pushed", ref, desc.Digest, digest)
	}
	fmt.Fprintf(log, "release: pushed %s@%s\n", ref, digest)
	return digest.String(), nil
}
