#!/usr/bin/env bash
# Issue 35's figures for make bench (a report, not pass/fail):
#  - time from start to the first coordination message over the relay
#    (p95), and relay cost per streamed track (CPU, bytes carried per
#    byte): devicesync's Go benchmarks, on loopback;
#  - connectivity in the NAT lab: the share of the lab's cases (two NATs,
#    symmetric NATs, forwarded port, UPnP-mapped port) in which every
#    device reached the room, with the lab's own figures. Needs root; the
#    lab part is skipped (and says so) without it.
#
#   scripts/bench-reach.sh            (make bench-reach; part of make bench)
set -uo pipefail
cd "$(dirname "$0")/.."
GO=$(scripts/ensure-go.sh)
if [ -d bin/ffmpeg ]; then export FURUDESK_FFMPEG_DIR="$PWD/bin/ffmpeg"; fi
echo "# bench-reach $(git describe --tags --always --dirty 2>/dev/null || echo dev), $(date -u +%FT%TZ)"
echo "# go test ./devicesync -run '^\$' -bench 'RelayedFirstSnapshot|CarriedTrack' -benchtime 20x"
"$GO" test ./devicesync -run '^$' -bench 'RelayedFirstSnapshot|CarriedTrack' -benchtime 20x 2>&1 |
  grep -E '^(Benchmark|ok|FAIL)'
if [ "$(id -u)" != 0 ]; then
  echo "# NAT lab: skipped (needs root: sudo scripts/bench-reach.sh)"
  exit 0
fi
out=$(mktemp)
trap 'rm -f "$out"' EXIT
FURUDESK_LAB_PREFIX=${FURUDESK_LAB_PREFIX:-bench-} scripts/lab-reach.sh >"$out" 2>&1
grep -E 'lab_(reach|home|carriers)_test.go' "$out" | sed 's/^ *//'
cases=$(grep -cE '^ *--- (PASS|FAIL): TestLabReach(TwoCarriers|[A-Za-z]*/)' "$out")
passed=$(grep -cE '^ *--- PASS: TestLabReach(TwoCarriers|[A-Za-z]*/)' "$out")
if [ "$cases" -gt 0 ]; then
  echo "NAT lab connectivity: $passed of $cases cases with every device in the room ($((100 * passed / cases)) %)"
else
  echo "NAT lab connectivity: no case ran (see scripts/lab-reach.sh)"
fi
