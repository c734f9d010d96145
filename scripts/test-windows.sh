#!/usr/bin/env bash
# Checks the Windows build under Wine 8, on a private Xvfb display and a
# private PulseAudio server (Wine's audio goes through winepulse to its null
# sink), in a fresh Wine prefix:
#   1. furudesk.exe --version prints the version;
#   2. furudesk.exe --headless scans a folder of FLAC, MP3, Ogg Vorbis and
#      WAV tones, and furudesk.exe ctl status answers over the named pipe;
#   3. each tone is played and recorded from the null sink with parec: it
#      must be heard, at its pitch (tools/tonecheck, which also counts the
#      dropouts: a figure, not a failure, on a loaded machine);
#   4. the installer (when given) installs silently (/S) per user with a
#      Start menu entry, the installed exe starts, and the uninstaller
#      removes it all silently.
# Go programs need ProcessPrng from bcryptprimitives.dll, which Debian's
# Wine 8 lacks: a stand-in (scripts/wine/bcryptprimitives.c, a test
# fixture never shipped) is built with mingw into the prefix's system32.
#
#   [GO=go] scripts/test-windows.sh furudesk.exe [furudesk-setup.exe]
# Needs scripts/install-deps.sh --windows. Not part of `make test`: CI runs
# `make test-windows` as a step of its own.
set -euo pipefail
exe=$(realpath "$1")
setup=${2:+$(realpath "$2")}
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

for tool in wine wineserver x86_64-w64-mingw32-gcc Xvfb pulseaudio pactl parec ffmpeg "$go"; do
  command -v "$tool" >/dev/null || fail "$tool missing: run scripts/install-deps.sh --windows"
done
# What the recordings are judged with (tools/tonecheck: pitch, dropouts).
(cd "$here/.." && "$go" build -o "$work/tonecheck" ./tools/tonecheck) || fail "cannot build tools/tonecheck"

# A display of our own: Xvfb picks a free number.
Xvfb -displayfd 3 -screen 0 1280x800x24 -nolisten tcp 3>"$work/display" >"$work/xvfb.log" 2>&1 &
pids+=($!)
for _ in $(seq 1 100); do [ -s "$work/display" ] && break; sleep 0.1; done
[ -s "$work/display" ] || fail "Xvfb did not start"
export DISPLAY=":$(cat "$work/display")"

# PulseAudio of our own with one null sink (pulsetest's recipe).
run="$work/run"; mkdir -p "$run" "$work/home"; chmod 700 "$run"
export XDG_RUNTIME_DIR="$run" HOME="$work/home" PULSE_SERVER="unix:$run/pulse.sock"
printf 'autospawn = no\n' >"$work/client.conf"; export PULSE_CLIENTCONFIG="$work/client.conf"
printf 'load-module module-native-protocol-unix auth-anonymous=1 socket=%s\nload-module module-null-sink sink_name=win rate=44100 channels=2\nset-default-sink win\n' \
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

# 1. --version
ver=$(timeout 60 wine "$exe" --version 2>"$work/version.log" | tr -d '\r') || fail "furudesk.exe --version failed"
[[ "$ver" == furudesk\ * ]] || fail "furudesk.exe --version printed '$ver'"
say "--version: $ver"

# 2. --headless scans a folder; ctl answers over the pipe.
music="$work/music"; mkdir -p "$music"
declare -A tones=([flac]=440 [mp3]=554 [ogg]=659 [wav]=880)
for ext in flac mp3 ogg wav; do
  ffmpeg -loglevel error -f lavfi -i "sine=frequency=${tones[$ext]}:sample_rate=44100:duration=20" -ac 2 \
    -metadata title="tone ${tones[$ext]}" -metadata artist="furudesk test" -metadata album="Wine" "$music/tone-${tones[$ext]}.$ext"
