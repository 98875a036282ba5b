#!/usr/bin/env bash
# setup.sh installs the system packages linkledger needs: libsqlite3-dev
# (sqlite3.h: the store's C files call the SQLite compiled into the binary
# through SQLite's own header), poppler-utils (pdftotext, pdfinfo) for PDF
# text, and chromium for the web app's browser
# tests (lib/web, driven with chromedp; they skip without it). Without root
# or apt-get it prints what to install and carries on: the PDF adapter then
# reports a clear missing_tool error instead of failing silently.
set -u

# Litestream (linkledger serve --replica, linkledger restore-replica; docs/
# several-machines.md) is built from source through the Go module proxy at
# this pinned version into bin/, beside linkledger, where linkledger looks
# for it after LINKLEDGER_LITESTREAM and before PATH. bin/ is git-ignored.
# Built once (a few minutes: it compiles its own SQLite); a litestream of
# another version in bin/ is rebuilt. Without it the replica tests skip.
LITESTREAM_VERSION=v0.5.18
root=$(cd "$(dirname "$0")/.." && pwd)
ls_bin="$root/bin/litestream"
if ! go version -m "$ls_bin" 2>/dev/null | grep -Eq "^[[:space:]]+mod[[:space:]]+github.com/benbjohnson/litestream[[:space:]]+$LITESTREAM_VERSION([[:space:]]|$)"; then
  echo "setup: building litestream $LITESTREAM_VERSION into bin/ (once, a few minutes)" >&2
  mkdir -p "$root/bin"
  if ! GOBIN="$root/bin" go install "github.com/benbjohnson/litestream/cmd/litestream@$LITESTREAM_VERSION"; then
    echo "setup: could not build litestream $LITESTREAM_VERSION: linkledger serve --replica and restore-replica need it (the replica tests skip)" >&2
  fi
fi

need=()
echo '#include <sqlite3.h>' | ${CC:-cc} -E - >/dev/null 2>&1 || need+=(libsqlite3-dev)
command -v pdftotext >/dev/null 2>&1 || need+=(poppler-utils)
command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || need+=(chromium)
if [ ${#need[@]} -eq 0 ]; then
  exit 0
fi
if command -v apt-get >/dev/null 2>&1; then
  sudo=""
  [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1 && sudo="sudo -n"
  if [ "$(id -u)" -eq 0 ] || [ -n "$sudo" ]; then
    echo "setup: installing ${need[*]}" >&2
    $sudo apt-get update -qq >/dev/null 2>&1 || true
    if DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need[@]}" >/dev/null 2>&1; then
      exit 0
    fi
  fi
fi
echo "setup: could not install ${need[*]}: install it with your package manager (the build needs sqlite3.h; PDF text extraction needs pdftotext; the browser tests need chromium)" >&2
exit 0
