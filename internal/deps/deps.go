//go:build tools

// Package deps pins the modules the project's packages use while they are
// being written, so that go.sum stays complete. It is never built.
package deps

import (
	_ "fyne.io/fyne/v2/app"
	_ "fyne.io/fyne/v2/test"
	_ "fyne.io/fyne/v2/widget"
	_ "github.com/cockroachdb/datadriven"
	_ "github.com/dhowden/tag"
	_ "github.com/ebitengine/oto/v3"
	_ "github.com/fsnotify/fsnotify"
	_ "github.com/godbus/dbus/v5"
	_ "github.com/hajimehoshi/ebiten/v2/audio"
	_ "github.com/hajimehoshi/ebiten/v2/audio/mp3"
	_ "github.com/hajimehoshi/ebiten/v2/audio/vorbis"
	_ "github.com/hajimehoshi/ebiten/v2/audio/wav"
	_ "github.com/hashicorp/mdns"
	_ "github.com/mewkiz/flac"
	_ "lukechampine.com/blake3"
	_ "modernc.org/sqlite"
)
