// Package smtc shows furudesk in Windows' System Media Transport Controls
// (the media keys, the volume flyout's now-playing card, the lock screen)
// and, where those cannot be had (Windows 7, Wine), takes the media keys
// as global hotkeys.
//
// Like mpris on Linux it is a thin view of the app: everything shown is
// derived from the latest app.Status, and every button becomes one call on
// the Player (the app). It keeps no player state of its own.
//
// # The pure core
//
// Core and Press are plain Go, built and tested on every platform:
//
//  1. Core.Step takes each new app.Status (and the time it arrived) and
//     returns a Push: the Display the OS should show now and which of its
//     parts changed (playback status, enabled buttons, properties, the
//     thumbnail, the timeline). The caller pushes exactly those parts, then
//     calls Step again with the next status; nothing is pushed twice.
//  2. Core.Tick is Step with the last status at a later time: while the
//     music plays it pushes the timeline every TimelineRefresh, since the
//     OS does not advance the position by itself.
//  3. Press maps a button (an SMTC button or a hotkey's) to the Player's
//     control; SeekTo maps the OS's seek bar. HotkeyButton maps a virtual
//     key of the hotkey path to its button.
//
// # The OS side (Windows)
//
// Start runs one OS thread of its own (COM in the multithreaded
// apartment). With a window handle it asks combase for the SMTC of that
// window (ISystemMediaTransportControlsInterop.GetForWindow) and pushes
// what Core says; the OS calls the button and seek handlers on threads of
// its pool, which hand the press to that thread. Without SMTC (no window,
// or the factory or GetForWindow refused) it registers VK_MEDIA_PLAY_PAUSE,
// VK_MEDIA_NEXT_TRACK, VK_MEDIA_PREV_TRACK and VK_MEDIA_STOP with
// RegisterHotKey and maps WM_HOTKEY to the same controls. Session.Mode
// says which path is in use and Session.Reason why SMTC is not; neither is
// ever fatal. The caller's duties:
//
//  1. Call Start once the window exists (its HWND from Fyne's
//     driver.NativeWindow), or with HWND 0 for the hotkeys only.
//  2. Pass Options.ArtURL (mpris.NewCoverCache(dir, app.Cover, log).ArtURL)
//     for the thumbnail.
//  3. Log Session.Mode and Session.Reason: the user can tell then why the
//     media keys do or do not work.
//  4. Call Close before the app closes; the OS shows the player as closed.
//
// Elsewhere Start returns ErrUnsupported.
//
// # Another device owns the output
//
// As with mpris: app.Status carries the owner's transport, and the app
// routes the controls to the owner, so the media keys of this PC control
// whichever device of the group plays.
package smtc
