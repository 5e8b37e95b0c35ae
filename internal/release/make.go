package release

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"time"
)

// Options of Make and MakeImage.
type Options struct {
	Root, Out, Version string
	Platforms          []Platform
	// Date is the time every file of the archives and the image is dated
	// with, so the same sources give the same bytes.
	Date time.Time
	Log  io.Writer
}

// buildAll builds the binaries of o.Platforms under dir/bin/ and returns
// their bytes.
func buildAll(ctx context.Context, o Options, dir string) (map[Platform][]byte, error) {
	bins := map[Platform][]byte{}
	for _, p := range o.Platforms {
		path := filepath.Join(dir, "bin", p.OS+"-"+p.Arch, p.Exe())
		fmt.Fprintf(o.Log, "release: go build %s\n", p)
		if err := Build(ctx, o.Root, p, o.Version, path); err != nil {
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

// Make writes into o.Out: one archive per platform (the binary, README.md),
// the MCP Bundle, server.json with the bundle's hash, and SHA256SUMS of
// the archives and the bundle. With fewer platforms than Platforms the
// bundle carries only theirs (for tests; it says so).
func Make(ctx context.Context, o Options) error {
	if err := os.MkdirAll(o.Out, 0o755); err != nil {
		return err
	}
	bins, err := buildAll(ctx, o, o.Out)
	if err != nil {
		return err
	}
	readme, err := os.ReadFile(filepath.Join(o.Root, "README.md"))
	if err != nil {
		return err
	}
	var names []string
	for _, p := range o.Platforms {
		name := ArchiveName(o.Version, p)
		files := []File{{p.Exe(), 0o755, bins[p]}, {"README.md", 0o644, readme}}
		write := WriteTarGz
		if p.OS == "windows" {
			write = WriteZip
		}
		if err := write(filepath.Join(o.Out, name), files, o.Date); err != nil {
			return err
		}
		names = append(names, name)
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
	names = append(names, bundle)
	sum, err := SHA256File(filepath.Join(o.Out, bundle))
	if err != nil {
		return err
	}
	meta, err := LoadMeta(o.Root)
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
	if err := WriteChecksums(o.Out, names); err != nil {
		return err
	}
	fmt.Fprintf(o.Log, "release: wrote %d archives, %s, %s and %s to %s\n", len(o.Platforms), bundle, ServerJSONFile, ChecksumsFile, o.Out)
	return nil
}

// MakeImage writes the container image of o.Platforms (those of
// ImagePlatforms) into o.Out as an OCI layout tarball.
func MakeImage(ctx context.Context, o Options) error {
	if err := os.MkdirAll(o.Out, 0o755); err != nil {
		return err
	}
	bins, err := buildAll(ctx, o, filepath.Join(o.Out, "image"))
	if err != nil {
		return err
	}
	meta, err := LoadMeta(o.Root)
	if err != nil {
		return err
	}
	path := filepath.Join(o.Out, ImageName(o.Version))
	if err := WriteImage(path, meta, o.Version, bins, o.Date); err != nil {
		return err
	}
	fmt.Fprintf(o.Log, "release: wrote %s (%s, tagged %s:%s)\n", path, o.Platforms, ImageRepository, Version(o.Version))
	return nil
}