done
data="$work/data"
wdata=$(winpath "$data")
wine "$exe" --headless --data-dir "$wdata" --music "$(winpath "$music")" --mdns=false --listen 127.0.0.1:0 \
  >"$work/headless.log" 2>&1 &
pids+=($!); app=$!
ctl() { timeout 60 wine "$exe" ctl --data-dir "$wdata" "$@" 2>>"$work/ctl.log" | tr -d '\r'; }
alive() { kill -0 "$app" 2>/dev/null || fail "furudesk.exe --headless exited"; }
deadline=$((SECONDS + 90)); st=""
while [ $SECONDS -lt $deadline ]; do
  alive
  st=$(ctl status || true)
  tr -d ' \n' <<<"$st" | grep -q '"scan":{[^}]*"running":false' && grep -q "\"folders\"" <<<"$st" && break
  st=""; sleep 0.5
done
[ -n "$st" ] || fail "ctl status did not answer with a finished scan within 90 s"
ntracks=$(ctl tracks | grep -c '"content_id"' || true)
[ "$ntracks" -eq 4 ] || fail "the library has $ntracks tracks, want 4 (flac, mp3, ogg, wav)"
say "--headless: ctl status answers over the named pipe; scanned $ntracks tracks"

# 3. Each tone is heard at its pitch.
for ext in flac mp3 ogg wav; do
  f=${tones[$ext]}
  ctl play "$(winpath "$music/tone-$f.$ext")" >/dev/null || fail "ctl play tone-$f.$ext failed"
  deadline=$((SECONDS + 30)); pos=0
  while [ $SECONDS -lt $deadline ]; do
    alive
    s=$(ctl status | tr -d ' \n')
    pos=$(sed -n 's/.*"position_ms":\([0-9]*\).*/\1/p' <<<"$s")
    grep -q "\"title\":\"tone$f\"" <<<"$s" && grep -q '"playing":true' <<<"$s" && [ "${pos:-0}" -gt 1000 ] && break
    pos=0; sleep 0.3
  done
  [ "${pos:-0}" -gt 1000 ] || fail "tone-$f.$ext does not play (status: $s)"
  timeout 3 parec -d win.monitor --format=s16le --rate=44100 --channels=2 --raw >"$work/rec-$ext.raw" 2>>"$work/parec.log" || true
  heard=$("$work/tonecheck" -freq "$f" "$work/rec-$ext.raw") || fail "tone-$f.$ext on the null sink: $heard"
  say "played tone-$f.$ext: $heard"
done
# There is no quit command: ending the prefix's processes ends it.
wineserver -k 2>/dev/null || true
wait "$app" 2>/dev/null || true

# 4. The installer, silently, per user.
if [ -n "$setup" ]; then
  timeout 120 wine "$setup" /S >"$work/setup.log" 2>&1 || fail "the installer /S failed"
  inst="$WINEPREFIX/drive_c/users/$(id -un)/AppData/Local/Programs/furudesk"
  [ -d "$inst" ] || inst=$(find "$WINEPREFIX/drive_c/users" -type d -path '*AppData/Local/Programs/furudesk' | head -1)
  [ -f "$inst/furudesk.exe" ] || fail "the installer put no furudesk.exe under AppData\\Local\\Programs\\furudesk"
  lnk=$(find "$WINEPREFIX/drive_c/users" -name 'furudesk.lnk' -path '*Start Menu*' | head -1)
  [ -n "$lnk" ] || fail "the installer made no Start menu entry"
  v2=$(timeout 60 wine "$inst/furudesk.exe" --version 2>/dev/null | tr -d '\r')
  [ "$v2" = "$ver" ] || fail "the installed furudesk.exe --version printed '$v2'"
  wine reg query 'HKCU\Software\Microsoft\Windows\CurrentVersion\Uninstall\furudesk' >/dev/null 2>&1 ||
    fail "the installer made no entry in Settings > Apps"
  say "installer /S: $(basename "$inst")\\furudesk.exe ($v2), Start menu entry, uninstall entry"
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
