# furudesk: `make run` starts the player, `make test` runs every check.
SHELL := /bin/bash
GO := $(shell scripts/ensure-go.sh)
VERSION := $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -X main.version=$(VERSION)
STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.8.2
FYNE := fyne.io/tools/cmd/fyne@v1.7.4
SEEDS ?= 100000
SOAK ?= 20m
BROWSE ?= 30m
PLAY_PHASE ?= 30s
export LANG ?= C.UTF-8

.PHONY: all deps test-deps ffmpeg build run test vet fmt-check crosscheck staticcheck unit unit-noffmpeg race smoke bench bench-go bench-desktop bench-large bench-play bench-reach bench-tools sim soak package clean test-web bench-web lab-reach package-windows test-windows deb deb-deps deb-check

all: build

deps:
	@scripts/install-deps.sh

test-deps:
	@scripts/install-deps.sh --test

# no_emoji: Fyne's bundled colour emoji font is left out. Fyne parses it
# once per text style the window uses (4.7 MB each, about 14 MB in all);
# an emoji in a title is drawn with the system's emoji font instead
# (fonts-noto-color-emoji on Debian and Ubuntu desktops).
BUILDTAGS := no_emoji

# A position-independent executable on Linux, as Debian builds its own
# (ASLR for the binary too; lintian's hardening-no-pie). Elsewhere Go's
# default.
BUILDMODE := $(if $(filter Linux,$(shell uname -s)),-buildmode=pie)

build: deps ffmpeg
	$(GO) build $(BUILDMODE) -tags "$(BUILDTAGS)" -ldflags "$(LDFLAGS)" -o bin/furudesk ./cmd/furudesk

# ffmpeg: FFmpeg's libraries for audio only (scripts/build-ffmpeg.sh), in
# bin/ffmpeg beside the binary, which loads them rather than the system's
# (those pull in about 120 other libraries: 24 MB of the window's memory).
# Built once, from the distribution's source package of the installed
# FFmpeg (about a minute). Without them (no source to be had)
# the system's are loaded: the build goes on.
ffmpeg: deps
	@GO=$(GO) scripts/build-ffmpeg.sh bin/ffmpeg || echo "make: FFmpeg's audio-only libraries were not built: furudesk loads the system's"

# The tests load the libraries furudesk ships with when they were built.
WITH_FFMPEG = if [ -d "$(CURDIR)/bin/ffmpeg" ]; then export FURUDESK_FFMPEG_DIR="$(CURDIR)/bin/ffmpeg"; fi;

## run: build and start the player (ARGS="--data-dir /tmp/x" to pass flags)
run: build
	./bin/furudesk $(ARGS)

## test: everything CI checks
test: test-deps fmt-check vet crosscheck staticcheck unit unit-noffmpeg race smoke deb-check

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

unit: ffmpeg
	$(WITH_FFMPEG) $(GO) test -count=1 ./...

# The build without FFmpeg (its pure-Go decoders, what macOS and Windows
# builds have unless built with -tags ffmpeg): decoding and scanning; the
# output tests are the same in both builds.
unit-noffmpeg:
	$(GO) vet -tags noffmpeg ./audio/ ./library/
	$(GO) test -count=1 -tags noffmpeg -skip 'TestCapture|TestNoAudioServer|TestStartupOnIdleSink' ./audio/ ./library/

race: ffmpeg
	$(WITH_FFMPEG) $(GO) test -count=1 -race $$(for d in engine app library grouplib devicesync; do [ -d $$d ] && echo ./$$d/...; done)

## test-web: the web player in a real Chromium (Debian's chromium,
## chromedp): pairing, browsing, transfers between two headless devices,
## a foreign origin, a revocation; screenshots in bin/web-e2e/
test-web: ffmpeg
	@scripts/install-deps.sh --web
	$(WITH_FFMPEG) $(GO) test -count=1 -tags chromium ./cmd/furudesk -run 'TestWebPlayer|TestWebHub' -v -timeout 10m

## bench-web: issue 34, the browser as the hub's output in a real Chromium
## (RUNS=10 runs each): "Play on this browser" and a transfer to the first
## sound on its sink, the gap between two queued tracks (bin/bench-web.txt)
RUNS ?= 10
bench-web: ffmpeg
	@scripts/install-deps.sh --web
	set -o pipefail; $(WITH_FFMPEG) FURUDESK_WEB_BENCH=$(RUNS) $(GO) test -count=1 -tags chromium ./cmd/furudesk -run 'TestWebHubBench' -v -timeout 30m | grep -E 'BENCH|run [0-9]+:|^(ok|FAIL|---)' | tee bin/bench-web.txt

## lab-reach: the NAT lab of issue 35 (root: network namespaces, nftables,
## PulseAudio; about two minutes): devices behind two NATs reach each other
## through the box; prints the figures (bin/lab-reach.txt)
lab-reach: ffmpeg test-deps
	@scripts/lab-reach.sh | tee bin/lab-reach.txt

smoke: build test-deps
	scripts/smoke.sh bin/furudesk bin/smoke.png

## bench: the benchmark report (bin/bench.txt): the Go benchmarks, then
## the real binary's desktop benchmarks (BROWSE=5m shortens the browsing)
bench: bench-go bench-desktop bench-large bench-play bench-web bench-reach

## bench-reach: issue 35, relay figures and the NAT lab's connectivity
## (the lab needs root; skipped without)
bench-reach: ffmpeg
	@mkdir -p bin
	set -o pipefail; scripts/bench-reach.sh | tee bin/bench-reach.txt

