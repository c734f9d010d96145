#!/usr/bin/env bash
# The desktop benchmarks of the real binary (issues 18 and 20): runs
# deskbench (tools/deskbench) under Xvfb, on a private D-Bus
# session bus and with a PulseAudio null sink per device, in a private
# HOME. It prints deskbench's report.
#
# Usage: scripts/bench-desktop.sh DESKBENCH FURUDESK FYNEFLOOR [deskbench flags...]
#   e.g. scripts/bench-desktop.sh bin/deskbench bin/furudesk bin/fynefloor -mode idle -browse 30m
set -euo pipefail
deskbench=$(realpath "$1"); bin=$(realpath "$2"); floor=$(realpath "$3"); shift 3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cat >"$work/inner.sh" <<'INNER'
set -euo pipefail
deskbench=$1; bin=$2; floor=$3; work=$4; shift 4
export HOME="$work/home" LANG=C.UTF-8 XDG_RUNTIME_DIR="$work/run"
mkdir -p "$HOME" "$XDG_RUNTIME_DIR"
chmod 700 "$XDG_RUNTIME_DIR"
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; }
trap cleanup EXIT
export PULSE_SERVER="unix:$XDG_RUNTIME_DIR/pulse.sock"
printf 'load-module module-native-protocol-unix auth-anonymous=1 socket=%s\nload-module module-null-sink sink_name=bench rate=44100 channels=2\nload-module module-null-sink sink_name=peer rate=44100 channels=2\nset-default-sink bench\n' \
  "$XDG_RUNTIME_DIR/pulse.sock" >"$work/pa.pa"
printf 'pcm.!default { type pulse }\nctl.!default { type pulse }\n' >"$HOME/.asoundrc"
pulseaudio -n -F "$work/pa.pa" --daemonize=no --exit-idle-time=-1 --disallow-exit --use-pid-file=no >"$work/pa.log" 2>&1 &
pids+=($!)
for _ in $(seq 1 100); do pactl info >/dev/null 2>&1 && break; sleep 0.1; done
pactl info >/dev/null 2>&1 || { echo "bench: pulseaudio did not start"; cat "$work/pa.log"; exit 1; }
"$deskbench" -bin "$bin" -floor "$floor" -work "$work/bench" "$@"
INNER
mkdir -p "$work/bench"
xvfb-run -a -s "-screen 0 1280x800x24" dbus-run-session -- bash "$work/inner.sh" "$deskbench" "$bin" "$floor" "$work" "$@" \
  2> >(grep -v 'Failed to set fd limit' >&2)
