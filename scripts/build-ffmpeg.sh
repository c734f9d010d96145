#!/usr/bin/env bash
# Builds the FFmpeg libraries furudesk decodes with into OUT (bin/ffmpeg):
# libavutil, libswresample, libavcodec and libavformat of the same version
# as the system's FFmpeg development files (the headers furudesk is
# compiled against), from the distribution's own source package, with
# only what a music player uses: the demuxers of every container package
# formats lists (MP3, Ogg, WAV, FLAC, MP4, Matroska, WavPack, WMA, DSD…),
# the audio decoders found in them, their parsers and libswresample. No external library, no network
# protocol, no video.
#
# Why: the system's libavcodec and libavformat pull in about 120 other
# libraries when loaded (x265, librsvg, gnutls, libopenmpt…), 25 MB of a
# window's resident memory for code a music player never runs. These four
# need only libc and libm. audio/ffmpeg.c loads them from bin/ffmpeg (or
# $FURUDESK_FFMPEG_DIR) when they are there, else the system's.
#
# The source comes through apt (apt-get source with the machine's own
# sources turned into deb-src in a private state folder), so it is checked
# against the archive's signed index like any package. Run again, it does
# nothing when OUT holds this version built with these options. It fails
# (and leaves OUT as it was) when the source cannot be had: furudesk then
# uses the system's libraries.
#
# With --windows it cross-builds the same libraries, from the same source
# and with the same options, for 64-bit Windows with Debian's mingw-w64
# (scripts/install-deps.sh --windows): OUT gets avutil-57.dll,
# swresample-4.dll, avcodec-59.dll and avformat-59.dll (the names
# audio/ffmpeg.c loads on Windows; scripts/package-windows.sh ships them
# beside furudesk.exe) and OUT/include, the headers furudesk.exe is
# compiled against. Cached the same way: built once per version and options.
#
#   scripts/build-ffmpeg.sh [--windows] OUT [WORK]
set -euo pipefail
target=linux
if [ "${1:-}" = --windows ]; then
  target=windows
  shift
fi
out=$1
work=${2:-$(dirname "$0")/../build/ffmpeg}
[ "$target" = windows ] && work=${2:-$(dirname "$0")/../build/ffmpeg-windows}
mkdir -p "$work"
work=$(realpath "$work")

version=$(dpkg-query -W -f='${Version}' libavcodec-dev 2>/dev/null || true)
source_pkg=$(dpkg-query -W -f='${source:Package}' libavcodec-dev 2>/dev/null || true)
if [ -z "$version" ] || [ -z "$source_pkg" ]; then
  echo "build-ffmpeg: libavcodec-dev is not installed (scripts/install-deps.sh)" >&2
  exit 1
fi

# What a music player decodes: every container of package formats (the one
# list of what furudesk accepts), the decoders of the codecs found in them
# and their parsers. `go run ./formats/list` prints them.
repo=$(realpath "$(dirname "$0")/..")
go=${GO:-go}
list() { (cd "$repo" && "$go" run ./formats/list "$1"); }
demuxers=$(list demuxers)
decoders=$(list decoders)
parsers=$(list parsers)
if [ -z "$demuxers" ] || [ -z "$decoders" ]; then
  echo "build-ffmpeg: could not list the formats (go run ./formats/list)" >&2
  exit 1
fi
cross=()
if [ "$target" = windows ]; then
  command -v x86_64-w64-mingw32-gcc >/dev/null 2>&1 ||
    { echo "build-ffmpeg: x86_64-w64-mingw32-gcc missing: run scripts/install-deps.sh --windows" >&2; exit 1; }
  cross=(--enable-cross-compile --target-os=mingw32 --arch=x86_64 --cross-prefix=x86_64-w64-mingw32-)
