#!/usr/bin/env bash
# Puts furudesk's own desktop entry (packaging/linux/furudesk.desktop:
# Exec takes files, MimeType lists what it plays) into the release
# archive `fyne package` made, in place of the one fyne generates from
# FyneApp.toml (no MimeType, no %U).
#
#   scripts/package-desktop.sh ARCHIVE.tar.xz DESKTOP_FILE
set -euo pipefail
archive=$(realpath "$1")
desktop=$(realpath "$2")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tar -xJf "$archive" -C "$tmp"
target=$(find "$tmp" -path '*/share/applications/furudesk.desktop' | head -1)
[ -n "$target" ] || { echo "package-desktop: no furudesk.desktop in $archive" >&2; exit 1; }
cp "$desktop" "$target"
(cd "$tmp" && tar -cJf "$archive.new" -- *)
mv "$archive.new" "$archive"
echo "package-desktop: $archive has furudesk's desktop entry"
