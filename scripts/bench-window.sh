#!/usr/bin/env bash
# Launch and memory of the real window at a collector's scale (issue 17):
# fills a data dir with 100,000 tracks (8,000 albums, 2,000 artists; no
# files, no music folder: go run ./tools/seedlibrary), then starts
# furudesk on it under Xvfb several times (a warm database) and reports,
# per launch, the time from process start to the window listing the
# library (furudesk logs "library shown"), the resident memory once it
# is idle (anonymous: heaps; mapped files: libraries, among them Mesa's
# software GL under Xvfb) and the CPU time the process used by then (wall
# time suffers on a busy machine, CPU time less). The window's own per-frame, sort and search figures are Go
# benchmarks: go test ./ui -run '^$' -bench Scale.
# Usage: scripts/bench-window.sh BINARY [TRACKS] [LAUNCHES]
set -euo pipefail
bin=$(realpath "$1")
tracks=${2:-100000}
launches=${3:-3}
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
GO=${GO:-go}
(cd "$root" && $GO run ./tools/seedlibrary -data-dir "$work/data" -tracks "$tracks")

cat >"$work/inner.sh" <<'INNER'
set -euo pipefail
bin=$1; work=$2; launches=$3
export HOME="$work/home" LANG=C.UTF-8 XDG_RUNTIME_DIR="$work/run" FYNE_SCALE=1
mkdir -p "$HOME" "$XDG_RUNTIME_DIR"; chmod 700 "$XDG_RUNTIME_DIR"
for i in $(seq 0 "$launches"); do
  log="$work/app$i.log"
  "$bin" --data-dir "$work/data" --mdns=false --listen 127.0.0.1:0 >"$log" 2>&1 &
  pid=$!
  shown=""
  for _ in $(seq 1 600); do
    shown=$(sed -n 's/.*msg="library shown" tracks=\([0-9]*\) since_start=\([0-9.]*m\?s\).*/\1 tracks in \2/p' "$log")
    [ -n "$shown" ] && break
    kill -0 $pid 2>/dev/null || { echo "furudesk exited:"; tail -20 "$log"; exit 1; }
    sleep 0.05
  done
  [ -n "$shown" ] || { echo "the window did not list the library within 30 s"; tail -20 "$log"; exit 1; }
  sleep 5 # idle: the figures of a window left open
  st() { awk -v k="$1:" '$1 == k {print int($2 / 1024)}' /proc/$pid/status; }
  cpu=$(awk '{print int(($14 + $15) * 1000 / '"$(getconf CLK_TCK)"')}' /proc/$pid/stat)
  what="launch $i"; [ "$i" = 0 ] && what="first launch (new identity, cold caches)"
  echo "bench-window: $what: $shown; RSS $(st VmRSS) MiB idle ($(st RssAnon) anonymous, $(st RssFile) mapped files), peak $(st VmHWM) MiB; CPU $cpu ms so far"
  kill -INT $pid; wait $pid || true
done
INNER
xvfb-run -a -s "-screen 0 1280x800x24" bash "$work/inner.sh" "$bin" "$work" "$launches"
