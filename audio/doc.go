// Package audio plays the local queue on this machine's default output and
// reports what the speakers really do.
//
// It decodes with FFmpeg's libraries (ffmpeg.go), or without them MP3, Ogg
// Vorbis and WAV with ebiten's decoders and FLAC with github.com/mewkiz/flac
// (decoders_go.go), converts everything to one output rate (16-bit stereo),
// and plays this package's mixer on the default device: on Linux through
// ALSA written by a C thread of its own (alsa_linux.go says why), elsewhere
// through github.com/ebitengine/oto/v3 — the library under ebiten's audio
// package — with one always-playing oto player. The mixer streams the
// current track, runs into the prepared next track without a gap, and
// writes silence when paused, stopped or starved. Because the device keeps pulling samples (silence
// included) while it is in use the package can measure, at any time:
//
//   - available: the device opened without error and is consuming samples
//     (the device took more than its prefill, and the number of frames
//     handed to it advanced within Options.StallTimeout, so the brief
//     stalls PulseAudio imposes when other clients come and go are not
//     outages; a newly opened device gets Options.StartupGrace to start,
//     during which it is neither available nor failed; a device error
//     counts at once);
//   - playing: available, and the frames the device consumed last were track
//     samples (not the silence of pause, stop or a starved decoder);
//   - position: the track position of the last frame the device consumed
//     (frames read from the mixer minus the frames still buffered before
//     the device).
//
// A device with nothing to play (no track, or paused) for
// Options.IdleSuspend is suspended: it stops pulling samples, so an idle
// player does not wake the process and the sound server hundreds of times
// a second, and the output reports the availability it measured last (a
// device error still counts at once) until the next Play or Resume starts
// it again, when stalls are judged as before.
//
// ebiten's own audio.Player is not used: its Position only advances inside
// ebiten's game loop, and its context hides the device error (see
// PLATFORM.md). Nothing here needs the game loop.
//
// The caller's duties:
//
//  1. Call Open once per process (oto allows one context per process). A
//     device that cannot be opened is not an Open error: the Output reports
//     Available=false with the device error, in Report and as an
//     Availability event. It never becomes available later in this process.
//  2. Drain Events. When its buffer is full, events are dropped (counted in
//     Report().DroppedEvents); Report always tells the truth now.
//  3. Call Play, Pause, Resume, Stop, Seek, SetVolume, PrepareNext and
//     ClearNext from any goroutine. None blocks for long, none panics on bad
//     input: opening and decoding happen on a goroutine per track, and
//     failures arrive as DecodeError events.
//  4. Call PrepareNext while a track plays so the next one starts without a
//     gap, and ClearNext when nothing may follow any more; on Finished (or
//     DecodeError) the app decides what comes after.
//  5. Feed Report() to the engine's heartbeat.
package audio
