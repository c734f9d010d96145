// Package mpris publishes furudesk on the D-Bus session bus as an MPRIS2
// media player (org.mpris.MediaPlayer2.furudesk), so media keys, desktop
// widgets and playerctl show and control it.
//
// The server is a thin view of the app: every property is derived from the
// latest app.Status, and every method becomes one call on the Player (the
// app). It keeps no player state of its own. The caller's duties:
//
//  1. Call Serve once after the app has started, with the app as Player
//     (nil conn connects to the session bus of DBUS_SESSION_BUS_ADDRESS).
//  2. Pass Options.Raise and Options.Quit if the window can be raised or the
//     app quit from outside; both are called on D-Bus goroutines, so a Fyne
//     front end wraps them in fyne.Do.
//  3. Pass Options.ArtURL (NewCoverCache(dir, app.Cover, log).ArtURL) for
//     cover art in desktop widgets.
//  4. Cancel the context or call Close before closing the app.
//
// # Another device owns the output
//
// Nothing here knows about devices. While another device of the group owns
// the output, app.Status carries that owner's transport (playing, track,
// position, volume, shuffle, repeat) and the app routes Pause, Next, Seek,
// SetVolume... to the owner as stamped commands. So the media keys and
// playerctl of any device control whichever device is playing, and MPRIS
// reports what that device plays.
//
// # Mapping
//
//   - PlaybackStatus: "Stopped" when the queue is empty, else "Playing" or
//     "Paused". Stop pauses and seeks to the start (the app has no stopped
//     state with a track loaded).
//   - LoopStatus None/Track/Playlist is repeat off/one/all; Volume 0..1 is
//     volume 0..100; Rate is always 1 (setting 0 pauses).
//   - Metadata: mpris:trackid is /org/furudesk/track/<escaped content id>,
//     mpris:length in µs, xesam:title, xesam:artist, xesam:album,
//     mpris:artUrl from Options.ArtURL and xesam:url when the file is local.
//   - Position (µs) is the status position extrapolated by the time since
//     that status arrived while playing. Seeked is emitted when a new status
//     of the same track is more than SeekTolerance away from that estimate.
//   - PropertiesChanged carries every Player property that a new status
//     changed (never Position, as the specification demands).
//   - OpenUri plays a file:// URI now when the Player is an Opener
//     (SupportedUriSchemes is then file, SupportedMimeTypes the library's);
//     otherwise both are empty and OpenUri is refused.
//
// # Platforms
//
// MPRIS is a D-Bus protocol: Linux and the BSDs. Elsewhere the package
// builds, and Serve with a nil conn returns ErrUnsupported.
package mpris