bench-go: deps ffmpeg
	@mkdir -p bin
	set -o pipefail; $(WITH_FFMPEG) $(GO) test -run '^$$' -bench . -benchmem -timeout 2h ./... | tee bin/bench.txt

bench-tools: build
	$(GO) build -o bin/deskbench ./tools/deskbench
	$(GO) build -o bin/fynefloor ./tools/fynefloor
	@scripts/install-deps.sh --bench

## bench-desktop: issue 18, a player that waits: CPU and RSS of the
## headless player and the window idle, playing, paused and hidden with
## 10,000 tracks, then $(BROWSE) of scripted browsing
bench-desktop: bench-tools
	set -o pipefail; scripts/bench-desktop.sh bin/deskbench bin/furudesk bin/fynefloor -mode idle -browse $(BROWSE) | tee bin/bench-desktop.txt

## bench-play: issue 37, the player's CPU per format next to ffmpeg's
bench-play: bench-tools
	set -o pipefail; scripts/bench-desktop.sh bin/deskbench bin/furudesk bin/fynefloor -mode play -phase $(PLAY_PHASE) | tee bin/bench-play.txt

## bench-large: issue 20, 100,000 tracks: scan, ctl, shutdown, the window
bench-large: bench-tools
	set -o pipefail; scripts/bench-desktop.sh bin/deskbench bin/furudesk bin/fynefloor -mode large | tee bin/bench-large.txt

## sim: the deterministic simulators of the engine and of the shared queue
## and position rules over many seeds
sim:
	$(GO) test ./engine/enginetest -run 'TestSim$$' -seeds=$(SEEDS) -timeout 0
	set -o pipefail; $(GO) test ./queue/queuetest -run 'TestSim$$' -seeds=$(SEEDS) -timeout 0 -v | grep -v '^=== RUN'

## soak: the chaos run of four devices (kill -9, SIGTERM, SIGSTOP, transfers,
## control bursts) for $(SOAK); it fails on an ownership change with a live
## owner, a rewind, a lost control or a silence beyond owner_timeout + 1 s.
soak: test-deps ffmpeg
	$(WITH_FFMPEG) $(GO) test -count=1 ./cmd/furudesk -run 'TestSoak$$' -soak=$(SOAK) -v -timeout 0

## package: the Linux release archive dist/furudesk.tar.xz (binary,
## furudesk.desktop, icon and an install Makefile) made by `fyne package`,
## with furudesk's own desktop entry (packaging/linux: MimeType, %U) and
## FFmpeg's audio-only libraries added (scripts/package-*.sh).
# FyneApp.toml is staged without its ID so the desktop file is named
# furudesk.desktop, the DesktopEntry that MPRIS announces; the stub Go file
# is there because fyne package wants Go code in its directory even when it
# packages a built binary (-exe).
package: build
	rm -rf dist/stage && mkdir -p dist/stage
	printf 'package stage\n' >dist/stage/stage.go
	sed -e '/^[[:space:]]*ID[[:space:]]*=/d' -e 's|^\([[:space:]]*Icon[[:space:]]*=\).*|\1 "icon.png"|' FyneApp.toml >dist/stage/FyneApp.toml
	cp assets/icon.png dist/stage/icon.png
	cd dist/stage && $(GO) run $(FYNE) package -os linux -release -exe ../../bin/furudesk -name furudesk -icon icon.png
	mv dist/stage/furudesk.tar.xz dist/furudesk.tar.xz && rm -rf dist/stage
	scripts/package-desktop.sh dist/furudesk.tar.xz packaging/linux/furudesk.desktop
	scripts/package-ffmpeg.sh dist/furudesk.tar.xz bin/ffmpeg
	@list=$$(tar -tJf dist/furudesk.tar.xz); \
	for f in Makefile usr/local/bin/furudesk usr/local/share/applications/furudesk.desktop usr/local/share/pixmaps/furudesk.png; do \
	  grep -qx "furudesk/$$f" <<<"$$list" || { echo "package: furudesk/$$f missing from dist/furudesk.tar.xz:"; echo "$$list"; exit 1; }; done
	@echo "package: dist/furudesk.tar.xz"

## deb: the Debian package dist/furudesk_VERSION_ARCH.deb (dpkg-deb; Depends
## from dpkg-shlibdeps), installing to /usr (scripts/build-deb.sh)
deb: build deb-deps
	scripts/build-deb.sh bin/furudesk bin/ffmpeg "$(VERSION)" dist

deb-deps:
	@scripts/install-deps.sh --deb

## deb-check: the package's contents, metadata and validators, and its
## binary run from the unpacked package; with CI=true also installed with
## apt-get, run from /usr/bin and removed (scripts/check-deb.sh)
deb-check: deb
	scripts/check-deb.sh dist/furudesk_*.deb

## package-windows: the Windows release built on Linux with mingw-w64 and
## NSIS: dist/furudesk-windows-amd64.zip and dist/furudesk-windows-amd64-setup.exe
## with FFmpeg's audio-only DLLs beside furudesk.exe (cross-built once into
## build/windows/ffmpeg by scripts/build-ffmpeg.sh --windows, then kept)
## (scripts/package-windows.sh; about 6.5 minutes cold on 2 cores)
package-windows:
	@scripts/install-deps.sh --windows
	scripts/package-windows.sh $(VERSION) $(GO)

## test-windows: the Windows build under Wine on Xvfb with a private
## PulseAudio, paired with the Linux build (scripts/test-windows.sh); not
## part of `make test`, CI runs it as a step of its own after the main suite
test-windows: package-windows build
	GO=$(GO) scripts/test-windows.sh build/windows/furudesk.exe dist/furudesk-windows-amd64-setup.exe bin/furudesk

clean:
	rm -rf bin build
