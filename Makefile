# The interface to this repository. `make test` is what CI runs.
GO ?= go
BIN := bin/audiobookshelf-mcp
# The version `make build` stamps: the release tag on HEAD less its "v"
# (v1.2.3 stamps 1.2.3), else 0.0.0-dev+COMMIT (cmd/release -print-version;
# worked out once, when first used).
VERSION ?= $(eval VERSION := $(shell $(GO) run ./cmd/release -print-version 2>/dev/null || echo 0.0.0-dev))$(VERSION)
LDFLAGS := -s -w -X main.version=$(VERSION)
# The date every file of the release archives and the image carries (Unix
# seconds): the last commit's, so the same commit and Go give the same bytes.
SOURCE_DATE_EPOCH ?= $(shell git log -1 --format=%ct 2>/dev/null || echo 946684800)
# Every go command here (and those the tests start) builds as the release
# does, static and -trimpath: vet, staticcheck, the test binaries, make
# build, the release's and the bundle's builds and a scratch copy of the
# repository then share one compiled copy of each package in the build
# cache, where mixed settings compiled everything two or three times (only
# make test-race, which needs cgo, builds another).
export CGO_ENABLED := 0
export GOFLAGS := $(strip -trimpath $(filter-out -trimpath,$(GOFLAGS)))

.PHONY: all build generate views check-generated test test-race test-views test-short test-interop test-packaging test-live spec-drift vet bench run demo clean release release-local image upload-release push-image publish-registry mcp-publisher

all: build

