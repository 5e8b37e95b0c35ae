# The interface to this repository. `make test` is what CI runs.
GO ?= go
BIN := bin/audiobookshelf-mcp
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -s -w -X main.version=$(VERSION)

.PHONY: all build generate check-generated test test-short test-interop vet bench run demo clean

all: build

build:
	$(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/audiobookshelf-mcp

# Regenerate everything generated: the typed client (oapi-codegen, from
# spec/), then the argument decoders, registrations and docs (cmd/toolgen,
# from tools.yaml and spec/).
generate:
	$(GO) generate ./gen/abs
	$(GO) run ./cmd/toolgen

# Fails when a generated file is not what the generators make now. The test
# run checks the same (internal/toolgen and gen/abs drift tests).
check-generated:
	$(GO) run ./cmd/toolgen -check

vet:
	$(GO) vet ./...

# The whole suite: the Go tests with the race detector, then the official
# TypeScript MCP clients (from npm, pinned in interop/package-lock.json)
# against the built binary.
test: vet
	$(GO) test -race -count=1 ./...
	$(MAKE) test-interop

test-interop: build interop/node_modules/.package-lock.json
	cd interop && ABS_MCP_BIN=$(abspath $(BIN)) node --test

interop/node_modules/.package-lock.json: interop/package-lock.json interop/package.json
	cd interop && npm ci --no-audit --no-fund

test-short:
	$(GO) test -count=1 ./...

# One table of measurements of the built binary (bench/cmd/benchtable):
# start-up against an empty go-sdk server, tools/list size, compact against
# full results, overhead per call, throughput over streamable HTTP, memory.
# Prints it and writes it to $(BENCH_OUT) with the date and machine. Not part
# of make test (go vet and go test only compile it). BENCHFLAGS=-quick for a
# short run while developing (then BENCH_OUT= keeps RESULTS.md as it is).
BENCH_OUT ?= bench/RESULTS.md
bench: build
	$(GO) run ./bench/cmd/benchtable -bin $(BIN) $(if $(BENCH_OUT),-out $(BENCH_OUT)) $(BENCHFLAGS)

# Serve over stdio with the configuration from the environment.
run: build
	./$(BIN)

# Serve the built-in sample library over stdio.
demo: build
	./$(BIN) --demo

clean:
	rm -rf bin
