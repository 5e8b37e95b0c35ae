package release

import (
	"bytes"
	"fmt"
	"os/exec"
	"regexp"
	"strings"
)

// The version of a release is the tag on the commit it is made from, less
// its "v": tag v1.2.3 makes 1.2.3, and --version, the bundle's manifest,
// server.json, the image's tag and its labels all say 1.2.3. A commit with
// no such tag makes only a local build, stamped DevVersion, which nothing
// publishes.

// semverCore is MAJOR.MINOR.PATCH with an optional pre-release, as
// https://semver.org/spec/v2.0.0.html writes them.
const semverCore = `(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)` +
	`(-(0|[1-9]\d*|\d*[A-Za-z-][0-9A-Za-z-]*)(\.(0|[1-9]\d*|\d*[A-Za-z-][0-9A-Za-z-]*))*)?`

var (
	// releaseTag is a tag a release is made from: v + semver, no build
	// metadata (v1.2.3, v1.3.0-rc.1).
	releaseTag = regexp.MustCompile(`^v` + semverCore + `$`)
	// semver is a version as stamped: semver 2.0, build metadata allowed.
	semver = regexp.MustCompile(`^` + semverCore + `(\+[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?$`)
)

// DevVersionPrefix starts the version of a build from a commit without a
// release tag: 0.0.0-dev+COMMIT (+.dirty when files were changed).
const DevVersionPrefix = "0.0.0-dev"

// IsDev says whether v is a local build's version, which is never published.
func IsDev(v string) bool { return strings.HasPrefix(Version(v), DevVersionPrefix) }

// CheckVersion refuses a version that is not semver (the bundle format and
// the registry's sorting need it); a leading "v" is allowed and dropped.
func CheckVersion(v string) (string, error) {
	n := Version(v)
	if !semver.MatchString(n) {
		return "", fmt.Errorf("version %q is not semver MAJOR.MINOR.PATCH[-PRERELEASE][+BUILD] (such as 1.2.3 or v1.2.3)", v)
	}
	return n, nil
}

// ReleaseTag is the tag a release of version v is published under.
func ReleaseTag(v string) string { return "v" + Version(v) }

func git(root string, args ...string) (string, error) {
	cmd := exec.Command("git", append([]string{"-C", root}, args...)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("git %s: %v %s", strings.Join(args, " "), err, strings.TrimSpace(errb.String()))
	}
	return strings.TrimSpace(out.String()), nil
}

// ReleaseVersion is the version of a release made from HEAD of the git
// checkout at root: its tag vX.Y.Z less the "v". It refuses, saying why,
// when HEAD has no such tag (a download URL would name a tag that does not
// exist), several of them, or changes to tracked files not committed (the
// files would not be what the tag holds).
func ReleaseVersion(root string) (string, error) {
	head, err := git(root, "rev-parse", "--short=12", "HEAD")
	if err != nil {
		return "", fmt.Errorf("no release without a git commit: %w", err)
	}
	tags, err := git(root, "tag", "--points-at", "HEAD")
	if err != nil {
		return "", err
	}
	var found, other []string
	for _, t := range strings.Fields(tags) {
		if releaseTag.MatchString(t) {
			found = append(found, t)
		} else if len(t) > 1 && t[0] == 'v' && t[1] >= '0' && t[1] <= '9' {
			other = append(other, t)
		}
	}
	switch {
	case len(found) == 0:
		why := "has no release tag vMAJOR.MINOR.PATCH"
		if len(other) > 0 {
			why += fmt.Sprintf(" (%s: not of that form)", strings.Join(other, ", "))
		}
		return "", fmt.Errorf("will not make a release to publish: HEAD (%s) %s, and every download URL of a release names its tag. "+
			"Tag the commit (git tag v1.2.3; pushing the tag runs the release workflow), "+
			"or run `make release-local` for a build stamped %s, which is never published", head, why, devVersion(head, false))
	case len(found) > 1:
		return "", fmt.Errorf("will not make a release: HEAD (%s) carries several release tags (%s); keep one", head, strings.Join(found, ", "))
	}
	if dirty, err := git(root, "status", "--porcelain", "--untracked-files=no"); err != nil {
		return "", err
	} else if dirty != "" {
		return "", fmt.Errorf("will not make release %s: tracked files differ from the tagged commit %s (git status), so the release would not be what the tag holds; commit or stash them", found[0], head)
	}
	return Version(found[0]), nil
}

// DevVersion is the version of a local build from the checkout at root:
// the release tag's when HEAD has one and no changes, else
// 0.0.0-dev+COMMIT (.dirty with changes to tracked files), or 0.0.0-dev
// outside git.
func DevVersion(root string) string {
	if v, err := ReleaseVersion(root); err == nil {
		return v
	}
	head, err := git(root, "rev-parse", "--short=12", "HEAD")
	if err != nil {
		return DevVersionPrefix
	}
	dirty, _ := git(root, "status", "--porcelain", "--untracked-files=no")
	return devVersion(head, dirty != "")
}

func devVersion(head string, dirty bool) string {
	v := DevVersionPrefix + "+" + head
	if dirty {
		v += ".dirty"
	}
	return v
}
