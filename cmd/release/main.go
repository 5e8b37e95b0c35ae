// Command release makes what people install without Go, with no tool but
// the Go toolchain:
//
//	release [-out dist] [-work build] [-platforms all]   archives, bundle, image, SHA256SUMS, server.json
//	release -image [-out dist]                           the container image alone, as an OCI layout tarball
//	release -print-version                               the version `make build` stamps
//	release -upload | -push-image | -publish-registry [-dry-run]
//	                                                     publish what -out holds (make upload-release, push-image, publish-registry)
//	release -generate | -check                           the checked-in server.json and Dockerfile (make generate)
//	release -ca-bundle FILE                              the image's CA certificates (the Dockerfile's build runs it)
//
// The version is the release tag vX.Y.Z on HEAD, less its "v"; without one
// a release is refused, saying why. -dev stamps a local build 0.0.0-dev+COMMIT
// instead (never published); -version V stamps V (tests).
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
	version := flag.String("version", "", "stamp this semver version instead of the release tag's (for tests)")
	dev := flag.Bool("dev", false, "a local build: stamp 0.0.0-dev+COMMIT when HEAD has no release tag (never published)")
	printVersion := flag.Bool("print-version", false, "print the version of a local build (the tag's, else 0.0.0-dev+COMMIT) and exit")
	out := flag.String("out", "dist", "output directory: only what is uploaded")
	work := flag.String("work", "build", "directory of the intermediate files (the binaries before they are packed)")
	platforms := flag.String("platforms", "all", "all, host, or a comma-separated list of os/arch")
	image := flag.Bool("image", false, "write the container image (linux/amd64 and linux/arm64) instead of the archives and bundle")
	generate := flag.Bool("generate", false, "write the checked-in server.json and Dockerfile")
	check := flag.Bool("check", false, "write nothing; exit 1 when server.json or the Dockerfile is not current")
	caBundle := flag.String("ca-bundle", "", "write the image's CA certificates (PEM) to this file and exit")
	upload := flag.Bool("upload", false, "check the release in -out and upload it to the GitHub release of its tag (gh)")
	pushImage := flag.Bool("push-image", false, "check the release in -out and push its image to -repository (no daemon)")
	publishRegistry := flag.Bool("publish-registry", false, "check the release in -out and publish its server.json to the MCP registry")
	dryRun := flag.Bool("dry-run", false, "with -upload, -push-image, -publish-registry: check everything, say what would be done, send nothing")
	repository := flag.String("repository", release.ImageRepository, "with -push-image: the repository the image is pushed to")
	gh := flag.String("gh", "gh", "with -upload: the GitHub CLI")
	publisher := flag.String("publisher", "mcp-publisher", "with -publish-registry: the MCP registry's publisher")
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
	if *printVersion {
		fmt.Println(release.DevVersion(*root))
		return
	}
	var v string
	var err error
	switch {
	case *version != "":
		v, err = release.CheckVersion(*version)
	case *dev:
		v = release.DevVersion(*root)
	default:
		v, err = release.ReleaseVersion(*root)
	}
	if err != nil {
		fail(err)
	}
	if *upload || *pushImage || *publishRegistry {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
		defer stop()
		if err := publish(ctx, *out, v, *upload, *pushImage, *publishRegistry, *dryRun, *repository, *gh, *publisher); err != nil {
			fail(err)
		}
		return
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
		ps = append([]release.Platform(nil), release.ImagePlatforms...)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	opts := release.Options{Root: *root, Out: *out, Work: *work, Version: v, Platforms: ps, Date: mtime, Log: os.Stderr}
	if *image {
		err = release.MakeImage(ctx, opts)
	} else {
		err = release.Make(ctx, opts)
	}
	if err != nil {
		fail(err)
	}
}

// publish checks the release in dir and does the steps asked for.
func publish(ctx context.Context, dir, v string, upload, pushImage, publishRegistry, dryRun bool, repository, gh, publisher string) error {
	files, err := release.CheckDist(dir, v)
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "release: %s holds release %s, checked (%d files)\n", dir, v, len(files))
	if upload {
		exists := !dryRun && release.ReleaseExists(ctx, gh, v)
		if err := release.Run(ctx, release.UploadCommands(gh, v, files, exists), dryRun, os.Stderr); err != nil {
			return err
		}
	}
	if pushImage {
		if _, err := release.PushImage(ctx, filepath.Join(dir, release.ImageName(v)), repository, v, release.Keychain(os.Getenv), dryRun, os.Stderr); err != nil {
			return err
		}
	}
	if publishRegistry {
		if err := release.Run(ctx, release.PublishCommands(publisher, filepath.Join(dir, release.ServerJSONFile)), dryRun, os.Stderr); err != nil {
			return err
		}
	}
	return nil
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "release:", err)
	os.Exit(1)
}
