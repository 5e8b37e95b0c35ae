package release

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// gitRepo is a fresh repository with one commit, and a function running
// git in it.
func gitRepo(t *testing.T) (string, func(args ...string) string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	dir := t.TempDir()
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.org",
			"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.org", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	run("init", "-q")
	if err := os.WriteFile(filepath.Join(dir, "f"), []byte("1"), 0o644); err != nil {
		t.Fatal(err)
	}
	run("add", "f")
	run("commit", "-q", "-m", "one")
	return dir, run
}

// TestReleaseVersion: a release is made only from a commit tagged vX.Y.Z
// with no changes to tracked files; otherwise the refusal says why and
// what to do, and a local build is stamped 0.0.0-dev+COMMIT.
func TestReleaseVersion(t *testing.T) {
	dir, git := gitRepo(t)
	head := git("rev-parse", "--short=12", "HEAD")

	_, err := ReleaseVersion(dir)
	if err == nil || !strings.Contains(err.Error(), "HEAD ("+head+") has no release tag vMAJOR.MINOR.PATCH") ||
		!strings.Contains(err.Error(), "make release-local") || !strings.Contains(err.Error(), "0.0.0-dev+"+head) {
		t.Errorf("untagged: %v", err)
	}
	if got := DevVersion(dir); got != "0.0.0-dev+"+head {
		t.Errorf("DevVersion untagged = %q", got)
	}

	git("tag", "v1.2")
	git("tag", "version-9")
	if _, err := ReleaseVersion(dir); err == nil || !strings.Contains(err.Error(), "(v1.2: not of that form)") {
		t.Errorf("a tag that is not semver: %v", err)
	}

	git("tag", "-a", "-m", "release", "v1.2.3")
	if v, err := ReleaseVersion(dir); err != nil || v != "1.2.3" {
		t.Errorf("tagged v1.2.3: %q %v", v, err)
	}
	if got := DevVersion(dir); got != "1.2.3" {
		t.Errorf("DevVersion tagged = %q", got)
	}

	// Tracked files changed: no release, and the local build says dirty.
	os.WriteFile(filepath.Join(dir, "f"), []byte("2"), 0o644)
	if _, err := ReleaseVersion(dir); err == nil || !strings.Contains(err.Error(), "tracked files differ") {
		t.Errorf("dirty: %v", err)
	}
	if got := DevVersion(dir); got != "0.0.0-dev+"+head+".dirty" {
		t.Errorf("DevVersion dirty = %q", got)
	}
	git("checkout", "-q", "f")
	// An untracked file does not count.
	os.WriteFile(filepath.Join(dir, "new"), []byte("x"), 0o644)
	if v, err := ReleaseVersion(dir); err != nil || v != "1.2.3" {
		t.Errorf("with an untracked file: %q %v", v, err)
	}

	git("tag", "v1.3.0-rc.1")
	if _, err := ReleaseVersion(dir); err == nil || !strings.Contains(err.Error(), "several release tags (v1.2.3, v1.3.0-rc.1)") {
		t.Errorf("two tags: %v", err)
	}

	// Outside git.
	if got := DevVersion(t.TempDir()); got != "0.0.0-dev" {
		t.Errorf("DevVersion outside git = %q", got)
	}
	if _, err := ReleaseVersion(t.TempDir()); err == nil {
		t.Error("a release outside git")
	}
}

func TestCheckVersion(t *testing.T) {
	for in, want := range map[string]string{
		"1.2.3": "1.2.3", "v1.2.3": "1.2.3", "1.3.0-rc.1": "1.3.0-rc.1", "0.0.0-dev+0123abcd.dirty": "0.0.0-dev+0123abcd.dirty",
	} {
		if got, err := CheckVersion(in); err != nil || got != want {
			t.Errorf("CheckVersion(%q) = %q, %v", in, got, err)
		}
	}
	for _, bad := range []string{"a15b061", "va15b061", "1.2", "01.2.3", "1.2.3-", "1.2.3-01", "1.2.3+", "dev", ""} {
		if _, err := CheckVersion(bad); err == nil || !strings.Contains(err.Error(), "is not semver") {
			t.Errorf("CheckVersion(%q): %v", bad, err)
		}
	}
	if !regexp.MustCompile(`^[0-9A-Za-z_.-]+$`).MatchString(ImageTag("0.0.0-dev+0123abcd.dirty")) {
		t.Errorf("image tag %q is not a valid tag", ImageTag("0.0.0-dev+0123abcd.dirty"))
	}
	if ImageTag("1.2.3") != "1.2.3" || !IsDev("0.0.0-dev+x") || IsDev("1.2.3") {
		t.Error("ImageTag / IsDev")
	}
}
