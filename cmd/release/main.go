// Command release makes what people install without Go, with no tool but
// the Go toolchain:
//
//	release -version V [-out dist] [-platforms all]   archives, bundle, SHA256SUMS, server.json
//	release -image -version V [-out dist]             the container image as an OCI layout tarball
//	release -generate | -check                        the checked-in server.json and Dockerfile (make generate)
//	release -ca-bundle FILE                           the image's CA certificates (the Dockerfile's build runs it)
//
// See internal/release for what each contains.
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strconv"
	"time"

	"github.com/audiobookshelf-mcp/audiobookshelf-mcp/internal/release"
)

func main() {
	root := flag.String("root", ".", "repository root")
	version := flag.String("version", "", "the version stamped into the binaries (make passes git describe)")
	out := flag.String("out", "dist", "output directory")
	platforms := flag.String("platforms", "all", "all, host, or a comma-separated list of os/arch")
	image := flag.Bool("image", false, "write the container image (linux/amd64 and linux/arm64) instead of the archives and bundle")
	generate := flag.Bool("generate", false, "write the checked-in server.json and Dockerfile")
	check := flag.Bool("check", false, "write nothing; exit 1 when server.json or the Dockerfile is not current")
	caBundle := flag.String("ca-bundle", "", "write the image's CA certificates (PEM) to this file and exit")
	date := flag.String("date", os.Getenv("SOURCE_DATE_EPOCH"), "Unix time every file of the archives is dated (default: SOURCE_DATE_EPOCH, else 2000-01-01)")
	flag.Parse()
	if flag.NArg() > 0 {
		fail(fmt.Errorf("unexpected argument %q", flag.Arg(0)))
	}
	if *caBundle != "" {
		if err := os.WriteFile(*caBundle, release.CABundle(), 0o644); err != nil {
			fail(err)
		}
		return
	}
	if *generate || *check {
		files, err := release.Generated(*root)
		if err != nil {
			fail(err)
		}
		names := make([]string, 0, len(files))
		for name := range files {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			path := filepath.Join(*root, name)
			if *check {
				if got, err := os.ReadFile(path); err != nil || !bytes.Equal(got, files[name]) {
					fail(fmt.Errorf("%s is not current, run make generate", name))
				}
				continue
			}
			if err := os.WriteFile(path, files[name], 0o644); err != nil {
				fail(err)
			}
		}
		return
	}
	if *version == "" {
		fail(fmt.Errorf("-version is required (make release passes it)"))
	}
	mtime := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	if *date != "" {
		sec, err := strconv.ParseInt(*date, 10, 64)
		if err != nil {
			fail(fmt.Errorf("-date: %q is not a Unix time in seconds", *date))
		}
		mtime = time.Unix(sec, 0).UTC()
	}
	ps, err := release.ParsePlatforms(*platforms)
	if err != nil {
		fail(err)
	}
	if *image {
		ps = nil
		for _, p := range release.ImagePlatforms {
			ps = append(ps, p)
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	opts := release.Options{Root: *root, Out: *out, Version: *version, Platforms: ps, Date: mtime, Log: os.Stderr}
	if *image {
		err = release.MakeImage(ctx, opts)
	} else {
		err = release.Make(ctx, opts)
	}
	if err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "release:", err)
	os.Exit(1)
}
