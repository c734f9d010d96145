#!/usr/bin/env bash
# Smoke test of the real binary: starts furudesk under Xvfb with a fresh data
# dir, waits for its window to be mapped, takes a screenshot and fails if the
# window is missing or blank. Usage: scripts/smoke.sh BINARY [SHOT.png]
set -euo pipefail
bin=$(realpath "$1")
shot=$(realpath -m "${2:-smoke.png}")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cat >"$work/inner.sh" <<'INNER'
set -euo pipefail
bin=$1; shot=$2; work=$3
LANG=C.UTF-8 "$bin" --data-dir "$work/data" >"$work/app.log" 2>&1 &
pid=$!
deadline=$((SECONDS + 60))
win=""
while [ $SECONDS -lt $deadline ]; do
  if ! kill -0 $pid 2>/dev/null; then
    echo "smoke: furudesk exited before showing a window:"; cat "$work/app.log"; exit 1
  fi
  win=$(xwininfo -root -tree 2>/dev/null | awk '/"furudesk"/ && /[0-9]+x[0-9]+/ {print $1; exit}')
  if [ -n "$win" ]; then
    size=$(xwininfo -id "$win" | awk '/Map State/ {print $3}')
    [ "$size" = "IsViewable" ] && break
  fi
  sleep 0.2
done
[ -n "$win" ] || { echo "smoke: no window titled furudesk within 60 s"; cat "$work/app.log"; kill $pid; exit 1; }
# The window is mapped; poll until its first frame has content.
for _ in $(seq 1 50); do
  import -window "$win" "$shot"
  sd=$(convert "$shot" -colorspace Gray -format '%[fx:standard_deviation]' info:)
  awk -v s="$sd" 'BEGIN { exit !(s > 0.02) }' && break
  sleep 0.2
done
kill $pid; wait $pid 2>/dev/null || true
colors=$(convert "$shot" -format '%k' info:)
echo "smoke: window $win, screenshot $shot, gray stddev $sd, $colors colors"
awk -v s="$sd" 'BEGIN { exit !(s > 0.02) }' || { echo "smoke: the window is blank"; exit 1; }
[ "$colors" -gt 16 ] || { echo "smoke: the window has only $colors colors"; exit 1; }
INNER
xvfb-run -a -s "-screen 0 1280x800x24" bash "$work/inner.sh" "$bin" "$shot" "$work"