fi
asm=--enable-x86asm
command -v nasm >/dev/null 2>&1 || asm=--disable-x86asm
# FFmpeg names its version as the distribution's build does (5.1.9-0+deb12u1).
extra_version=
case "$version" in *-*) extra_version=--extra-version=${version##*-} ;; esac
options=($extra_version --disable-everything --disable-autodetect --disable-programs --disable-doc
  --disable-network --disable-avdevice --disable-avfilter --disable-swscale --disable-postproc
  "${cross[@]}" --enable-shared --disable-static --enable-pic --disable-debug --enable-swresample "$asm"
  "--enable-demuxer=$demuxers" "--enable-decoder=$decoders" "--enable-parser=$parsers")
stamp="$source_pkg $version ${options[*]}"
if [ -f "$out/BUILT" ] && [ "$(cat "$out/BUILT")" = "$stamp" ]; then
  exit 0
fi
# A build is also kept in the user's cache, as Go keeps its own, so a fresh
# clone on the same machine (CI's) copies it instead of building again.
# FURUDESK_FFMPEG_CACHE=off turns that off.
cache=${FURUDESK_FFMPEG_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/furudesk/ffmpeg-$target}
if [ "$cache" != off ] && [ -f "$cache/BUILT" ] && [ "$(cat "$cache/BUILT")" = "$stamp" ]; then
  rm -rf "$out.new" && mkdir -p "$(dirname "$out")" && cp -r "$cache" "$out.new"
  rm -rf "$out" && mv "$out.new" "$out"
  echo "build-ffmpeg: FFmpeg $version for audio only, from $cache"
  exit 0
fi

echo "build-ffmpeg: FFmpeg $version for audio only, into $out"
# apt-get source, with the machine's sources as deb-src, in a private state
# folder: nothing of the system's apt configuration changes.
apt_dir="$work/apt"
rm -rf "$apt_dir"
mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial" "$apt_dir/parts"
: >"$apt_dir/sources.list"
if [ -f /etc/apt/sources.list ]; then
  sed -n 's/^[[:space:]]*deb[[:space:]]/deb-src /p' /etc/apt/sources.list >>"$apt_dir/sources.list"
fi
for f in /etc/apt/sources.list.d/*.list; do
  [ -f "$f" ] && sed -n 's/^[[:space:]]*deb[[:space:]]/deb-src /p' "$f" >"$apt_dir/parts/$(basename "$f")"
done
for f in /etc/apt/sources.list.d/*.sources; do
  [ -f "$f" ] && sed 's/^Types:.*/Types: deb-src/' "$f" >"$apt_dir/parts/$(basename "$f")"
done
apt_opts=(-o "Dir::Etc::SourceList=$apt_dir/sources.list" -o "Dir::Etc::SourceParts=$apt_dir/parts"
  -o "Dir::State::Lists=$apt_dir/lists" -o "Dir::Cache=$apt_dir/cache" -o Debug::NoLocking=1
  -o APT::Sandbox::User=root -qq)
apt-get "${apt_opts[@]}" update
src="$work/src"
rm -rf "$src"
mkdir -p "$src"
(cd "$src" && apt-get "${apt_opts[@]}" source --download-only "$source_pkg=$version")
orig=$(ls "$src"/*.orig.tar.* | head -1)
tree="$src/tree"
mkdir -p "$tree"
tar -xf "$orig" -C "$tree" --strip-components=1
# The distribution's patches, in its order.
debian=$(ls "$src"/*.debian.tar.* 2>/dev/null | head -1 || true)
if [ -n "$debian" ]; then
  tar -xf "$debian" -C "$tree"
  if [ -f "$tree/debian/patches/series" ]; then
    grep -v '^[[:space:]]*\(#\|$\)' "$tree/debian/patches/series" | while read -r p _; do
      patch -s -d "$tree" -p1 <"$tree/debian/patches/$p"
    done
  fi
fi

prefix="$work/prefix"
rm -rf "$prefix"
(cd "$tree" && ./configure --prefix="$prefix" "${options[@]}" >"$work/configure.log" 2>&1) ||
  { tail -20 "$work/configure.log" >&2; exit 1; }
make -C "$tree" -j"$(nproc)" >"$work/make.log" 2>&1 || { tail -30 "$work/make.log" >&2; exit 1; }
make -C "$tree" install >>"$work/make.log" 2>&1

# The four libraries under their sonames, as audio/ffmpeg.c loads them.
next="$out.new"
rm -rf "$next"
mkdir -p "$next"
for lib in avutil swresample avcodec avformat; do
  if [ "$target" = windows ]; then
    dll=$(basename "$(ls "$prefix/bin/$lib-"[0-9]*.dll | sort | head -1)")
    cp "$prefix/bin/$dll" "$next/$dll"
    x86_64-w64-mingw32-strip --strip-unneeded "$next/$dll"
  else
    soname=$(basename "$(ls "$prefix/lib/lib$lib.so."[0-9]* | sort | head -1)")
    cp -L "$prefix/lib/$soname" "$next/$soname"
  fi
done
# furudesk.exe is compiled against these headers (no FFmpeg headers for
# Windows are installed on the machine).
[ "$target" = windows ] && cp -r "$prefix/include" "$next/include"
printf '%s\n' "$stamp" >"$next/BUILT"
rm -rf "$out"
mv "$next" "$out"
rm -rf "$src" "$apt_dir"
if [ "$cache" != off ]; then
  # Best effort: a full or read-only home only costs the next clone a build.
  { rm -rf "$cache.new" && mkdir -p "$(dirname "$cache")" && cp -r "$out" "$cache.new" &&
    rm -rf "$cache" && mv "$cache.new" "$cache"; } 2>/dev/null ||
    echo "build-ffmpeg: could not keep a copy in $cache (continuing)" >&2
fi
echo "build-ffmpeg: $(ls "$out" | tr '\n' ' ')"
