#!/usr/bin/env bash
# Builds the Windows release on Linux with Debian's mingw-w64 (cgo: Fyne's
# GLFW driver needs it) and NSIS:
#   dist/furudesk-windows-amd64.zip        furudesk\furudesk.exe and FFmpeg's
#                                          DLLs beside it, unzip and run
#   dist/furudesk-windows-amd64-setup.exe  per-user installer (Start menu entry,
#                                          uninstaller; /S installs silently)
# FFmpeg's audio-only libraries are cross-built once (scripts/build-ffmpeg.sh
# --windows, cached in build/windows/ffmpeg) and furudesk.exe is compiled
# against their headers; it loads the DLLs from its own folder at the first
# decode. When they cannot be built, furudesk.exe is built with -tags
# noffmpeg (the pure-Go decoders: no AAC, ALAC or Opus) and this says so.
# furudesk.exe is a GUI-subsystem exe with the icon, a manifest and version
# info linked in from a .syso that mingw's windres makes from
# packaging/windows/furudesk.rc.in. The exe is kept in build/windows for
# scripts/test-windows.sh.
#
#   scripts/package-windows.sh VERSION [GO]
# Needs scripts/install-deps.sh --windows. A cold build takes about 6.5
# minutes on 2 cores (Fyne's cgo code for Windows); the Go build cache
# keeps later ones to a minute or two.
set -euo pipefail
version=${1:-dev}
go=${2:-go}
cd "$(dirname "$0")/.."
root=$PWD
out=build/windows
mkdir -p "$out" dist
for tool in x86_64-w64-mingw32-gcc x86_64-w64-mingw32-windres makensis zip; do
  command -v "$tool" >/dev/null || { echo "package-windows: $tool missing: run scripts/install-deps.sh --windows" >&2; exit 1; }
done

# FILEVERSION wants four numbers: FyneApp.toml's Version and Build.
app_version=$(sed -n 's/^[[:space:]]*Version[[:space:]]*=[[:space:]]*"\([0-9.]*\)".*/\1/p' FyneApp.toml)
app_build=$(sed -n 's/^[[:space:]]*Build[[:space:]]*=[[:space:]]*\([0-9]*\).*/\1/p' FyneApp.toml)
IFS=. read -r v1 v2 v3 _ <<<"$app_version"
commas="${v1:-0},${v2:-0},${v3:-0},${app_build:-0}"

"$go" run ./tools/mkico assets/icon.png "$out/furudesk.ico"
cp packaging/windows/furudesk.exe.manifest "$out/"
sed -e "s/@VERSION@/$version/g" -e "s/@VERSION_COMMAS@/$commas/g" packaging/windows/furudesk.rc.in >"$out/furudesk.rc"
syso=cmd/furudesk/rsrc_windows_amd64.syso
trap 'rm -f "$root/$syso"' EXIT
x86_64-w64-mingw32-windres -I "$out" -O coff -o "$syso" "$out/furudesk.rc"

ffdir=$out/ffmpeg
tags=no_emoji
# audio/ffmpeg.go finds the headers in build/windows/ffmpeg/include (a
# #cgo directive: CGO_CFLAGS would rebuild every cgo package).
if GO=$go scripts/build-ffmpeg.sh --windows "$ffdir"; then
  dlls=$(cd "$ffdir" && ls ./*.dll | sed 's|^\./||')
else
  echo "package-windows: FFmpeg's DLLs were not built: furudesk.exe gets the pure-Go decoders only (no AAC, ALAC, Opus)" >&2
  tags=$tags,noffmpeg
  dlls=
fi

echo "package-windows: building $out/furudesk.exe (cgo, mingw-w64, tags $tags)"
CGO_ENABLED=1 GOOS=windows GOARCH=amd64 CC=x86_64-w64-mingw32-gcc \
  "$go" build -tags "$tags" -ldflags "-H=windowsgui -s -w -X main.version=$version" \
  -o "$out/furudesk.exe" ./cmd/furudesk
rm -f "$syso"
# The DLLs beside the exe, where it loads them from (and where
# scripts/test-windows.sh runs it); the installer's lists of them.
rm -f "$out"/*.dll
: >"$out/ffmpeg-install.nsh"
: >"$out/ffmpeg-uninstall.nsh"
for dll in $dlls; do
  cp "$ffdir/$dll" "$out/$dll"
  printf 'File "${SRCDIR}\\%s"\n' "$dll" >>"$out/ffmpeg-install.nsh"
  printf 'Delete "$INSTDIR\\%s"\n' "$dll" >>"$out/ffmpeg-uninstall.nsh"
done

# The zip: one folder, furudesk\furudesk.exe and the DLLs.
rm -rf "$out/zip" && mkdir -p "$out/zip/furudesk"
cp "$out/furudesk.exe" "$out/zip/furudesk/"
for dll in $dlls; do cp "$out/$dll" "$out/zip/furudesk/"; done
rm -f dist/furudesk-windows-amd64.zip
(cd "$out/zip" && zip -q -r -9 "$root/dist/furudesk-windows-amd64.zip" furudesk)

# The installer.
makensis -V2 -DVERSION="$version" -DVERSION4="${commas//,/.}" \
  -DSRCDIR="$root/$out" -DOUTFILE="$root/dist/furudesk-windows-amd64-setup.exe" \
  packaging/windows/furudesk.nsi
echo "package-windows: dist/furudesk-windows-amd64.zip dist/furudesk-windows-amd64-setup.exe"
