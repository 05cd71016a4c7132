#!/usr/bin/env bash
# Builds ironwail (Quake, GPL-2; a test tool, never part of the extension's zip) from the shared source
# tarball into .venvs/engines/ironwail-<commit>/ (git-ignored, reused between runs like the venvs; rebuilt
# only when the binary is missing), for tests/engines/test_ironwail_enhanced.py.
#   bash tools/engine_ironwail.sh [TARBALL]   default: $IRONWAIL_TARBALL, else ../shared/engines/ironwail-*.tar.gz
# Build dependencies (libsdl2-dev libgl-dev, xvfb to run it): as root with apt-get, installs the missing ones;
# otherwise prints what to install. The build recipe is the one verified in ../shared/engines/README.md:
# `make -C Quake` with every optional codec and curl switched off, and DO_USERDIRS=0 so that the engine keeps
# its screenshots and config in the test's -basedir, not in the user's ~/.ironwail. Exit status, as tools/dev.sh's
# engine hook reads it: 0 built or cached; 3 cannot be built on this machine (no tarball, not root for the build
# packages), said on the last line; 1 apt-get or the build failed.
set -u
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
tarball="${1:-${IRONWAIL_TARBALL:-}}"
if [ -z "$tarball" ]; then
  for candidate in "$ROOT"/../shared/engines/ironwail-*.tar.gz /work/shared/engines/ironwail-*.tar.gz; do
    [ -f "$candidate" ] && { tarball="$candidate"; break; }
  done
fi
if [ -z "$tarball" ] || [ ! -f "$tarball" ]; then
  echo "note: no ironwail source tarball (../shared/engines/ironwail-*.tar.gz); the ironwail tests skip" \
       "(or fail under CI=true)" >&2
  exit 3
fi
commit="$(basename "$tarball" .tar.gz)"; commit="${commit#ironwail-}"
dest="$ROOT/.venvs/engines/ironwail-$commit"
[ -x "$dest/ironwail" ] && [ -f "$dest/ironwail.pak" ] && exit 0

missing=()
for package in libsdl2-dev libgl-dev xvfb make gcc; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'ok installed' || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing ${missing[*]} to build ironwail (apt-get)..." >&2
    export DEBIAN_FRONTEND=noninteractive
    if ! { apt-get update -qq >/dev/null && apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null; }; then
      echo "note: apt-get could not install ${missing[*]}; the ironwail tests skip (or fail under CI=true)" >&2
      exit 1
    fi
  else
    echo "note: building ironwail needs ${missing[*]}: install them (Debian/Ubuntu: sudo apt-get install" \
         "${missing[*]}), then run bash tools/engine_ironwail.sh; without it the ironwail tests skip" >&2
    exit 3
  fi
fi

# one build at a time (the cache may be shared between checkouts through a linked .venvs)
mkdir -p "$ROOT/.venvs/engines"
exec 9>"$ROOT/.venvs/engines/ironwail.lock"
command -v flock >/dev/null 2>&1 && flock 9
[ -x "$dest/ironwail" ] && [ -f "$dest/ironwail.pak" ] && exit 0
work="$(mktemp -d "${TMPDIR:-/tmp}/ironwail-build.XXXXXX")"
trap 'rm -rf "$work"' EXIT
echo "building ironwail $commit into $dest (about a minute)..." >&2
start=$SECONDS
if tar xzf "$tarball" -C "$work" \
   && make -C "$work/ironwail/Quake" -j"$(nproc 2>/dev/null || echo 2)" \
        USE_CODEC_MP3=0 USE_CODEC_VORBIS=0 USE_CODEC_FLAC=0 USE_CODEC_OPUS=0 \
        USE_CODEC_MIKMOD=0 USE_CODEC_XMP=0 USE_CODEC_UMX=0 USE_CURL=0 DO_USERDIRS=0 >"$work/build.log" 2>&1; then
  mkdir -p "$dest.tmp"
  cp "$work/ironwail/Quake/ironwail" "$work/ironwail/Quake/ironwail.pak" "$dest.tmp/"
  cp "$work/ironwail/LICENSE.txt" "$dest.tmp/" 2>/dev/null || cp "$work"/ironwail/LICENSE* "$dest.tmp/" 2>/dev/null || true
  rm -rf "$dest" && mv "$dest.tmp" "$dest"
  echo "built $dest/ironwail in $((SECONDS - start)) s" >&2
else
  tail -20 "$work/build.log" >&2
  echo "note: the ironwail build failed (log above); the ironwail tests skip (or fail under CI=true)" >&2
  exit 1
fi
exit 0
