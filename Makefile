# furudesk: `make run` starts the player, `make test` runs every check.
SHELL := /bin/bash
GO := $(shell scripts/ensure-go.sh)
VERSION := $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -X main.version=$(VERSION)
STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.8.2
SEEDS ?= 100000
export LANG ?= C.UTF-8

.PHONY: all deps test-deps build run test vet fmt-check crosscheck staticcheck unit race smoke bench sim clean

all: build

deps:
	@scripts/install-deps.sh

test-deps:
	@scripts/install-deps.sh --test

build: deps
	$(GO) build -ldflags "$(LDFLAGS)" -o bin/furudesk ./cmd/furudesk

## run: build and start the player (ARGS="--data-dir /tmp/x" to pass flags)
run: build
	./bin/furudesk $(ARGS)

## test: everything CI checks
test: test-deps fmt-check vet crosscheck staticcheck unit race smoke

fmt-check:
	@out=$$($(GO)fmt -l . 2>&1); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet ./...

# furudesk ships for macOS and Windows too: type-check the tree for them so
# platform-specific code cannot rot unseen (cgo off; oto uses purego there,
# the ci tag gives Fyne its cgo-free driver).
# Fyne's darwin widgets need cgo even with the ci tag, so on darwin the
# packages that import Fyne (ui, cmd) are left to a real macOS build.
crosscheck:
	CGO_ENABLED=0 GOOS=windows GOARCH=amd64 $(GO) vet -tags ci ./...
	CGO_ENABLED=0 GOOS=darwin GOARCH=arm64 $(GO) vet -tags ci $$(CGO_ENABLED=0 GOOS=darwin GOARCH=arm64 \
	  $(GO) list -tags ci -f '{{.ImportPath}} {{join .Deps " "}}' ./... | awk '!/fyne.io\/fyne/ {print $$1}')

staticcheck:
	$(GO) run $(STATICCHECK) ./...

unit:
	$(GO) test -count=1 ./...

race:
	$(GO) test -count=1 -race $$(for d in engine app; do [ -d $$d ] && echo ./$$d/...; done)

smoke: build
	scripts/smoke.sh bin/furudesk bin/smoke.png

## bench: the benchmark report
bench: deps
	@mkdir -p bin
	$(GO) test -run '^$$' -bench . -benchmem ./... | tee bin/bench.txt

## sim: the engine's deterministic simulator over many seeds
sim:
	$(GO) test ./engine/enginetest -run 'TestSim$$' -seeds=$(SEEDS) -timeout 0

clean:
	rm -rf bin
