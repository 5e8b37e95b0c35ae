package registry

// The registry, gen/toolargs and docs/ are generated from tools.yaml and
// spec/audiobookshelf.yaml by cmd/toolgen.
//go:generate go run ../../cmd/toolgen -root ../..
