#!/usr/bin/env bash
# Prints the path of a Go toolchain new enough for go.mod. Uses the go on
# PATH when it is new enough; otherwise fetches the official toolchain module
# golang.org/toolchain from the Go module proxy into ~/.cache/furudesk/ once.
set -euo pipefail
cd "$(dirname "$0")/.."
want=$(awk '/^go /{print $2; exit}' go.mod)

newer_or_equal() { # $1 >= $2, dotted versions
  [ "$(printf '%s\n%s\n' "$1" "$2" | sort -V | head -n1)" = "$2" ]
}

if command -v go >/dev/null 2>&1; then
  have=$(GOTOOLCHAIN=local go env GOVERSION 2>/dev/null | sed 's/^go//')
  if [ -n "$have" ] && newer_or_equal "$have" "$want"; then
    command -v go
    exit 0
  fi
fi

os=$(uname -s | tr '[:upper:]' '[:lower:]')
case "$(uname -m)" in
  x86_64|amd64) arch=amd64 ;;
  aarch64|arm64) arch=arm64 ;;
  *) echo "ensure-go: no Go toolchain for $(uname -m); install Go $want" >&2; exit 1 ;;
esac
root="${XDG_CACHE_HOME:-$HOME/.cache}/furudesk/go$want"
if [ ! -x "$root/bin/go" ]; then
  proxy="${GOPROXY:-https://proxy.golang.org}"; proxy="${proxy%%,*}"
  case "$proxy" in direct|off) proxy=https://proxy.golang.org ;; esac
  url="$proxy/golang.org/toolchain/@v/v0.0.1-go$want.$os-$arch.zip"
  echo "ensure-go: fetching Go $want from the module proxy" >&2
  tmp=$(mktemp -d)
  curl -fsSL "$url" -o "$tmp/go.zip"
  (cd "$tmp" && unzip -q go.zip)
  mkdir -p "$(dirname "$root")"
  rm -rf "$root"
  mv "$tmp/golang.org/toolchain@v0.0.1-go$want.$os-$arch" "$root"
  chmod +x "$root/bin/"* "$root/pkg/tool/"*/* 2>/dev/null || true
  rm -rf "$tmp"
fi
echo "$root/bin/go"
