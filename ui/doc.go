// Package ui is the furudesk window: library, queue, now playing, devices,
// pairing and settings. It renders the app's Status and sends typed intents
// to the app through Backend; it does no I/O of its own, and reaches widgets
// from other goroutines only through fyne.Do.
//
// Menus and dialogs open through popup.go (on the window's canvas, with
// Escape and Enter); Inspect describes the window for `furudesk ctl window`
// and the real-window tests; tests drive a UI over the fake Backend of
// ui/internal/fakebackend.
package ui
