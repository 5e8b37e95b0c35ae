package release

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/v1/layout"
)

// dockerInstr is one instruction of a Dockerfile, continuation lines joined.
type dockerInstr struct{ Cmd, Args string }

func parseDockerfile(t *testing.T, b []byte) []dockerInstr {
	t.Helper()
	var out []dockerInstr
	var cur strings.Builder
	for _, line := range strings.Split(string(b), "\n") {
		if cur.Len() == 0 && (strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "") {
			continue
		}
		if strings.HasSuffix(line, "\\") {
			cur.WriteString(strings.TrimSuffix(line, "\\") + " ")
			continue
		}
		cur.WriteString(line)
		cmd, args, _ := strings.Cut(strings.TrimSpace(cur.String()), " ")
		out = append(out, dockerInstr{strings.ToUpper(cmd), strings.TrimSpace(args)})
		cur.Reset()
	}
	return out
}

// TestDockerfileDescribesTheImage reads the checked-in Dockerfile as a
// builder would and compares its final stage with the image `make image`
// writes (its config and its layers' files): base, files, user, port,
// labels (the version from the VERSION build argument), entrypoint,
// command and environment. The build stage's image is fully qualified.
func TestDockerfileDescribesTheImage(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(root, DockerfileFile))
	if err != nil {
		t.Fatal(err)
	}
	instrs := parseDockerfile(t, b)
	var stages [][]dockerInstr
	for _, in := range instrs {
		if in.Cmd == "FROM" {
			stages = append(stages, nil)
		}
		if len(stages) == 0 {
			t.Fatalf("%s before FROM", in.Cmd)
		}
		stages[len(stages)-1] = append(stages[len(stages)-1], in)
	}
	if len(stages) != 2 {
		t.Fatalf("%d stages, want the build and the image", len(stages))
	}
	build, final := stages[0], stages[1]
	ref, _, _ := strings.Cut(build[0].Args, " ")
	if host, _, ok := strings.Cut(ref, "/"); !ok || !strings.Contains(host, ".") {
		t.Errorf("the build stage's image %q is not fully qualified (registry host/...)", ref)
	}
	if !slices.Contains(build, dockerInstr{"ARG", "VERSION=" + DevVersionPrefix}) || !strings.Contains(string(b), "-X main.version=${VERSION}") {
		t.Errorf("the build stage does not stamp the VERSION build argument")
	}

	// The image make image writes.
	meta, err := LoadMeta(root)
	if err != nil {
		t.Fatal(err)
	}
	license, _ := os.ReadFile(filepath.Join(root, LicenseFile))
	const v = "4.5.6"
	out := filepath.Join(t.TempDir(), ImageName(v))
	p := Platform{"linux", "amd64"}
	if err := WriteImage(out, meta, v, map[Platform][]byte{p: []byte("binary")}, license, time.Unix(0, 0)); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	untar(t, out, dir)
	top, err := layout.ImageIndexFromPath(dir)
	if err != nil {
		t.Fatal(err)
	}
	topm, _ := top.IndexManifest()
	idx, _ := top.ImageIndex(topm.Manifests[0].Digest)
	im, _ := idx.IndexManifest()
	img, _ := idx.Image(im.Manifests[0].Digest)
	cf, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	layers, _ := img.Layers()
	var imageFiles []string
	for _, l := range layers {
		for name, data := range layerFiles(t, l) {
			if data != nil {
				imageFiles = append(imageFiles, "/"+name)
			}
		}
	}
	slices.Sort(imageFiles)

	// The final stage, instruction by instruction.
	var copied []string
	labels := map[string]string{}
	var env []string
	var user, entrypoint, cmd string
	exposed := map[string]struct{}{}
	if final[0].Args != ImageBase || ImageBase != "scratch" {
		t.Errorf("the image's base is %q; make image builds on nothing (scratch)", final[0].Args)
	}
	for _, in := range final[1:] {
		switch in.Cmd {
		case "ARG":
			if in.Args != "VERSION="+DevVersionPrefix {
				t.Errorf("ARG %s", in.Args)
			}
		case "COPY":
			f := strings.Fields(in.Args)
			copied = append(copied, f[len(f)-1])
		case "USER":
			user = in.Args
		case "EXPOSE":
			exposed[in.Args] = struct{}{}
		case "ENV":
			env = append(env, in.Args)
		case "ENTRYPOINT":
			entrypoint = in.Args
		case "CMD":
			cmd = in.Args
		case "LABEL":
			rest := in.Args
			for rest != "" {
				k, after, ok := strings.Cut(rest, "=")
				if !ok {
					t.Fatalf("LABEL %q", rest)
				}
				val, err := strconv.QuotedPrefix(after)
				if err != nil {
					t.Fatalf("LABEL %s: %v", k, err)
				}
				uq, _ := strconv.Unquote(val)
				labels[strings.TrimSpace(k)] = strings.ReplaceAll(uq, "${VERSION}", v)
				rest = strings.TrimSpace(after[len(val):])
			}
		default:
			t.Errorf("an instruction the test does not know: %s", in.Cmd)
		}
	}
	slices.Sort(copied)
	if !slices.Equal(copied, imageFiles) {
		t.Errorf("the Dockerfile copies %v; make image's layers hold %v", copied, imageFiles)
	}
	if user != cf.Config.User {
		t.Errorf("USER %q; make image: %q", user, cf.Config.User)
	}
	if !maps.Equal(exposed, cf.Config.ExposedPorts) {
		t.Errorf("EXPOSE %v; make image: %v", exposed, cf.Config.ExposedPorts)
	}
	if len(env) != len(cf.Config.Env) {
		t.Errorf("ENV %v; make image: %v", env, cf.Config.Env)
	}
	if !maps.Equal(labels, cf.Config.Labels) {
		t.Errorf("LABEL %v\nmake image: %v", labels, cf.Config.Labels)
	}
	if labels["org.opencontainers.image.licenses"] != "MIT" || labels["org.opencontainers.image.version"] != v {
		t.Errorf("labels %v", labels)
	}
	for name, pair := range map[string]struct {
		got  string
		want []string
	}{"ENTRYPOINT": {entrypoint, cf.Config.Entrypoint}, "CMD": {cmd, cf.Config.Cmd}} {
		var got []string
		if err := json.Unmarshal([]byte(pair.got), &got); err != nil || !slices.Equal(got, pair.want) {
			t.Errorf("%s %s; make image: %q", name, pair.got, pair.want)
		}
	}
}
