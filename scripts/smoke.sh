#!/usr/bin/env bash
# Smoke test of the real binary, like a person would try it: starts furudesk
# under Xvfb on a private D-Bus session bus (and a PulseAudio null sink when
# pulseaudio is installed) with a fresh data dir, generates the demo library
# (furudesk ctl demo), plays its first track, and fails if the window is
# missing or blank, does not list the library, or if MPRIS (playerctl) does
# not see what plays. The screenshot is kept.
# Usage: scripts/smoke.sh BINARY [SHOT.png]
set -euo pipefail
bin=$(realpath "$1")
shot=$(realpath -m "${2:-smoke.png}")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cat >"$work/inner.sh" <<'INNER'
set -euo pipefail
bin=$1; shot=$2; work=$3
data="$work/data"
export HOME="$work/home" LANG=C.UTF-8 XDG_RUNTIME_DIR="$work/run"
mkdir -p "$HOME" "$XDG_RUNTIME_DIR"
chmod 700 "$XDG_RUNTIME_DIR"
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; }
trap cleanup EXIT

# A sound card that renders in real time, so the player has an output.
audio="no pulseaudio: no audio output"
if command -v pulseaudio >/dev/null && command -v pactl >/dev/null; then
  export PULSE_SERVER="unix:$XDG_RUNTIME_DIR/pulse.sock"
  printf 'load-module module-native-protocol-unix auth-anonymous=1 socket=%s\nload-module module-null-sink sink_name=smoke rate=44100 channels=2\nset-default-sink smoke\n' \
    "$XDG_RUNTIME_DIR/pulse.sock" >"$work/pa.pa"
  printf 'pcm.!default { type pulse }\nctl.!default { type pulse }\n' >"$HOME/.asoundrc"
  pulseaudio -n -F "$work/pa.pa" --daemonize=no --exit-idle-time=-1 --disallow-exit --use-pid-file=no >"$work/pa.log" 2>&1 &
  pids+=($!)
  for _ in $(seq 1 100); do pactl info >/dev/null 2>&1 && break; sleep 0.1; done
  pactl info >/dev/null 2>&1 && audio="PulseAudio null sink" || audio="pulseaudio did not start: no audio output"
fi

"$bin" --data-dir "$data" --mdns=false --listen 127.0.0.1:0 >"$work/app.log" 2>&1 &
pid=$!; pids+=($pid)
fail() { echo "smoke: $*"; echo "--- furudesk log:"; tail -n 40 "$work/app.log"; exit 1; }
ctl() { "$bin" ctl --data-dir "$data" "$@"; }
alive() { kill -0 $pid 2>/dev/null || fail "furudesk exited"; }
# gray standard deviation of a region WxH+X+Y of the screenshot
stddev() { convert "$shot" -crop "$1" +repage -colorspace Gray -format '%[fx:standard_deviation]' info:; }

# The window.
deadline=$((SECONDS + 60)); win=""
while [ $SECONDS -lt $deadline ]; do
  alive
  win=$(xwininfo -root -tree 2>/dev/null | awk '/"furudesk"/ && /[0-9]+x[0-9]+/ {print $1; exit}')
  if [ -n "$win" ] && [ "$(xwininfo -id "$win" | awk '/Map State/ {print $3}')" = IsViewable ]; then break; fi
  win=""; sleep 0.2
done
[ -n "$win" ] || fail "no window titled furudesk within 60 s"

# A library, and something playing.
ctl demo >/dev/null || fail "ctl demo failed"
deadline=$((SECONDS + 60)); first=""
while [ $SECONDS -lt $deadline ]; do
  alive
  if ctl status | grep -q '"running": false'; then
    first=$(ctl tracks | sed -n 's/.*"content_id": *"\([^"]*\)".*/\1/p' | head -n 1)
    [ -n "$first" ] && break
  fi
  sleep 0.2
done
[ -n "$first" ] || fail "the demo library has no tracks after 60 s"
ntracks=$(ctl tracks | grep -c '"content_id"')
ctl play "$first" >/dev/null || fail "ctl play $first failed"
title=$(ctl status | sed -n '/"track"/,/}/ s/.*"title": *"\([^"]*\)".*/\1/p' | head -n 1)
[ -n "$title" ] || fail "ctl status shows no track after ctl play"

# The output renders: a real measurement (samples consumed), and the
# position advances.
out="unavailable"
for _ in $(seq 1 100); do
  st=$(ctl status | tr -d ' \n')
  pos=$(sed -n 's/.*"position_ms":\([0-9]*\).*/\1/p' <<<"$st")
  grep -q '"output":{"available":true,"playing":true' <<<"$st" && [ "${pos:-0}" -gt 1500 ] && { out="rendering, at ${pos} ms"; break; }
  sleep 0.2
done

# MPRIS on the session bus shows the same track.
mpris="skipped (no playerctl)"
if command -v playerctl >/dev/null; then
  deadline=$((SECONDS + 20)); got=""
  while [ $SECONDS -lt $deadline ]; do
    got=$(playerctl -p furudesk metadata title 2>/dev/null || true)
    [ "$got" = "$title" ] && break
    sleep 0.2
  done
  [ "$got" = "$title" ] || fail "playerctl -p furudesk metadata title: got '$got', want '$title'"
  mpris="playerctl sees '$got', $(playerctl -p furudesk status)"
fi

# Poll until the window lists the library: the first rows of the track list
# (below the header, right of the sidebar) hold text, where an empty
# library leaves them plain; the whole window has many colors.
eval "$(xwininfo -id "$win" | awk '/Width:/ {print "W=" $2} /Height:/ {print "H=" $2}')"
rows="$((W * 80 / 100))x$((H * 15 / 100))+$((W * 18 / 100))+$((H * 12 / 100))"
bar="$((W * 30 / 100))x$((H * 10 / 100))+0+$((H * 88 / 100))"
ok=""
for _ in $(seq 1 150); do
  alive
  import -window "$win" "$shot"
  sd=$(stddev "${W}x${H}+0+0"); rsd=$(stddev "$rows"); bsd=$(stddev "$bar")
  colors=$(convert "$shot" -format '%k' info:)
  if awk -v s="$sd" -v r="$rsd" -v b="$bsd" -v c="$colors" 'BEGIN { exit !(s > 0.02 && r > 0.03 && b > 0.03 && c > 64) }'; then ok=1; break; fi
  sleep 0.2
done
echo "smoke: window $win ${W}x${H}, $ntracks tracks, playing '$title' ($audio, output $out); MPRIS: $mpris"
echo "smoke: screenshot $shot: gray stddev $sd, track rows $rsd, now-playing $bsd, $colors colors"
[ -n "$ok" ] || fail "the window does not show the library (want stddev > 0.02, rows > 0.03, now-playing > 0.03, colors > 64)"
if grep -q "panic\|fatal" "$work/app.log"; then fail "furudesk logged a panic"; fi
INNER
# dbus-daemon cannot raise its fd limit without privileges and says so.
xvfb-run -a -s "-screen 0 1280x800x24" dbus-run-session -- bash "$work/inner.sh" "$bin" "$shot" "$work" \
  2> >(grep -v 'Failed to set fd limit' >&2)
