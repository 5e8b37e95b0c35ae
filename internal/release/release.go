// Package release makes what people install without Go: the static binaries
// as archives with a checksum file, the MCP Bundle (.mcpb) for Claude
// Desktop, the container image as an OCI layout tarball, and server.json for
// the MCP registry. cmd/release is its command (`make release`,
// `make image`, and the server.json step of `make generate`).
package release

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"
)

// Binary is the name of the server's executable (plus .exe on Windows).
const Binary = "audiobookshelf-mcp"

// MainPackage is the import path go build builds, relative to the root.
const MainPackage = "./cmd/audiobookshelf-mcp"

// Platform is one GOOS/GOARCH pair.
type Platform struct{ OS, Arch string }

func (p Platform) String() string { return p.OS + "/" + p.Arch }

// Exe is the binary's file name on p.
func (p Platform) Exe() string {
	if p.OS == "windows" {
		return Binary + ".exe"
	}
	return Binary
}

// Platforms is every platform a release is built for.
var Platforms = []Platform{
	{"linux", "amd64"}, {"linux", "arm64"},
	{"darwin", "amd64"}, {"darwin", "arm64"},
	{"windows", "amd64"}, {"windows", "arm64"},
}

// Host is the platform this program runs on.
func Host() Platform { return Platform{runtime.GOOS, runtime.GOARCH} }

// ParsePlatforms reads "all", "host" or a comma-separated list of os/arch
// out of Platforms.
func ParsePlatforms(s string) ([]Platform, error) {
	switch s {
	case "all", "":
		return Platforms, nil
	case "host":
		s = Host().String()
	}
	var out []Platform
	for _, f := range strings.Split(s, ",") {
		found := false
		for _, p := range Platforms {
			if p.String() == strings.TrimSpace(f) {
				out = append(out, p)
				found = true
			}
		}
		if !found {
			var names []string
			for _, p := range Platforms {
				names = append(names, p.String())
			}
			return nil, fmt.Errorf("-platforms: %q is not one of all, host, %s", f, strings.Join(names, ", "))
		}
	}
	return out, nil
}

// Build compiles the server for p into out: static (CGO_ENABLED=0),
// -trimpath, the version stamped into main.version, symbols stripped as
// `make build` does. root is the repository root.
func Build(ctx context.Context, root string, p Platform, version, out string) error {
	cmd := exec.CommandContext(ctx, goCmd(), "build", "-trimpath",
		"-ldflags", "-s -w -X main.version="+version, "-o", out, MainPackage)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+p.OS, "GOARCH="+p.Arch)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go build for %s: %v\n%s", p, err, stderr.String())
	}
	return nil
}

func goCmd() string {
	if g := os.Getenv("GO"); g != "" {
		return g
	}
	return "go"
}

// Version is a version as everything carries it: less a leading "v" (a tag
// v1.2.3 gives 1.2.3).
func Version(stamped string) string { return strings.TrimPrefix(stamped, "v") }

// File is one file of an archive.
type File struct {
	Name string
	Mode os.FileMode
	Data []byte
}

// ArchiveName is the archive of the binary for p.
func ArchiveName(version string, p Platform) string {
	ext := ".tar.gz"
	if p.OS == "windows" {
		ext = ".zip"
	}
	return ArchiveDir(version, p) + ext
}

// ArchiveDir is the one folder an archive unpacks into, holding the binary,
// LICENSE and README.txt: audiobookshelf-mcp_VERSION_OS_ARCH.
func ArchiveDir(version string, p Platform) string {
	return fmt.Sprintf("%s_%s_%s_%s", Binary, Version(version), p.OS, p.Arch)
}

// LicenseFile is the license, at the root; every archive, the bundle and
// the image carry it. LicenseID is its SPDX identifier, as the bundle's
// manifest, the image's label and server.json name it.
const (
	LicenseFile = "LICENSE"
	LicenseID   = "MIT"
)

// WriteTarGz writes files as a gzip-compressed tar, every entry dated mtime
// and owned by 0:0, so the same files give the same bytes. A File whose
// Mode is a directory (its Name ending in "/") is a folder entry.
func WriteTarGz(path string, files []File, mtime time.Time) error {
	var buf bytes.Buffer
	gz, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	tw := tar.NewWriter(gz)
	for _, f := range files {
		hdr := &tar.Header{Name: f.Name, Mode: int64(f.Mode.Perm()), Size: int64(len(f.Data)),
			ModTime: mtime, Typeflag: tar.TypeReg, Format: tar.FormatPAX}
		if f.Mode.IsDir() {
			hdr.Typeflag, hdr.Size = tar.TypeDir, 0
		}
		if err := tw.WriteHeader(hdr); err != nil {
			return err
		}
		if _, err := tw.Write(f.Data); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	if err := gz.Close(); err != nil {
		return err
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}

// WriteZip writes files as a zip with Unix modes (so an executable stays
// executable where it is unpacked, as the mcpb tool does) and one date.
func WriteZip(path string, files []File, mtime time.Time) error {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, f := range files {
		h := &zip.FileHeader{Name: f.Name, Method: zip.Deflate, Modified: mtime.UTC()}
		h.SetMode(f.Mode)
		if f.Mode.IsDir() {
			h.Method = zip.Store
		}
		w, err := zw.CreateHeader(h)
		if err != nil {
			return err
		}
		if _, err := w.Write(f.Data); err != nil {
			return err
		}
	}
	if err := zw.Close(); err != nil {
		return err
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}

// SHA256File is the hex SHA-256 of the file at path.
func SHA256File(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// ChecksumsFile is the name of the checksum file of a release, in the
// format of `sha256sum` (check with `sha256sum -c SHA256SUMS`).
const ChecksumsFile = "SHA256SUMS"

// WriteChecksums writes dir/SHA256SUMS for every other file of dir.
func WriteChecksums(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	var names []string
	for _, e := range entries {
		if e.Name() == ChecksumsFile {
			continue
		}
		if !e.Type().IsRegular() {
			return fmt.Errorf("%s holds %s, which is not a file: only what is uploaded belongs there", dir, e.Name())
		}
		names = append(names, e.Name())
	}
	sort.Strings(names)
	var b strings.Builder
	for _, n := range names {
		sum, err := SHA256File(filepath.Join(dir, n))
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "%s  %s\n", sum, n)
	}
	return os.WriteFile(filepath.Join(dir, ChecksumsFile), []byte(b.String()), 0o644)
}
