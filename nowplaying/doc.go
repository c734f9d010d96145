// Package nowplaying shows furudesk in macOS's Now Playing (the media
// keys, Control Center's and the menu bar's now-playing widget, the lock
// screen) through MediaPlayer.framework's MPRemoteCommandCenter and
// MPNowPlayingInfoCenter, called with purego (no cgo, so it type-checks
// and builds from Linux).
//
// It is the macOS side of the smtc package's OS-neutral core: smtc.Core
// derives from each app.Status what the OS shows, and smtc.Press and
// smtc.SeekTo map its controls to the Player. Like mpris and smtc it is a
// thin view of the app and keeps no player state of its own.
//
// # The pure part
//
// Plan, Entries, State, Enabled, Act and Position are plain Go, built and
// tested on every platform:
//
//  1. Plan takes each smtc.Push (what Core.Step returned for a status)
//     and returns an Update: the now-playing dictionary's Entries (keys
//     and NSString or NSNumber values), the MPNowPlayingPlaybackState,
//     which commands are enabled and whether the artwork changed. The OS
//     side sets exactly the parts the Update names.
//  2. Act maps a Command (one MPRemoteCommand) to the Player's control;
//     Position turns the seek event's positionTime into a Duration.
//
// macOS advances the elapsed time by the rate itself, so unlike smtc the
// session does not call Core.Tick: the dictionary is set again only when
// something in it changed, or the position jumped.
//
// # The OS side (macOS)
//
// Start loads MediaPlayer.framework with purego.Dlopen, registers an
// Objective-C class whose methods (Command.Action) answer the commands,
// and starts the session's goroutine, which owns the Core. AppKit and the
// command center belong to the main thread, which Fyne's event loop owns
// on macOS, so every call on the framework is queued through
// Options.Main; the commands arrive on the main thread too and are handed
// to the session's goroutine, which calls the Player. The caller's duties:
//
//  1. Call Start once the app's window loop runs, with Options.Main set
//     to fyne.Do (framegov.Do): nothing here may block the main thread,
//     and nothing waits for it, so Start may be called on it.
//  2. Pass Options.ArtURL (mpris.NewCoverCache(dir, app.Cover, log).ArtURL)
//     for the artwork.
//  3. Log the error of Start, or that Now Playing is used: the user can
//     tell then why the media keys do or do not work. What fails later on
//     the main thread (no command center) is logged by the session.
//  4. Call Close before the app closes; it clears the now-playing entry
//     (queued, so it runs only if the main loop still does; a process
//     that ends loses its entry anyway).
//
// Each func queued through Options.Main first checks that it runs on the
// main thread (NSThread isMainThread) and does nothing otherwise: once
// Fyne's loop has ended, fyne.Do runs its func on the caller's goroutine.
//
// A headless furudesk has no main run loop: Start returns ErrNoMainThread.
// Elsewhere than macOS Start returns ErrUnsupported.
//
// macOS gives the media keys to the app that most recently published
// now-playing info while playing; furudesk competes for them like any
// player, and has them only while a track is loaded.
//
// # Another device owns the output
//
// As with mpris and smtc: app.Status carries the owner's transport, and the
// app routes the controls to the owner.
package nowplaying
