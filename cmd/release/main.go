// Command release makes what people install without Go, with no tool but
// the Go toolchain:
//
//	release -version V [-out dist] [-platforms all]   archives, bundle, SHA256SUMS, server.json
//	release -image -version V [-out dist]             the container image as an OCI layout tarball
//	release -generate | -check                        the checked-in server.json (make generate)
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
	generate := flag.Bool("generate", false, "write the checked-in server.json")
	check := flag.Bool("check", false, "write nothing; exit 1 when the checked-in server.json is not current")
	date := flag.String("date", os.Getenv("SOURCE_DATE_EPOCH"), "Unix time every file of the archives is dated (default: SOURCE_DATE_EPOCH, else 2000-01-01)")
	flag.Parse()
	if flag.NArg() > 0 {
		fail(fmt.Errorf("unexpected argument %q", flag.Arg(0)))
	}
	if *generate || *check {
		want, err := release.CheckedInServerJSON(*root)
		if err != nil {
			fail(err)
		}
		path := filepath.Join(*root, release.ServerJSONFile)
		if *check {
			if got, err := os.ReadFile(path); err != nil || !bytes.Equal(got, want) {
				fail(fmt.Errorf("%s is not current, run make generate", release.ServerJSONFile))
			}
			return
		}
		if err := os.WriteFile(path, want, 0o644); err != nil {
			fail(err)
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
