#!/usr/bin/env bash
# The reach lab (issue 35): network namespaces with two NAT'd homes and the
# box on the "internet", real furudesk processes, no multicast. Prints the
# figures: time until the laptop and the desktop connect through the box,
# control latency through it and directly, time to one room after all
# restart together, and after the box dies and comes back.
#
#   sudo scripts/lab-reach.sh            (or: make lab-reach)
#   FURUDESK_LAB_PREFIX=r3- ...          names of the namespaces it makes
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "$(id -u)" != 0 ]; then
  echo "lab-reach: needs root (network namespaces and nftables)" >&2
  exit 1
fi
for tool in ip nft pulseaudio parec; do
  command -v "$tool" >/dev/null || { echo "lab-reach: $tool is missing (scripts/install-deps.sh --test)" >&2; exit 1; }
done
GO=$(scripts/ensure-go.sh)
if [ -d bin/ffmpeg ]; then export FURUDESK_FFMPEG_DIR="$PWD/bin/ffmpeg"; fi
export FURUDESK_LAB=1 LANG=${LANG:-C.UTF-8}
echo "# lab-reach $(git describe --tags --always --dirty 2>/dev/null || echo dev), $(date -u +%FT%TZ)"
echo "# FURUDESK_LAB=1 go test ./cmd/furudesk -run TestLabReach -count=1 -v"
"$GO" test ./cmd/furudesk -run 'TestLabReach' -count=1 -v -timeout 15m 2>&1 |
  grep -E '^ *--- |^(PASS|FAIL|ok )|lab_(reach|home|carriers)_test.go' | grep -v '^=== '
exit "${PIPESTATUS[0]}"
