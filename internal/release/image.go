package release

import (
	"archive/tar"
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// The image: on an empty base, a layer of CA certificates (CABundle, for
// https to Audiobookshelf) and a layer holding the static binary alone, run as
// an unprivileged numeric user (there is no /etc/passwd to name one), serving
// streamable HTTP on every interface of the container without sessions. The
// Dockerfile at the root (generated from these values) makes the same image
// with Docker.
const (
	ImageBinary = "/" + Binary
	ImageUser   = "65532:65532"
	// ServerNameLabel is the label the MCP registry reads to check that an
	// image belongs to the server.json naming it.
	ServerNameLabel = "io.modelcontextprotocol.server.name"
)

// ImagePlatforms are the platforms of the image index.
var ImagePlatforms = []Platform{{"linux", "amd64"}, {"linux", "arm64"}}

// ImageName is the OCI layout tarball of a release.
func ImageName(version string) string {
	return fmt.Sprintf("%s_%s_image.oci.tar", Binary, Version(version))
}

// ImageTag is the image's tag for version: the version itself, but for the
// "+" of a local build's version (0.0.0-dev+COMMIT), which no tag may
// hold and is written "_" there (the labels keep the version as it is).
func ImageTag(version string) string { return strings.ReplaceAll(Version(version), "+", "_") }

// ImageRef is the image's name with its tag.
func ImageRef(version string) string { return ImageRepository + ":" + ImageTag(version) }

// ImageLicense is where the image keeps the license.
const ImageLicense = "/" + LicenseFile

// ImageEntrypoint and ImageCmd: the command is the binary; the arguments,
// which `docker run IMAGE ARGS` replaces, serve over HTTP.
var (
	ImageEntrypoint = []string{ImageBinary}
	ImageCmd        = []string{"--http", "0.0.0.0:" + strconv.Itoa(ImagePort), "--stateless"}
)

// tarLayer is a layer of the files (directories first, as they would be
// created), every entry owned by 0:0 and dated created.
func tarLayer(dirs []string, files []File, created time.Time) (v1.Layer, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, d := range dirs {
		if err := tw.WriteHeader(&tar.Header{Name: d + "/", Mode: 0o755, ModTime: created, Typeflag: tar.TypeDir, Format: tar.FormatPAX}); err != nil {
			return nil, err
		}
	}
	for _, f := range files {
		if err := tw.WriteHeader(&tar.Header{Name: f.Name, Mode: int64(f.Mode.Perm()), Size: int64(len(f.Data)),
			ModTime: created, Typeflag: tar.TypeReg, Format: tar.FormatPAX}); err != nil {
			return nil, err
		}
		if _, err := tw.Write(f.Data); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	raw := buf.Bytes()
	return tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(raw)), nil
	}, tarball.WithMediaType(types.OCILayer))
}

