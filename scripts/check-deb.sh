#!/usr/bin/env bash
# Checks the Debian package make deb built, without installing it: its
# control fields, that it holds exactly the expected files, that
# desktop-file-validate, appstreamcli and lintian find nothing wrong, and
# that its binary, unpacked, prints its version and plays a FLAC given on
# its command line with the package's own FFmpeg onto a private
# PulseAudio null sink, recorded and measured. With CI=true (as root) it
# also installs the package with apt-get, plays from /usr/bin, checks that
# xdg-mime names furudesk for audio/flac, opens the FLAC as a double-click
# does (gio open) and hears it, and removes the package.
#
#   scripts/check-deb.sh DEB
set -euo pipefail
deb=$(realpath "$1")
fail() { echo "check-deb: $*" >&2; exit 1; }
tmp=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT

# Control fields: Depends computed, never empty.
for f in Package Version Architecture Depends Description; do
  v=$(dpkg-deb --field "$deb" "$f")
  [ -n "$v" ] || fail "no $f in the control file"
done
[[ $(dpkg-deb --field "$deb" Depends) == *libc6* ]] || fail "Depends lacks libc6: $(dpkg-deb --field "$deb" Depends)"

# Exactly these files (dpkg -c lists no stray one).
got=$(dpkg-deb --contents "$deb" | awk '$1 !~ /^d/ {print $NF}' | sed 's|^\./|/|' | sort)
want=$(sort <<'LIST'
/usr/bin/furudesk
/usr/lib/furudesk/ffmpeg/libavcodec.so.59
/usr/lib/furudesk/ffmpeg/libavformat.so.59
/usr/lib/furudesk/ffmpeg/libavutil.so.57
/usr/lib/furudesk/ffmpeg/libswresample.so.4
/usr/share/applications/furudesk.desktop
/usr/share/doc/furudesk/changelog.gz
/usr/share/doc/furudesk/copyright
/usr/share/icons/hicolor/128x128/apps/furudesk.png
/usr/share/icons/hicolor/16x16/apps/furudesk.png
/usr/share/icons/hicolor/22x22/apps/furudesk.png
/usr/share/icons/hicolor/24x24/apps/furudesk.png
/usr/share/icons/hicolor/256x256/apps/furudesk.png
/usr/share/icons/hicolor/32x32/apps/furudesk.png
/usr/share/icons/hicolor/48x48/apps/furudesk.png
/usr/share/icons/hicolor/64x64/apps/furudesk.png
/usr/share/lintian/overrides/furudesk
/usr/share/man/man1/furudesk.1.gz
/usr/share/metainfo/org.furudesk.furudesk.metainfo.xml
LIST
)
[ "$got" = "$want" ] || fail "the package's files differ from the expected ones:
$(diff <(echo "$want") <(echo "$got") || true)"

root=$tmp/root
dpkg-deb -x "$deb" "$root"
desktop-file-validate "$root/usr/share/applications/furudesk.desktop" || fail "desktop-file-validate"
out=$(appstreamcli validate --no-net "$root/usr/share/metainfo/org.furudesk.furudesk.metainfo.xml" 2>&1) ||
  fail "appstreamcli validate: $out"
if grep -Eq '^[EWI]:' <<<"$out"; then fail "appstreamcli validate: $out"; fi
if command -v lintian >/dev/null; then
  # Errors and warnings fail (the man page, PIE and the copyright's
  # notice are there); informational tags are shown.
  lint=$(lintian --allow-root "$deb" 2>&1 || true)
  [ -z "$lint" ] || echo "$lint"
  if grep -Eq '^[EW]:' <<<"$lint"; then fail "lintian reports errors or warnings"; fi
fi

bin=$root/usr/bin/furudesk
ver=$("$bin" --version) || fail "--version failed"
[[ $ver == "furudesk "* ]] || fail "--version printed $ver"
echo "check-deb: unpacked $ver"

