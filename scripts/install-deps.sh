#!/usr/bin/env bash
# Installs what building, running and testing furudesk needs on a Debian or
# Ubuntu machine, and nothing when it is already there: a warm machine pays
# one dpkg query. Run as root, or as a user with sudo.
#
#   scripts/install-deps.sh          build + run (cgo: GL, X11, ALSA, FFmpeg's libraries,
#                                    and what building FFmpeg for audio only takes:
#                                    scripts/build-ffmpeg.sh)
#   scripts/install-deps.sh --test   also what the tests use (Xvfb, PulseAudio,
#                                    sox, ffmpeg, ImageMagick, D-Bus, playerctl,
#                                    a window manager and xdotool to drive it)
#   scripts/install-deps.sh --bench  also what the desktop benchmark drives the
#                                    window with (python3-xlib)
#   scripts/install-deps.sh --web    the test packages and Chromium (make test-web)
#   scripts/install-deps.sh --deb    also what building and checking the .deb
#                                    takes (make deb, make deb-check)
#   scripts/install-deps.sh --windows also what the Windows build and its check
#                                    under Wine take (make package-windows,
#                                    make test-windows): mingw-w64, NSIS, zip, Wine
set -euo pipefail

build_pkgs=(gcc libc6-dev pkg-config libgl1-mesa-dev libx11-dev libxcursor-dev
  libxrandr-dev libxinerama-dev libxi-dev libxxf86vm-dev libasound2-dev
  libavformat-dev libavcodec-dev libswresample-dev libavutil-dev make nasm patch xz-utils)
test_pkgs=(xvfb xauth x11-utils imagemagick pulseaudio pulseaudio-utils iproute2
  libasound2-plugins sox ffmpeg dbus playerctl openbox xdotool xdg-utils libglib2.0-bin
  desktop-file-utils nftables miniupnpd miniupnpd-nftables)
bench_pkgs=(python3 python3-xlib)
web_pkgs=(chromium)
deb_pkgs=(dpkg-dev binutils imagemagick desktop-file-utils appstream lintian xdg-utils libglib2.0-bin)
windows_pkgs=(gcc-mingw-w64-x86-64 nsis zip wine wine64)

pkgs=("${build_pkgs[@]}")
case "${1:-}" in
--test) pkgs+=("${test_pkgs[@]}") ;;
--bench) pkgs+=("${test_pkgs[@]}" "${bench_pkgs[@]}") ;;
--web) pkgs+=("${test_pkgs[@]}" "${web_pkgs[@]}") ;;
--deb) pkgs+=("${deb_pkgs[@]}") ;;
--windows) pkgs+=("${test_pkgs[@]}" "${windows_pkgs[@]}") ;;
esac

if ! command -v dpkg-query >/dev/null 2>&1; then
  case "$(uname -s)" in
    Darwin) echo "macOS: install Xcode's command line tools (xcode-select --install) and Go; nothing else is needed." ;;
    MINGW*|MSYS*|CYGWIN*) echo "Windows: install Go and a gcc (e.g. MSYS2 mingw-w64-x86_64-gcc) on PATH." ;;
    *) echo "Not a Debian/Ubuntu system: install the equivalents of: ${pkgs[*]}" ;;
  esac
  exit 0
fi

missing=()
for p in "${pkgs[@]}"; do
  status=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
  [ "$status" = "installed" ] || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "Installing system packages: ${missing[*]}"
sudo=()
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null 2>&1 || { echo "need root or sudo to install: ${missing[*]}" >&2; exit 1; }
  sudo=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
