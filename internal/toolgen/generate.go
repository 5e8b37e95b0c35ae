package toolgen

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
)

// Inputs, relative to the repository root.
const (
	ManifestFile = "tools.yaml"
	SpecFile     = "spec/audiobookshelf.yaml"
)

// Build loads, checks and renders from the repository at root.
func Build(root string) (map[string][]byte, error) {
	m, err := Load(filepath.Join(root, ManifestFile))
	if err != nil {
		return nil, err
	}
	spec, err := LoadSpec(filepath.Join(root, SpecFile))
	if err != nil {
		return nil, err
	}
	if err := Check(m, spec); err != nil {
		return nil, err
	}
	if err := CheckCode(root, m); err != nil {
		return nil, err
	}
	files, err := Render(m, spec)
	if err != nil {
		return nil, err
	}
	v, err := LoadVersions(filepath.Join(root, SpecFile), m)
	if err != nil {
		return nil, err
	}
	if files[VersionsFile], err = renderVersions(v); err != nil {
		return nil, err
	}
	pages, err := renderFigures(root, m)
	if err != nil {
		return nil, err
	}
	for name, b := range pages {
		if _, dup := files[name]; dup {
			return nil, fmt.Errorf("%s is generated whole and has figures too", name)
		}
		files[name] = b
	}
	return files, nil
}

// Stale lists the generated files under root that differ from files.
func Stale(root string, files map[string][]byte) []string {
	var stale []string
	for name, want := range files {
		got, err := os.ReadFile(filepath.Join(root, name))
		if err != nil || !bytes.Equal(got, want) {
			stale = append(stale, name)
		}
	}
	sort.Strings(stale)
	return stale
}

// Write writes files under root.
func Write(root string, files map[string][]byte) error {
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		path := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, files[name], 0o644); err != nil {
			return fmt.Errorf("writing %s: %w", name, err)
		}
	}
	return nil
}
