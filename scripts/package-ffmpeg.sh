#!/usr/bin/env bash
# Adds the audio-only FFmpeg libraries (scripts/build-ffmpeg.sh) to the
# release archive `fyne package` made: usr/local/lib/furudesk/ffmpeg in the
# archive, installed to PREFIX/lib/furudesk/ffmpeg (or ~/.local/lib/…) by
# its Makefile, where the installed binary looks for them (bin/../lib/
# furudesk/ffmpeg). Without them the archive is left as it is: the
# installed binary loads the system's FFmpeg.
#
#   scripts/package-ffmpeg.sh ARCHIVE.tar.xz LIBDIR
set -euo pipefail
archive=$(realpath "$1")
libs=$2
if [ ! -f "$libs/BUILT" ]; then
  echo "package-ffmpeg: no audio-only FFmpeg in $libs: the package loads the system's"
  exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tar -xJf "$archive" -C "$tmp"
mk=$(find "$tmp" -maxdepth 2 -name Makefile | head -1)
root=$(dirname "$mk")
mkdir -p "$root/usr/local/lib/furudesk/ffmpeg"
cp "$libs"/lib*.so.* "$libs/BUILT" "$root/usr/local/lib/furudesk/ffmpeg/"
src=usr/local/lib/furudesk/ffmpeg
awk -v src="$src" '
  { print }
  /^install:/        { print "\tinstall -Dm00644 -t $(DESTDIR)$(PREFIX)/lib/furudesk/ffmpeg " src "/*" }
  /^uninstall:/      { print "\t-rm -r $(DESTDIR)$(PREFIX)/lib/furudesk" }
  /^user-install:/   { print "\tinstall -Dm00644 -t $(DESTDIR)$(HOME)/.local/lib/furudesk/ffmpeg " src "/*" }
  /^user-uninstall:/ { print "\t-rm -r $(DESTDIR)$(HOME)/.local/lib/furudesk" }
' "$mk" >"$mk.new"
mv "$mk.new" "$mk"
(cd "$tmp" && tar -cJf "$archive.new" -- *)
mv "$archive.new" "$archive"
echo "package-ffmpeg: $archive has FFmpeg's audio-only libraries"