# A headless play of a FLAC from the command line, heard on a null sink
# (lavfi's sine is at 1/8 of full scale: RMS 0.088 while it plays).
run=$tmp/run
mkdir -p "$run"
ffmpeg -loglevel error -f lavfi -i sine=frequency=440:duration=6 -metadata title="Deb Check" "$tmp/song.flac"
export XDG_RUNTIME_DIR=$run PULSE_SERVER=unix:$run/pulse.sock HOME=$tmp LANG=C.UTF-8
cat >"$tmp/pa.pa" <<PA
load-module module-native-protocol-unix auth-anonymous=1 socket=$run/pulse.sock
load-module module-null-sink sink_name=debsink rate=44100 channels=2
set-default-sink debsink
PA
printf 'pcm.!default { type pulse }\nctl.!default { type pulse }\n' >"$tmp/.asoundrc"
pulseaudio -n -F "$tmp/pa.pa" --daemonize=no --exit-idle-time=-1 --disallow-exit --use-pid-file=no >"$tmp/pa.log" 2>&1 &
pids+=($!)
for _ in $(seq 100); do pactl info >/dev/null 2>&1 && break; sleep 0.1; done
pactl info >/dev/null 2>&1 || fail "PulseAudio did not start: $(cat "$tmp/pa.log")"
# play_check BIN LIBDIR: BIN plays the FLAC given on its command line,
# with FFmpeg's libraries from LIBDIR, and the sink hears it.
play_check() {
  local bin=$1 libdir=$2 rec fd st="" rms
  rm -rf "$tmp/data" "$tmp/out.wav"
  parec --latency-msec=20 -d debsink.monitor --file-format=wav "$tmp/out.wav" &
  rec=$!
  pids+=("$rec")
  sleep 3 # an idle null sink stalls a new stream for 1-2 s
  DBUS_SESSION_BUS_ADDRESS=unix:path=$run/no-bus "$bin" --headless --data-dir "$tmp/data" --mdns=false \
    --listen 127.0.0.1:0 "$tmp/song.flac" >"$tmp/furudesk.log" 2>&1 &
  fd=$!
  pids+=("$fd")
  for _ in $(seq 100); do
    st=$("$bin" ctl --data-dir "$tmp/data" status 2>/dev/null || true)
    grep -q '"source": "local"' <<<"$st" && break
    sleep 0.1
  done
  grep -q '"title": "Deb Check"' <<<"$st" || fail "$bin does not play the FLAC: $st
$(cat "$tmp/furudesk.log")"
  grep -q "audio-only build in $libdir" "$tmp/furudesk.log" ||
    fail "the package's FFmpeg was not loaded: $(grep decoders "$tmp/furudesk.log")"
  sleep 4
  kill -INT "$rec"
  wait "$rec" 2>/dev/null || true
  kill "$fd"
  wait "$fd" 2>/dev/null || true
  sox "$tmp/out.wav" -n stat >"$tmp/stat" 2>&1 || true
  rms=$(awk '/RMS +amplitude/ {print $3}' "$tmp/stat")
  awk -v r="$rms" 'BEGIN { exit !(r > 0.02) }' || fail "the sink stayed silent (RMS $rms): $(cat "$tmp/stat")"
  echo "check-deb: $bin played the FLAC (RMS amplitude $rms on the sink)"
}
play_check "$bin" "$root/usr/lib/furudesk/ffmpeg"

# double_click opens the FLAC as a file manager does (gio open, with the
# installed desktop entry) on a private X screen: the installed furudesk's
# window starts and the sink hears the FLAC.
double_click() {
  local rec pid st="" rms data=$tmp/xdg/furudesk
  command -v Xvfb >/dev/null && command -v gio >/dev/null || fail "Xvfb and gio are needed on CI"
  exec 3>"$tmp/display"
  Xvfb -displayfd 3 -screen 0 1024x768x24 -nolisten tcp >"$tmp/xvfb.log" 2>&1 &
  pids+=($!)
  exec 3>&-
  for _ in $(seq 100); do [ -s "$tmp/display" ] && break; sleep 0.1; done
  [ -s "$tmp/display" ] || fail "Xvfb did not start: $(cat "$tmp/xvfb.log")"
  rm -f "$tmp/out.wav"
  parec --latency-msec=20 -d debsink.monitor --file-format=wav "$tmp/out.wav" &
  rec=$!
  pids+=("$rec")
  sleep 3 # an idle null sink stalls a new stream for 1-2 s
  DISPLAY=:$(cat "$tmp/display") XDG_DATA_HOME=$tmp/xdg XDG_CONFIG_HOME=$tmp/xdg \
    DBUS_SESSION_BUS_ADDRESS=unix:path=$run/no-bus gio open "$tmp/song.flac" >"$tmp/gio.log" 2>&1 ||
    fail "gio open: $(cat "$tmp/gio.log")"
  for _ in $(seq 200); do
    st=$(/usr/bin/furudesk ctl --data-dir "$data" status 2>/dev/null || true)
    grep -q '"source": "local"' <<<"$st" && break
    sleep 0.1
  done
  pid=$(/usr/bin/furudesk ctl --data-dir "$data" stats 2>/dev/null | sed -n 's/^ *"pid": \([0-9]*\).*/\1/p')
  [ -n "$pid" ] && pids+=("$pid")
  grep -q '"title": "Deb Check"' <<<"$st" || fail "gio open did not play the FLAC in furudesk: $st"
  sleep 4
  kill -INT "$rec"
  wait "$rec" 2>/dev/null || true
  kill "$pid"
  for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  sox "$tmp/out.wav" -n stat >"$tmp/stat" 2>&1 || true
  rms=$(awk '/RMS +amplitude/ {print $3}' "$tmp/stat")
  awk -v r="$rms" 'BEGIN { exit !(r > 0.02) }' || fail "the double-clicked FLAC was not heard (RMS $rms)"
  echo "check-deb: gio open played the FLAC in the installed furudesk's window (RMS amplitude $rms)"
}

if [ "${CI:-}" = true ] && [ "$(id -u)" -eq 0 ]; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$deb" >/dev/null
  /usr/bin/furudesk --version | grep -q '^furudesk ' || fail "installed furudesk --version"
  play_check /usr/bin/furudesk /usr/lib/furudesk/ffmpeg
  def=$(XDG_DATA_HOME=$tmp/xdg XDG_CONFIG_HOME=$tmp/xdg xdg-mime query default audio/flac)
  [ "$def" = furudesk.desktop ] || fail "xdg-mime query default audio/flac = $def, want furudesk.desktop"
  double_click
  DEBIAN_FRONTEND=noninteractive apt-get remove -y -qq furudesk >/dev/null
  [ ! -e /usr/bin/furudesk ] && [ ! -e /usr/lib/furudesk ] && [ ! -e /usr/share/applications/furudesk.desktop ] ||
    fail "apt-get remove left files behind"
  echo "check-deb: installed with apt-get, ran /usr/bin/furudesk, removed cleanly"
fi
echo "check-deb: $deb is fine"