build:
	$(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/audiobookshelf-mcp

# Regenerate everything generated: the typed client (oapi-codegen, from
# spec/), then the argument decoders, registrations, docs and the MCP Bundle's
# manifest template (cmd/toolgen, from tools.yaml and spec/), then
# server.json (cmd/release, from tools.yaml, main.go's version and the
# configuration reference of internal/config).
generate: views
	$(GO) generate ./gen/abs
	$(GO) run ./cmd/toolgen
	$(GO) run ./cmd/release -generate

# The MCP Apps views (docs/apps.md): views/src built into one self-contained
# page each, views/dist/NAME.html, which the binary embeds; esbuild and the
# extension's packages pinned in views/package-lock.json, no timestamp, so
# the same sources make the same bytes (the views' tests check it).
views: views/node_modules/.package-lock.json
	cd views && node build.mjs

views/node_modules/.package-lock.json: views/package-lock.json views/package.json
	cd views && npm ci --no-audit --no-fund

# Fails when a generated file is not what the generators make now. The test
# run checks the same (internal/toolgen and gen/abs drift tests).
check-generated: views/node_modules/.package-lock.json
	$(GO) run ./cmd/toolgen -check
	$(GO) run ./cmd/release -check
	cd views && node build.mjs --check

# A release of the tagged commit: refused, saying why, when HEAD has no tag
# vX.Y.Z (or tracked files differ from it). Into dist/, emptied first, only
# what is uploaded: for linux, darwin and windows on amd64 and arm64 the
# static binary (CGO off, -trimpath, the tag's version stamped) as a .tar.gz
# (.zip for windows) unpacking into audiobookshelf-mcp_VERSION_OS_ARCH/ with
# LICENSE and README.txt; the MCP Bundle for Claude Desktop (.mcpb); the
# container image as an OCI layout tarball; server.json with the bundle's
# SHA-256 (the one to publish); SHA256SUMS of all of them. The binaries are
# built under build/.
# RELEASE_FLAGS: more flags of cmd/release (the tests: -version, -platforms).
DIST ?= dist
BUILD_DIR ?= build
release:
	$(GO) run ./cmd/release -date $(SOURCE_DATE_EPOCH) -out $(DIST) -work $(BUILD_DIR) $(RELEASE_FLAGS)

# The same from any commit, stamped 0.0.0-dev+COMMIT when HEAD has no release
# tag: to try the archives and the bundle. Without server.json; never
# published.
release-local:
	$(GO) run ./cmd/release -dev -date $(SOURCE_DATE_EPOCH) -out $(DIST) -work $(BUILD_DIR) $(RELEASE_FLAGS)

# The container image alone (linux/amd64 and linux/arm64), built without a
# daemon, as an OCI layout tarball in dist/ (SHA256SUMS rewritten), stamped
# as make build stamps. `docker load` or `podman load` reads it. The
# Dockerfile makes the same image with Docker.
image:
	$(GO) run ./cmd/release -image -dev -date $(SOURCE_DATE_EPOCH) -out $(DIST) -work $(BUILD_DIR) $(RELEASE_FLAGS)

# Publishing what make release wrote, the steps of the release workflow
# (.github/workflows/release.yml). Each first checks dist/: the whole
# release of the tag on HEAD, SHA256SUMS matching, the bundle and
# server.json carrying that version. DRY_RUN=1 checks and says what it would
# do, and sends nothing.
#
# upload-release: every file of dist/ to the GitHub release of the tag
# (the gh CLI, GH_TOKEN). push-image: the image, both platforms, to
# IMAGE_REPOSITORY:VERSION with go-containerregistry, no daemon
# (REGISTRY_USERNAME and REGISTRY_PASSWORD, else docker login's).
# publish-registry: dist/server.json to the MCP registry with its official
# publisher (make mcp-publisher), logged in by the workflow's GitHub OIDC
# token.
IMAGE_REPOSITORY ?= ghcr.io/audiobookshelf-mcp/audiobookshelf-mcp
MCP_PUBLISHER_VERSION ?= v1.4.0
MCP_PUBLISHER ?= $(BUILD_DIR)/tools/publisher
DRY_RUN_FLAG = $(if $(DRY_RUN),-dry-run)
upload-release:
	$(GO) run ./cmd/release -upload $(DRY_RUN_FLAG) -out $(DIST) $(RELEASE_FLAGS)

push-image:
	$(GO) run ./cmd/release -push-image $(DRY_RUN_FLAG) -repository $(IMAGE_REPOSITORY) -out $(DIST) $(RELEASE_FLAGS)

publish-registry:
	$(GO) run ./cmd/release -publish-registry $(DRY_RUN_FLAG) -publisher $(MCP_PUBLISHER) -out $(DIST) $(RELEASE_FLAGS)

# The MCP registry's publisher, the pinned release of its Go module
# (checked against the Go checksum database), into build/tools/.
mcp-publisher:
	GOBIN=$(abspath $(BUILD_DIR)/tools) $(GO) install github.com/modelcontextprotocol/registry/cmd/publisher@$(MCP_PUBLISHER_VERSION)

# go vet, then staticcheck (pinned in go.mod's tool block, run with go tool
# like oapi-codegen, so no global install).
vet:
	$(GO) vet ./...
	$(GO) tool staticcheck ./...

# The whole suite: every Go test, then the official TypeScript MCP clients
# (from npm, pinned in interop/package-lock.json) against the built binary,
# then the MCP Bundle with the official mcpb tool (pinned in
# packaging/package-lock.json), then the views in headless Chromium (said
# plainly, and skipped, where Chromium is not installed). The same Go tests
# under the race detector are `make test-race`, which CI runs after it.
test: vet
	$(GO) test -count=1 ./...
	$(MAKE) test-interop
	$(MAKE) test-packaging
	$(MAKE) test-views

# The MCP Apps views: views/dist is what views/src makes now, and each view,
# rendered by headless Chromium (Debian's chromium; CHROMIUM=path for
# another) in a test host built on the extension's AppBridge, shows what
# its tool answered the built binary (--demo). With ABS_LIVE=1,
# AUDIOBOOKSHELF_URL and AUDIOBOOKSHELF_API_KEY, against that Audiobookshelf
# too (it only reads). VIEWS_SCREENSHOTS=docs/apps saves the pictures of
# docs/apps.md.
test-views: build views/node_modules/.package-lock.json
	cd views && ABS_MCP_BIN=$(abspath $(BIN)) node --test

# Four test files at once: each starts its own servers and gateways on free
# ports, and mostly waits on them (Node's default is one file at a time on a
# 2-core machine).
test-interop: build interop/node_modules/.package-lock.json
	cd interop && ABS_MCP_BIN=$(abspath $(BIN)) node --test --test-concurrency=4

interop/node_modules/.package-lock.json: interop/package-lock.json interop/package.json
	cd interop && npm ci --no-audit --no-fund

# mcpb validate on the manifest template; a bundle packed for this platform
# by cmd/release, unpacked by mcpb and started as Claude Desktop would.
test-packaging: packaging/node_modules/.package-lock.json
	cd packaging && GO=$(GO) node --test

packaging/node_modules/.package-lock.json: packaging/package-lock.json packaging/package.json
	cd packaging && npm ci --no-audit --no-fund

# The contract run against a real, throwaway Audiobookshelf: every tool of the
# built binary over stdio, every answer validated against spec/ by a
# recording proxy (internal/live). Needs AUDIOBOOKSHELF_URL and
# AUDIOBOOKSHELF_API_KEY; it makes "contract-" fixtures and removes them.
#
# make test-live ABS_LIVE_SCALE=1 runs the budget check on a big library
# instead (TestLiveScale): when the first book library has fewer than 3,000
# authors, metadata patches of its books add authors (375 to a book), genres
# and tags until it has; then every read tool is called with its widest
# arguments and held to the result budget, every paged list walked to its
# end (internal/scalecheck).
# Without it, every live test but the scale one runs (a test added to
# internal/live is in the run without being named here).
#
# make test-live ABS_SRC=path/to/audiobookshelf.tar.gz (a release archive or
# a source folder) runs it against a throwaway Audiobookshelf built from it,
# on a free port with its data in a temporary folder, removed afterwards
# (internal/live/throwaway-abs.sh; the built node modules are kept in
# ~/.cache/audiobookshelf-mcp).
LIVE_SELECT := $(if $(filter 1,$(ABS_LIVE_SCALE)),-run '^TestLiveScale$$',-skip '^TestLiveScale$$')
LIVE_THROWAWAY := $(if $(ABS_SRC),internal/live/throwaway-abs.sh run $(abspath $(ABS_SRC)) --)
test-live: build
	$(LIVE_THROWAWAY) env ABS_LIVE=1 ABS_LIVE_SCALE=$(ABS_LIVE_SCALE) ABS_MCP_BIN=$(abspath $(BIN)) $(GO) test -count=1 -timeout 30m -v $(LIVE_SELECT) ./internal/live/

# Routes of an Audiobookshelf source tree or release archive against spec/
# (cmd/specdrift). Exits 1 when a route a tool uses has gone or changed.
spec-drift:
	@test -n "$(ABS_SRC)" || { echo "make spec-drift ABS_SRC=path/to/audiobookshelf (a checkout or a release .tar.gz)" >&2; exit 2; }
	$(GO) run ./cmd/specdrift $(abspath $(ABS_SRC))

# Every Go test under the race detector (cgo on, as it needs; CI runs it
# after make test).
test-race:
	CGO_ENABLED=1 $(GO) test -race -count=1 ./...

# The quick loop while working: the Go tests but the few that compile or
# copy the whole repository (TestContributingAddsAReadTool, the oapi-codegen
# drift check) or write 17 MB.
test-short:
	$(GO) test -short -count=1 ./...

# One table of measurements of the built binary (bench/cmd/benchtable):
# start-up against an empty go-sdk server, tools/list size, compact against
# full results, overhead per call (six read tools against the stand-in),
# throughput over streamable HTTP, memory. Prints it and writes it to
# $(BENCH_OUT) with the date and machine. Not part of make test (go vet and
# go test only compile it). BENCHFLAGS=-quick for a short run while
# developing (then BENCH_OUT= keeps RESULTS.md as it is);
# BENCHFLAGS=-sections=readtools for the read tools alone.
#
# make bench AUDIOBOOKSHELF_URL=... AUDIOBOOKSHELF_API_KEY=... measures the
# six read tools against that Audiobookshelf too (it only reads). The key
# reaches bin/benchtable alone, which takes it out of its environment before
# it starts anything and gives it to the measured server only: the builds
# run without it, and without MAKEFLAGS, where make keeps the variables
# given on its command line.
BENCH_OUT ?= bench/RESULTS.md
WITHOUT_KEY := env -u AUDIOBOOKSHELF_API_KEY -u AUDIOBOOKSHELF_URL -u MAKEFLAGS -u MFLAGS
bench:
	$(WITHOUT_KEY) $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/audiobookshelf-mcp
	$(WITHOUT_KEY) $(GO) build -o bin/benchtable ./bench/cmd/benchtable
	env -u MAKEFLAGS -u MFLAGS bin/benchtable -bin $(BIN) $(if $(BENCH_OUT),-out $(BENCH_OUT)) $(BENCHFLAGS)

# Serve over stdio with the configuration from the environment.
run: build
	./$(BIN)

# Serve the built-in sample library over stdio.
demo: build
	./$(BIN) --demo

clean:
	rm -rf bin build dist
