#!/usr/bin/env bash
# Checks the Windows build under Wine 8, on a private Xvfb display and a
# private PulseAudio server (Wine's audio goes through winepulse to its null
# sink), in a fresh Wine prefix:
#   0. the tests of the Windows-only packages (named pipe, data dir ACL,
#      the media keys' SMTC and hotkey paths) pass under Wine;
#   1. furudesk.exe --version prints the version;
#   2. furudesk.exe --headless scans a folder of FLAC, MP3, Ogg Vorbis,
#      WAV, AAC, ALAC and Opus tones, its log says it decodes with FFmpeg's
#      DLLs from beside the exe (when they were built), and furudesk.exe ctl
#      status answers over the named pipe; its log says the media keys
#      are global hotkeys (SMTC belongs to a window);
#   3. each tone is played and recorded from the null sink with parec: it
#      must be heard, at its pitch (tools/tonecheck, which also counts the
#      dropouts: a figure, not a failure, on a loaded machine);
#   3b. a copy of furudesk.exe without the DLLs beside it falls back to the
#      pure-Go decoders, says so in its log, plays the FLAC tone and leaves
#      the AAC one out of its library;
#   4. (given a Linux furudesk binary) the Windows device pairs with a Linux
#      headless device, and the output moves to Linux and back with the
#      position kept, each time heard on the right sink;
#   5. the window opens, plays a demo track, and a screenshot is kept
#      ($SHOT, build/windows/wine-window.png by default); its log says
#      which path the media keys take (Wine has no SMTC: the hotkeys), and
#      on the hotkey path the play/pause media key (xdotool key
#      XF86AudioPlay) pauses and resumes it as ctl status sees;
#   6. the installer (when given) installs silently (/S) per user with a
#      Start menu entry, the installed exe starts, and the uninstaller
#      removes it all silently.
# Go programs need ProcessPrng from bcryptprimitives.dll, which Debian's
# Wine 8 lacks: a stand-in (scripts/wine/bcryptprimitives.c, a test
# fixture never shipped) is built with mingw into the prefix's system32.
#
#   [GO=go] [XVFB_DISPLAY=N] scripts/test-windows.sh furudesk.exe [furudesk-setup.exe [linux-furudesk]]
# XVFB_DISPLAY: the display number to use (else Xvfb picks a free one).
# Needs scripts/install-deps.sh --windows. Not part of `make test`: CI runs
# `make test-windows` as a step of its own.
set -euo pipefail
exe=$(realpath "$1")
setup=${2:+$(realpath "$2")}
linux=${3:+$(realpath "$3")}
# Ports of the Windows and the Linux device (step 5), on 127.0.0.1.
port=${PORT_BASE:-19150}
here=$(cd "$(dirname "$0")" && pwd)
go=${GO:-go}
work=$(mktemp -d /tmp/furudesk-wine.XXXXXX)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  WINEPREFIX="$work/prefix" wineserver -k 2>/dev/null || true
  wait 2>/dev/null || true
  [ -n "${KEEP:-}" ] || rm -rf "$work"
}
trap cleanup EXIT
fail() {
  echo "test-windows: FAIL: $*"
  for f in "$work"/*.log; do [ -s "$f" ] && { echo "--- $f"; tail -n 30 "$f"; }; done
  exit 1
}
say() { echo "test-windows: $*"; }
winpath() { local p=${1//\//\\}; echo "Z:$p"; }

for tool in wine wineserver x86_64-w64-mingw32-gcc Xvfb xdotool pulseaudio pactl parec ffmpeg "$go"; do
  command -v "$tool" >/dev/null || fail "$tool missing: run scripts/install-deps.sh --windows"
done
# What the recordings are judged with (tools/tonecheck: pitch, dropouts).
(cd "$here/.." && "$go" build -o "$work/tonecheck" ./tools/tonecheck) || fail "cannot build tools/tonecheck"

# A display of our own: Xvfb picks a free number.
if [ -n "${XVFB_DISPLAY:-}" ]; then
  Xvfb ":$XVFB_DISPLAY" -displayfd 3 -screen 0 1280x800x24 -nolisten tcp 3>"$work/display" >"$work/xvfb.log" 2>&1 &
else
  Xvfb -displayfd 3 -screen 0 1280x800x24 -nolisten tcp 3>"$work/display" >"$work/xvfb.log" 2>&1 &
fi
pids+=($!)
for _ in $(seq 1 100); do [ -s "$work/display" ] && break; sleep 0.1; done
[ -s "$work/display" ] || fail "Xvfb did not start"
export DISPLAY=":$(cat "$work/display")"

# PulseAudio of our own with one null sink (pulsetest's recipe).
run="$work/run"; mkdir -p "$run" "$work/home"; chmod 700 "$run"
export XDG_RUNTIME_DIR="$run" HOME="$work/home" PULSE_SERVER="unix:$run/pulse.sock"
printf 'autospawn = no\n' >"$work/client.conf"; export PULSE_CLIENTCONFIG="$work/client.conf"
printf 'load-module module-native-protocol-unix auth-anonymous=1 socket=%s\nload-module module-null-sink sink_name=win rate=44100 channels=2\nload-module module-null-sink sink_name=lin rate=44100 channels=2\nset-default-sink win\n' \
  "$run/pulse.sock" >"$work/pa.pa"
pulseaudio -n -F "$work/pa.pa" --daemonize=no --exit-idle-time=-1 --disallow-exit --use-pid-file=no >"$work/pulse.log" 2>&1 &
pids+=($!)
for _ in $(seq 1 100); do pactl info >/dev/null 2>&1 && break; sleep 0.1; done
pactl info >/dev/null 2>&1 || fail "pulseaudio did not start"

# The Wine prefix, with the ProcessPrng stand-in.
export WINEPREFIX="$work/prefix" WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml=" WINEARCH=win64
start=$SECONDS
wineboot -i >"$work/wineboot.log" 2>&1 || fail "wineboot failed"
x86_64-w64-mingw32-gcc -shared -O2 -o "$WINEPREFIX/drive_c/windows/system32/bcryptprimitives.dll" \
  "$here/wine/bcryptprimitives.c" "$here/wine/bcryptprimitives.def"
say "Wine prefix ready in $((SECONDS - start)) s ($(wine --version))"

# 0. The Windows-only code's own tests (the named pipe, the data dir ACL,
# the media keys), built without cgo in seconds.
for dir in cmd/furudesk/internal/ctlconn cmd/furudesk/internal/userdir smtc; do
  pkg=$(basename "$dir")
  (cd "$here/.." && CGO_ENABLED=0 GOOS=windows GOARCH=amd64 "$go" test -c -o "$work/$pkg.test.exe" "./$dir") ||
    fail "cannot build the $pkg tests for Windows"
  timeout 120 wine "$work/$pkg.test.exe" -test.v >"$work/$pkg-test.log" 2>&1 || fail "the $pkg tests failed under Wine: $(grep -E -- '--- FAIL|_test.go' "$work/$pkg-test.log" | head -5)"
  say "$pkg tests under Wine: $(grep -c -- '--- PASS' "$work/$pkg-test.log") passed, $(grep -c -- '--- SKIP' "$work/$pkg-test.log") skipped ($(grep -o 'Wine 8 [^;]*' "$work/$pkg-test.log" | head -1))"
done
say "smtc under Wine: $(tr -d '\r' <"$work/smtc-test.log" | sed -n 's/.*_test.go:[0-9]*: \(mode .*\) (Start took.*/\1/p' | paste -sd';' -)"

# 1. --version
ver=$(timeout 60 wine "$exe" --version 2>"$work/version.log" | tr -d '\r') || fail "furudesk.exe --version failed"
[[ "$ver" == furudesk\ * ]] || fail "furudesk.exe --version printed '$ver'"
say "--version: $ver"

# 2. --headless scans a folder; ctl answers over the pipe.
music="$work/music"; mkdir -p "$music"
# Each tone: its file and pitch; AAC, ALAC and Opus need FFmpeg's DLLs.
# With them missing (a build with -tags noffmpeg) only the first four.
dlls=$(ls "$(dirname "$exe")"/avcodec-*.dll 2>/dev/null || true)
kinds=(flac mp3 ogg wav)
[ -n "$dlls" ] && kinds+=(aac alac opus)
declare -A tones=([flac]=440 [mp3]=554 [ogg]=659 [wav]=880 [aac]=494 [alac]=587 [opus]=740)
declare -A files=([flac]=tone-440.flac [mp3]=tone-554.mp3 [ogg]=tone-659.ogg [wav]=tone-880.wav
  [aac]=tone-494.m4a [alac]=tone-587-alac.m4a [opus]=tone-740.opus)
declare -A codec=([aac]="-c:a aac -b:a 128k" [alac]="-c:a alac" [opus]="-c:a libopus -b:a 96k")
for k in "${kinds[@]}"; do
  # shellcheck disable=SC2086 # codec holds several words
  ffmpeg -loglevel error -f lavfi -i "sine=frequency=${tones[$k]}:sample_rate=44100:duration=20" -ac 2 ${codec[$k]:-} \
    -metadata title="tone ${tones[$k]}" -metadata artist="furudesk test" -metadata album="Wine" "$music/${files[$k]}"
done
data="$work/data"
wdata=$(winpath "$data")
peer=(); [ -n "$linux" ] && peer=(--peer "127.0.0.1:$((port + 1))")
wine "$exe" --headless --data-dir "$wdata" --music "$(winpath "$music")" --mdns=false --listen "127.0.0.1:$port" \
  --name "Wine" "${peer[@]}" \
  >"$work/headless.log" 2>&1 &
pids+=($!); app=$!
ctl() { timeout 60 wine "$exe" ctl --data-dir "$wdata" "$@" 2>>"$work/ctl.log" | tr -d '\r'; }
alive() { kill -0 "$app" 2>/dev/null || fail "furudesk.exe --headless exited"; }
# scanned CTL PID: waits up to 90 s for CTL status to show a finished scan.
scanned() {
  local deadline=$((SECONDS + 90)) st
  while [ $SECONDS -lt $deadline ]; do
    kill -0 "$2" 2>/dev/null || fail "furudesk.exe ($1) exited"
    st=$("$1" status || true)
    # (the files it could not read, a list of objects, taken out first)
    tr -d ' \n' <<<"$st" | sed 's/"failed":\[[^]]*\]//' | grep -q '"scan":{[^}]*"running":false' &&
      grep -q "\"folders\"" <<<"$st" && return 0
    sleep 0.5
  done
  fail "$1 status did not answer with a finished scan within 90 s"
}
scanned ctl "$app"
ntracks=$(ctl tracks | grep -c '"content_id"' || true)
[ "$ntracks" -eq "${#kinds[@]}" ] || fail "the library has $ntracks tracks, want ${#kinds[@]} (${kinds[*]})"
say "--headless: ctl status answers over the named pipe; scanned $ntracks tracks (${kinds[*]})"
# The log names the decoders (cmd/furudesk/wire.go), once the scan probed.
dec=$(grep -m1 -o 'decoders="[^"]*"' "$work/headless.log" | tr -d '\r' || true)
if [ -n "$dlls" ]; then
  grep -q '^decoders="FFmpeg [^"]*audio-only build in ' <<<"$dec" ||
    fail "furudesk.exe does not decode with the DLLs beside it: ${dec:-no decoders line in its log}"
else
  say "no FFmpeg DLLs beside $exe: AAC, ALAC and Opus are not checked"
fi
say "--headless: $dec"
# media_keys LOG: the log's line on the path the media keys take.
media_keys() { grep -m1 -o 'msg="media keys: [^"]*"' "$1" | tr -d '\r' || true; }
mk=$(media_keys "$work/headless.log")
grep -q 'media keys: SMTC unavailable (smtc: no window[^)]*); using global hotkeys' <<<"$mk" ||
  fail "furudesk.exe --headless does not say it takes the media keys as hotkeys: ${mk:-no media keys line in its log}"
say "--headless: $mk"

# heard SINK FREQ: records 3 s of SINK and says whether FREQ Hz is heard.
heard() {
  timeout 3 parec -d "$1.monitor" --format=s16le --rate=44100 --channels=2 --raw >"$work/rec-$1.raw" 2>>"$work/parec.log" || true
  "$work/tonecheck" -freq "$2" "$work/rec-$1.raw"
}
# Top-level fields of ctl status (two spaces in; nested objects have their
# own device ids and positions).
pos_of() { tr -d '\r' | sed -n 's/^  "position_ms": \([0-9]*\).*/\1/p'; }
id_of() { tr -d '\r' | sed -n 's/^  "device_id": "\([^"]*\)".*/\1/p'; }
rendering() { tr -d '\r' | grep -q '^  "rendering": true'; }

# 3. Each tone is heard at its pitch.
for k in "${kinds[@]}"; do
  f=${tones[$k]} file=${files[$k]}
  ctl play "$(winpath "$music/$file")" >/dev/null || fail "ctl play $file failed"
  deadline=$((SECONDS + 30)); pos=0
  while [ $SECONDS -lt $deadline ]; do
    alive
    s=$(ctl status)
    pos=$(pos_of <<<"$s")
    grep -q "\"title\": \"tone $f\"" <<<"$s" && grep -q '^  "playing": true' <<<"$s" && [ "${pos:-0}" -gt 1000 ] && break
    pos=0; sleep 0.3
  done
  [ "${pos:-0}" -gt 1000 ] || fail "$file does not play (status: $s)"
  h=$(heard win "$f") || fail "$file on the null sink: $h"
  say "played $file ($k): $h"
done

# 4. Pairing with a Linux device, and a transfer each way.
if [ -n "$linux" ]; then
  ldata="$work/linux"; mkdir -p "$ldata"; chmod 700 "$ldata"
  printf 'pcm.!default { type pulse }\nctl.!default { type pulse }\n' >"$HOME/.asoundrc"
  PULSE_SINK=lin "$linux" --headless --data-dir "$ldata" --music "$music" --mdns=false --listen "127.0.0.1:$((port + 1))" \
    --name "Linux" --peer "127.0.0.1:$port" >"$work/linux.log" 2>&1 &
  pids+=($!); lpid=$!
  lctl() { timeout 30 "$linux" ctl --data-dir "$ldata" "$@" 2>>"$work/ctl.log"; }
  for _ in $(seq 1 100); do lctl status >/dev/null 2>&1 && break; kill -0 "$lpid" || fail "the Linux device exited"; sleep 0.2; done
  code=$(lctl invite | tr -d ' \n' | sed -n 's/.*"code":"\([^"]*\)".*/\1/p')
  [ -n "$code" ] || fail "the Linux device gave no invite"
  ctl pair "$code" >/dev/null || fail "ctl pair on the Windows device failed"
  req=""
  for _ in $(seq 1 100); do
    req=$(lctl pairing | tr -d ' \n' | sed -n 's/.*"id":"\([^"]*\)".*/\1/p' | head -1)
    [ -n "$req" ] && break; sleep 0.2
  done
  [ -n "$req" ] || fail "the Windows device's pairing request never reached the Linux device"
  lctl accept "$req" >/dev/null || fail "accepting the Windows device failed"
  group=$(lctl status | sed -n 's/^  "group_id": "\([^"]*\)".*/\1/p')
  wid=$(ctl status | id_of); lid=$(lctl status | id_of)
  deadline=$((SECONDS + 60)); joined=""
  while [ $SECONDS -lt $deadline ]; do
    st=$(ctl status | tr -d ' \n')
    grep -q "\"group_id\":\"$group\"" <<<"$st" && grep -q "$lid" <<<"$st" && { joined=1; break; }
    sleep 0.5
  done
  [ -n "$joined" ] || fail "the Windows device did not join the Linux device's group within 60 s"
  say "paired: the Windows device ($wid) joined the Linux device's group ($lid)"

  # Windows plays; the output moves to Linux with the position kept.
  ctl play "$(winpath "$music/tone-440.flac")" >/dev/null || fail "ctl play before the transfer failed"
  for _ in $(seq 1 100); do p=$(ctl status | pos_of); [ "${p:-0}" -gt 4000 ] && break; sleep 0.3; done
  before=$(ctl status | pos_of)
  ctl transfer "$lid" >/dev/null || fail "ctl transfer to the Linux device failed"
  deadline=$((SECONDS + 30)); lp=0
  while [ $SECONDS -lt $deadline ]; do
    ls=$(lctl status)
    lp=$(pos_of <<<"$ls")
    rendering <<<"$ls" && [ "${lp:-0}" -ge "$before" ] && break
    lp=0; sleep 0.3
  done
  [ "${lp:-0}" -ge "$before" ] || fail "the Linux device did not take the output at ${before} ms or later"
  h=$(heard lin 440) || fail "after the transfer to Linux, on the Linux sink: $h"
  say "transfer Windows -> Linux at ${before} ms: Linux plays from ${lp} ms, $h"

  before=$(lctl status | pos_of)
  lctl transfer "$wid" >/dev/null || fail "ctl transfer back to the Windows device failed"
  deadline=$((SECONDS + 30)); wp=0
  while [ $SECONDS -lt $deadline ]; do
    ws=$(ctl status)
    wp=$(pos_of <<<"$ws")
    rendering <<<"$ws" && [ "${wp:-0}" -ge "$before" ] && break
    wp=0; sleep 0.3
  done
  [ "${wp:-0}" -ge "$before" ] || fail "the Windows device did not take the output back at ${before} ms or later"
  h=$(heard win 440) || fail "after the transfer back, on the Windows sink: $h"
  say "transfer Linux -> Windows at ${before} ms: Windows plays from ${wp} ms, $h"
  kill "$lpid" 2>/dev/null || true
fi

# There is no quit command: ending the prefix's processes ends it.
wineserver -k 2>/dev/null || true
wait "$app" 2>/dev/null || true

# 3b. The same exe without the DLLs beside it: the pure-Go decoders, said
# in the log, play the FLAC tone; the AAC one is named as needing FFmpeg.
if [ -n "$dlls" ]; then
  bare="$work/bare"; bmusic="$work/bare-music"; mkdir -p "$bare" "$bmusic"
  cp "$exe" "$bare/furudesk.exe"
  cp "$music/tone-440.flac" "$music/tone-494.m4a" "$bmusic/"
  bdata="$work/bare-data"; wbdata=$(winpath "$bdata")
  wine "$bare/furudesk.exe" --headless --data-dir "$wbdata" --music "$(winpath "$bmusic")" --mdns=false \
    --listen "127.0.0.1:$((port + 3))" --name "Bare" >"$work/bare.log" 2>&1 &
  pids+=($!); bpid=$!
  bctl() { timeout 60 wine "$bare/furudesk.exe" ctl --data-dir "$wbdata" "$@" 2>>"$work/ctl.log" | tr -d '\r'; }
  scanned bctl "$bpid"
  bdec=$(grep -m1 -o 'decoders="[^"]*"' "$work/bare.log" | tr -d '\r' || true)
  grep -q '^decoders="pure Go [^"]*FFmpeg not loaded: [^"]*avutil-[0-9]*\.dll' <<<"$bdec" ||
    fail "without the DLLs the log does not say it falls back: ${bdec:-no decoders line}"
  bn=$(bctl tracks | grep -c '"content_id"' || true)
  [ "$bn" -eq 1 ] || fail "without the DLLs the library has $bn tracks, want 1 (the FLAC; the AAC needs FFmpeg)"
  bctl status | tr -d ' \n' | grep -q 'tone-494.m4a","reason":"[^"]*needsFFmpeg' ||
    fail "without the DLLs the scan does not name the AAC file as needing FFmpeg"
  bctl play "$(winpath "$bmusic/tone-440.flac")" >/dev/null || fail "ctl play without the DLLs failed"
  for _ in $(seq 1 100); do p=$(bctl status | pos_of); [ "${p:-0}" -gt 1000 ] && break; sleep 0.3; done
  [ "${p:-0}" -gt 1000 ] || fail "without the DLLs the FLAC tone does not play"
  h=$(heard win 440) || fail "without the DLLs, the FLAC tone on the null sink: $h"
  say "without the DLLs: $bdec; $bn track (FLAC) of 2, the AAC named as needing FFmpeg; $h"
  wineserver -k 2>/dev/null || true
  wait "$bpid" 2>/dev/null || true
fi

# 5. The window opens, lists the demo tracks and plays one; the screenshot
# is kept ($SHOT).
shot=$(realpath -m "${SHOT:-build/windows/wine-window.png}")
gdata="$work/gui"; wgdata=$(winpath "$gdata")
wine "$exe" --data-dir "$wgdata" --mdns=false --listen "127.0.0.1:$((port + 2))" >"$work/window.log" 2>&1 &
pids+=($!); gui=$!
gctl() { timeout 60 wine "$exe" ctl --data-dir "$wgdata" "$@" 2>>"$work/ctl.log" | tr -d '\r'; }
deadline=$((SECONDS + 90)); win=""
while [ $SECONDS -lt $deadline ]; do
  kill -0 "$gui" 2>/dev/null || fail "furudesk.exe (the window) exited"
  win=$(xwininfo -root -tree 2>/dev/null | awk '/"furudesk": \("furudesk.exe"/ {print $1; exit}')
  [ -n "$win" ] && break
  sleep 0.5
done
[ -n "$win" ] || fail "no window titled furudesk within 90 s"
gctl demo >/dev/null || fail "ctl demo (the window) failed"
first=""
for _ in $(seq 1 120); do
  first=$(gctl tracks | sed -n 's/.*"content_id": *"\([^"]*\)".*/\1/p' | head -1)
  [ -n "$first" ] && break; sleep 0.5
done
[ -n "$first" ] || fail "the window's library has no demo tracks"
gctl play "$first" >/dev/null || fail "ctl play (the window) failed"
for _ in $(seq 1 100); do p=$(gctl status | pos_of); [ "${p:-0}" -gt 1500 ] && break; sleep 0.3; done
[ "${p:-0}" -gt 1500 ] || fail "the window does not play the demo track"
ok=""
for _ in $(seq 1 60); do
  mkdir -p "$(dirname "$shot")"
  import -window root "$shot"
  sd=$(convert "$shot" -colorspace Gray -format '%[fx:standard_deviation]' info:)
  colors=$(convert "$shot" -format '%k' info:)
  awk -v s="$sd" -v c="$colors" 'BEGIN { exit !(s > 0.05 && c > 64) }' && { ok=1; break; }
  sleep 0.5
done
[ -n "$ok" ] || fail "the window looks blank (gray stddev $sd, $colors colors; see $shot)"
say "window: opened, plays the demo (at ${p} ms); screenshot $shot (gray stddev $sd, $colors colors)"
# The media keys: the log says which path; on the hotkey path (Wine has
# no SMTC) the play/pause key, typed into the focused window, goes to
# wineserver's hotkeys and pauses, then resumes, the music.
mk=$(media_keys "$work/window.log")
[ -n "$mk" ] || fail "the window's log does not say which path the media keys take"
say "window: $mk"
# playing_is WANT: waits up to 10 s for ctl status to say playing WANT.
playing_is() {
  for _ in $(seq 1 30); do
    gctl status | grep -q "^  \"playing\": $1" && return 0
    sleep 0.3
  done
  return 1
}
if grep -q 'using global hotkeys' <<<"$mk"; then
  xdotool windowfocus --sync "$win" 2>/dev/null || xdotool windowfocus "$win"
  xdotool key XF86AudioPlay
  playing_is false || fail "the play/pause media key (a hotkey) did not pause the window's music"
  xdotool key XF86AudioPlay
  playing_is true || fail "the play/pause media key (a hotkey) did not resume the window's music"
  say "window: the play/pause media key (xdotool key XF86AudioPlay) paused and resumed it"
fi
# Its close button (WM_SYSCOMMAND SC_CLOSE, posted by a fixture: no window
# manager here): with "close to tray", Windows' default, the window goes
# and furudesk keeps running and answering.
x86_64-w64-mingw32-gcc -O2 -municode -o "$work/closewindow.exe" "$here/wine/closewindow.c" ||
  fail "cannot build the closewindow fixture"
timeout 30 wine "$work/closewindow.exe" furudesk || fail "closewindow found no window titled furudesk"
closed=""
for _ in $(seq 1 100); do
  grep -q 'window closed to the tray' "$work/window.log" && xwininfo -id "$win" 2>/dev/null | grep -q 'IsUnMapped' && { closed=1; break; }
  kill -0 "$gui" 2>/dev/null || break
  sleep 0.2
done
[ -n "$closed" ] || fail "closing the window did not hide it to the tray ($(xwininfo -id "$win" 2>&1 | grep 'Map State'))"
gctl status | grep -q '^  "playing": true' || fail "furudesk does not keep playing after its window was closed to the tray"
say "window: its close button hides it to the tray (unmapped), furudesk keeps playing and answering ctl"
wineserver -k 2>/dev/null || true
wait "$gui" 2>/dev/null || true # killed: its status is no news

# 6. The installer, silently, per user.
if [ -n "$setup" ]; then
  timeout 120 wine "$setup" /S >"$work/setup.log" 2>&1 || fail "the installer /S failed"
  inst="$WINEPREFIX/drive_c/users/$(id -un)/AppData/Local/Programs/furudesk"
  [ -d "$inst" ] || inst=$(find "$WINEPREFIX/drive_c/users" -type d -path '*AppData/Local/Programs/furudesk' | head -1)
  [ -f "$inst/furudesk.exe" ] || fail "the installer put no furudesk.exe under AppData\\Local\\Programs\\furudesk"
  for d in $dlls; do
    [ -f "$inst/$(basename "$d")" ] || fail "the installer put no $(basename "$d") beside furudesk.exe"
  done
  lnk=$(find "$WINEPREFIX/drive_c/users" -name 'furudesk.lnk' -path '*Start Menu*' | head -1)
  [ -n "$lnk" ] || fail "the installer made no Start menu entry"
  v2=$(timeout 60 wine "$inst/furudesk.exe" --version 2>/dev/null | tr -d '\r')
  [ "$v2" = "$ver" ] || fail "the installed furudesk.exe --version printed '$v2'"
  wine reg query 'HKCU\Software\Microsoft\Windows\CurrentVersion\Uninstall\furudesk' >/dev/null 2>&1 ||
    fail "the installer made no entry in Settings > Apps"
  say "installer /S: $(basename "$inst")\\furudesk.exe ($v2) and $(ls "$inst" | grep -c '\.dll$') FFmpeg DLLs, Start menu entry, uninstall entry"
  timeout 120 wine "$inst/uninstall.exe" /S >"$work/uninstall.log" 2>&1 || fail "the uninstaller /S failed"
  # NSIS's uninstaller copies itself to %TEMP% and returns at once.
  for _ in $(seq 1 100); do [ ! -e "$inst/furudesk.exe" ] && [ ! -e "$lnk" ] && break; sleep 0.2; done
  wineserver -w
  [ ! -e "$inst" ] || fail "the uninstaller left $(ls "$inst")"
  [ ! -e "$lnk" ] || fail "the uninstaller left the Start menu entry"
  if wine reg query 'HKCU\Software\Microsoft\Windows\CurrentVersion\Uninstall\furudesk' >/dev/null 2>&1; then
    fail "the uninstaller left its entry in Settings > Apps"
  fi
  say "uninstaller /S: the program, its Start menu entry and its uninstall entry are gone"
fi
say "PASS"
