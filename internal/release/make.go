package release

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Options of Make and MakeImage.
type Options struct {
	// Root is the repository root; Out the folder of what is uploaded
	// (dist); Work the folder of what is not (build: the binaries before
	// they are packed).
	Root, Out, Work string
	// Version is the release's version, semver without a leading "v".
	Version   string
	Platforms []Platform
	// Date is the time every file of the archives and the image is dated
	// with, so the same sources give the same bytes.
	Date time.Time
	Log  io.Writer

	// build replaces Build (tests: a real binary for this machine, stand-in
	// bytes for the others).
	build func(ctx context.Context, root string, p Platform, version, out string) error
}

// buildAll builds the binaries of ps under dir/OS-ARCH/ and returns their
// bytes.
func buildAll(ctx context.Context, o Options, ps []Platform, dir string) (map[Platform][]byte, error) {
	bins := map[Platform][]byte{}
	for _, p := range ps {
		path := filepath.Join(dir, p.OS+"-"+p.Arch, p.Exe())
		fmt.Fprintf(o.Log, "release: go build %s\n", p)
		build := o.build
		if build == nil {
			build = Build
		}
		if err := build(ctx, o.Root, p, o.Version, path); err != nil {
			return nil, err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		bins[p] = b
	}
	return bins, nil
}

// BinDir is where Make leaves the binaries it packs, under Options.Work.
const BinDir = "bin"

func (o Options) check() error {
	if _, err := CheckVersion(o.Version); err != nil {
		return err
	}
	if o.Work == "" || o.Out == "" {
		return fmt.Errorf("the output and work folders are both needed")
	}
	if a, _ := filepath.Abs(o.Out); a == mustAbs(o.Work) || a == mustAbs(o.Root) {
		return fmt.Errorf("the output folder %s must be a folder of its own (it is emptied first)", o.Out)
	}
	return nil
}

func mustAbs(p string) string { a, _ := filepath.Abs(p); return a }

// cleanOut removes the files of an earlier release from out; anything else
// there (a folder, a file of another name) stops the release instead of
// being deleted or uploaded.
func cleanOut(out string) error {
	entries, err := os.ReadDir(out)
	if os.IsNotExist(err) {
		return nil
	} else if err != nil {
		return err
	}
	for _, e := range entries {
		n := e.Name()
		if !e.Type().IsRegular() || !(strings.HasPrefix(n, Binary+"_") || n == ChecksumsFile || n == ServerJSONFile) {
			return fmt.Errorf("%s holds %s, which no release writes; remove it (only what is uploaded belongs in %s)", out, n, out)
		}
	}
	for _, e := range entries {
		if err := os.Remove(filepath.Join(out, e.Name())); err != nil {
			return err
		}
	}
	return nil
}

// Make empties o.Out and writes into it what a release uploads, and nothing
// else: one archive per platform (a folder audiobookshelf-mcp_VERSION_OS_ARCH
// holding the binary, LICENSE and README.txt), the MCP Bundle, the container
// image as an OCI layout tarball (when o.Platforms has its platforms),
// server.json with the bundle's hash (not for a DevVersion, which is never
// published), and SHA256SUMS of every other file. The binaries are built
// under o.Work. With fewer platforms than Platforms the bundle carries only
// theirs (for tests; it says so).
func Make(ctx context.Context, o Options) error {
	if err := o.check(); err != nil {
		return err
	}
	if err := cleanOut(o.Out); err != nil {
		return err
	}
	if err := os.MkdirAll(o.Out, 0o755); err != nil {
		return err
	}
	bins, err := buildAll(ctx, o, o.Platforms, filepath.Join(o.Work, BinDir))
	if err != nil {
		return err
	}
	license, err := os.ReadFile(filepath.Join(o.Root, LicenseFile))
	if err != nil {
		return err
	}
	for _, p := range o.Platforms {
		dir := ArchiveDir(o.Version, p) + "/"
		files := []File{
			{dir, os.ModeDir | 0o755, nil},
			{dir + p.Exe(), 0o755, bins[p]},
			{dir + LicenseFile, 0o644, license},
			{dir + "README.txt", 0o644, ArchiveReadme(o.Version, p)},
		}
		write := WriteTarGz
		if p.OS == "windows" {
			write = WriteZip
		}
		if err := write(filepath.Join(o.Out, ArchiveName(o.Version, p)), files, o.Date); err != nil {
			return err
		}
	}
	partial := len(o.Platforms) < len(Platforms)
	for _, p := range Platforms {
		if _, in := BundlePath(p); in && !slices.Contains(o.Platforms, p) {
			partial = true
		}
	}
	bundle := BundleName(o.Version)
	if err := WriteBundle(o.Root, filepath.Join(o.Out, bundle), o.Version, bins, o.Date, partial); err != nil {
		return err
	}
	if partial {
		fmt.Fprintf(o.Log, "release: %s carries only %v: not for publishing\n", bundle, o.Platforms)
	}
	meta, err := LoadMeta(o.Root)
	if err != nil {
		return err
	}
	imageBins := map[Platform][]byte{}
	for _, p := range ImagePlatforms {
		if b, ok := bins[p]; ok {
			imageBins[p] = b
		}
	}
	if len(imageBins) > 0 {
		if err := WriteImage(filepath.Join(o.Out, ImageName(o.Version)), meta, o.Version, imageBins, license, o.Date); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(o.Log, "release: no image: none of %v is among %v\n", ImagePlatforms, o.Platforms)
	}
	if IsDev(o.Version) {
		fmt.Fprintf(o.Log, "release: %s is a local build's version: no server.json, nothing here is for publishing\n", o.Version)
	} else {
		sum, err := SHA256File(filepath.Join(o.Out, bundle))
		if err != nil {
			return err
		}
		sj, err := ServerJSON(meta, o.Version, sum)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(o.Out, ServerJSONFile), sj, 0o644); err != nil {
			return err
		}
	}
	if err := WriteChecksums(o.Out); err != nil {
		return err
	}
	entries, _ := os.ReadDir(o.Out)
	fmt.Fprintf(o.Log, "release: %s: %d files in %s (SHA256SUMS lists the others)\n", o.Version, len(entries), o.Out)
	return nil
}

// MakeImage writes the container image of o.Platforms (those of
// ImagePlatforms) into o.Out as an OCI layout tarball, building the
// binaries under o.Work, and rewrites o.Out's SHA256SUMS.
func MakeImage(ctx context.Context, o Options) error {
	if err := o.check(); err != nil {
		return err
	}
	if err := os.MkdirAll(o.Out, 0o755); err != nil {
		return err
	}
	bins, err := buildAll(ctx, o, o.Platforms, filepath.Join(o.Work, "image", BinDir))
	if err != nil {
		return err
	}
	meta, err := LoadMeta(o.Root)
	if err != nil {
		return err
	}
	license, err := os.ReadFile(filepath.Join(o.Root, LicenseFile))
	if err != nil {
		return err
	}
	path := filepath.Join(o.Out, ImageName(o.Version))
	if err := WriteImage(path, meta, o.Version, bins, license, o.Date); err != nil {
		return err
	}
	if err := WriteChecksums(o.Out); err != nil {
		return err
	}
	fmt.Fprintf(o.Log, "release: wrote %s (%s, tagged %s)\n", path, o.Platforms, ImageRef(o.Version))
	return nil
}