// imageFor is the image of one platform: the CA layer, then bin and the
// license.
func imageFor(meta Meta, version string, p Platform, bin, license []byte, created time.Time) (v1.Image, error) {
	ca, err := tarLayer([]string{"etc", "etc/ssl", "etc/ssl/certs"},
		[]File{{strings.TrimPrefix(CABundlePath, "/"), 0o644, CABundle()}}, created)
	if err != nil {
		return nil, err
	}
	layer, err := tarLayer(nil, []File{
		{strings.TrimPrefix(ImageBinary, "/"), 0o755, bin},
		{strings.TrimPrefix(ImageLicense, "/"), 0o644, license},
	}, created)
	if err != nil {
		return nil, err
	}
	img := mutate.MediaType(empty.Image, types.OCIManifestSchema1)
	img = mutate.ConfigMediaType(img, types.OCIConfigJSON)
	img, err = mutate.Append(img,
		mutate.Addendum{Layer: ca, History: v1.History{
			Created: v1.Time{Time: created}, CreatedBy: "cmd/release: COPY ca-certificates.crt " + CABundlePath,
		}},
		mutate.Addendum{Layer: layer, History: v1.History{
			Created: v1.Time{Time: created}, CreatedBy: "cmd/release: COPY " + Binary + " " + ImageBinary + "; COPY " + LicenseFile + " " + ImageLicense,
		}})
	if err != nil {
		return nil, err
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cf = cf.DeepCopy()
	cf.OS, cf.Architecture = p.OS, p.Arch
	cf.Created = v1.Time{Time: created}
	cf.Config.Entrypoint = ImageEntrypoint
	cf.Config.Cmd = ImageCmd
	cf.Config.User = ImageUser
	cf.Config.WorkingDir = "/"
	cf.Config.ExposedPorts = map[string]struct{}{strconv.Itoa(ImagePort) + "/tcp": {}}
	cf.Config.Labels = ImageLabels(meta, version)
	return mutate.ConfigFile(img, cf)
}

// ImageLabels are the image's labels: the registry's ownership label and
// the usual OCI ones.
func ImageLabels(meta Meta, version string) map[string]string {
	return map[string]string{
		ServerNameLabel:                          meta.RegistryName(),
		"org.opencontainers.image.title":         meta.Name,
		"org.opencontainers.image.description":   meta.Description,
		"org.opencontainers.image.version":       Version(version),
		"org.opencontainers.image.source":        Repository,
		"org.opencontainers.image.documentation": Repository + "#readme",
		"org.opencontainers.image.licenses":      LicenseID,
	}
}

// WriteImage writes an OCI image layout, as one tar file at out, holding an
// index of one image per platform of bins, tagged
// ImageRef(version) (the org.opencontainers.image.ref.name annotation,
// which `skopeo copy oci-archive:OUT docker://...` and `docker load` read).
// Every image carries license at ImageLicense.
func WriteImage(out string, meta Meta, version string, bins map[Platform][]byte, license []byte, created time.Time) error {
	idx := mutate.IndexMediaType(empty.Index, types.OCIImageIndex)
	for _, p := range ImagePlatforms {
		bin, ok := bins[p]
		if !ok {
			continue
		}
		img, err := imageFor(meta, version, p, bin, license, created)
		if err != nil {
			return fmt.Errorf("image for %s: %w", p, err)
		}
		idx = mutate.AppendManifests(idx, mutate.IndexAddendum{Add: img, Descriptor: v1.Descriptor{
			Platform: &v1.Platform{OS: p.OS, Architecture: p.Arch},
		}})
	}
	if m, err := idx.IndexManifest(); err != nil {
		return err
	} else if len(m.Manifests) == 0 {
		return fmt.Errorf("no binary for any of %v", ImagePlatforms)
	}
	dir, err := os.MkdirTemp("", "abs-mcp-image-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	lp, err := layout.Write(dir, empty.Index)
	if err != nil {
		return err
	}
	ref := ImageRef(version)
	if err := lp.AppendIndex(idx, layout.WithAnnotations(map[string]string{
		"org.opencontainers.image.ref.name": ref,
		"io.containerd.image.name":          ref,
	})); err != nil {
		return err
	}
	return tarDir(dir, out, created)
}

// tarDir writes the files under dir as a tar at out, sorted, dated mtime.
func tarDir(dir, out string, mtime time.Time) error {
	var names []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if path != dir {
			names = append(names, path)
		}
		return nil
	})
	if err != nil {
		return err
	}
	sort.Strings(names)
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, path := range names {
		rel, _ := filepath.Rel(dir, path)
		rel = filepath.ToSlash(rel)
		fi, err := os.Stat(path)
		if err != nil {
			return err
		}
		if fi.IsDir() {
			if err := tw.WriteHeader(&tar.Header{Name: rel + "/", Mode: 0o755, ModTime: mtime, Typeflag: tar.TypeDir, Format: tar.FormatPAX}); err != nil {
				return err
			}
			continue
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if err := tw.WriteHeader(&tar.Header{Name: rel, Mode: 0o644, Size: int64(len(b)), ModTime: mtime, Typeflag: tar.TypeReg, Format: tar.FormatPAX}); err != nil {
			return err
		}
		if _, err := tw.Write(b); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return os.WriteFile(out, buf.Bytes(), 0o644)
}
