#!/usr/bin/env bash
# Builds the Debian package dist/furudesk_VERSION_ARCH.deb with dpkg-deb:
# the binary in /usr/bin, FFmpeg's audio-only libraries in
# /usr/lib/furudesk/ffmpeg (where the binary looks: ../lib/furudesk/ffmpeg
# beside it), the desktop entry, the icon at the usual sizes and the
# AppStream metainfo. Depends is computed by dpkg-shlibdeps from what the
# binary and the libraries link, never kept by hand. No maintainer
# scripts: dpkg's triggers refresh the desktop, MIME and icon caches.
#
#   scripts/build-deb.sh BINARY FFMPEG_DIR VERSION OUT_DIR
set -euo pipefail
bin=$1 libs=$2 version=$3 out=$4
root=$(cd "$(dirname "$0")/.." && pwd)
for tool in dpkg-deb dpkg-shlibdeps convert; do
  command -v "$tool" >/dev/null || { echo "build-deb: $tool is missing (scripts/install-deps.sh --deb installs it)" >&2; exit 1; }
done
# A Debian version: a tag's v0.1.0-3-gabc becomes 0.1.0-3-gabc; an
# untagged commit (git describe gives its hash) FyneApp.toml's version
# with ~gitHASH, sorting before that release.
version=${version#v}
if ! [[ $version =~ ^[0-9]+\.[0-9] ]]; then
  version="$(sed -n 's/^[[:space:]]*Version[[:space:]]*=[[:space:]]*"\(.*\)"/\1/p' "$root/FyneApp.toml")~git$version"
fi
version=${version//-dirty/+dirty}
arch=$(dpkg --print-architecture)

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pkg=$tmp/furudesk
install -Dm0755 "$bin" "$pkg/usr/bin/furudesk"
# Debian ships binaries without their debug symbols (44 MB → 31 MB).
strip --strip-unneeded "$pkg/usr/bin/furudesk"
if [ -f "$libs/BUILT" ]; then
  install -Dm0644 -t "$pkg/usr/lib/furudesk/ffmpeg" "$libs"/lib*.so.*
else
  echo "build-deb: no audio-only FFmpeg in $libs: the package loads the system's" >&2
fi
mkdir -p "$pkg/usr/share/man/man1"
gzip -9n <"$root/packaging/linux/furudesk.1" >"$pkg/usr/share/man/man1/furudesk.1.gz"
install -Dm0644 "$root/packaging/linux/furudesk.desktop" "$pkg/usr/share/applications/furudesk.desktop"
install -Dm0644 "$root/packaging/linux/org.furudesk.furudesk.metainfo.xml" \
  "$pkg/usr/share/metainfo/org.furudesk.furudesk.metainfo.xml"
for size in 16 22 24 32 48 64 128 256; do
  d=$pkg/usr/share/icons/hicolor/${size}x${size}/apps
  mkdir -p "$d"
  convert "$root/assets/icon.png" -resize "${size}x${size}" -strip "PNG32:$d/furudesk.png"
done
# furudesk's FFmpeg is a build of its own for audio only (the demuxers
# and decoders of formats/list, no external library): the system's pulls in about 120
# libraries, 24 MB of the window's memory (README, FFmpeg).
install -Dm0644 /dev/stdin "$pkg/usr/share/lintian/overrides/furudesk" <<'OVERRIDES'
furudesk: embedded-library libavutil [usr/lib/furudesk/ffmpeg/libavutil.so.57]
OVERRIDES
doc=$pkg/usr/share/doc/furudesk
mkdir -p "$doc"
cat >"$doc/copyright" <<COPY
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: furudesk
Source: https://github.com/furudesk/furudesk

Files: *
Copyright: 2025-2026 The furudesk developers
License: see https://github.com/furudesk/furudesk

Files: usr/lib/furudesk/ffmpeg/*
Copyright: The FFmpeg developers
License: LGPL-2.1+
 On Debian systems, the full text of the GNU Lesser General Public License
 version 2.1 can be found in /usr/share/common-licenses/LGPL-2.1.
COPY
printf 'furudesk (%s) unstable; urgency=medium\n\n  * Built from %s.\n\n -- The furudesk developers <furudesk@users.noreply.github.com>  %s\n' \
  "$version" "$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo source)" "$(date -R)" |
  gzip -9n >"$doc/changelog.gz"
find "$pkg" -type d -exec chmod 0755 {} +

# Depends from the ELF files, the private libraries resolved among
# themselves (-l), with the package's own directory as the source tree
# dpkg-shlibdeps wants.
mkdir -p "$tmp/src/debian"
printf 'Source: furudesk\n\nPackage: furudesk\nArchitecture: any\n' >"$tmp/src/debian/control"
# The private libraries come with this package (shlibs.local names it,
# -x drops the dependency on itself).
: >"$tmp/src/debian/shlibs.local"
for f in "$pkg"/usr/lib/furudesk/ffmpeg/*.so.*; do
  [ -e "$f" ] || continue
  so=$(basename "$f")
  echo "${so%%.so.*} ${so##*.so.} furudesk" >>"$tmp/src/debian/shlibs.local"
done
elfs=("$pkg/usr/bin/furudesk")
[ -d "$pkg/usr/lib/furudesk/ffmpeg" ] && elfs+=("$pkg"/usr/lib/furudesk/ffmpeg/*.so.*)
depends=$(cd "$tmp/src" && dpkg-shlibdeps -O -xfurudesk -l"$pkg/usr/lib/furudesk/ffmpeg" "${elfs[@]}" 2>"$tmp/shlibdeps.log" |
  sed -n 's/^shlibs:Depends=//p') || { cat "$tmp/shlibdeps.log" >&2; exit 1; }
[ -n "$depends" ] || { echo "build-deb: dpkg-shlibdeps found no dependencies" >&2; cat "$tmp/shlibdeps.log" >&2; exit 1; }

mkdir -p "$pkg/DEBIAN"
cat >"$pkg/DEBIAN/control" <<CONTROL
Package: furudesk
Version: $version
Architecture: $arch
Maintainer: The furudesk developers <furudesk@users.noreply.github.com>
Installed-Size: $(du -sk --exclude=DEBIAN "$pkg" | cut -f1)
Depends: $depends
Section: sound
Priority: optional
Homepage: https://github.com/furudesk/furudesk
Description: music player whose devices act as one listening room
 furudesk plays the music folders you own (MP3, AAC, ALAC, Opus, Vorbis,
 FLAC, WAV, AIFF, WavPack, APE, Musepack, DSD, WMA and the other audio
 files FFmpeg reads), gapless, with ReplayGain, tags and cover art. Paired
 computers become one listening room: one plays at a time, each shows and
 controls what plays, and the music moves between them.
CONTROL
mkdir -p "$out"
rm -f "$out"/furudesk_*.deb
deb=$out/furudesk_${version}_${arch}.deb
dpkg-deb --root-owner-group -Zxz --build "$pkg" "$deb" >/dev/null
echo "build-deb: $deb"
