#!/usr/bin/env bash
# Q2PRO (Quake II) for the enhanced-model tests (tests/engines/test_q2pro_md5.py): builds it from the source
# tarball in ../shared/engines/ (or $CLASSIC_MODELS_ENGINES) into .venvs/engines/q2pro-<commit>/ (git-ignored,
# reused; rebuilt only when missing). As root with apt-get, installs the build dependencies from Debian first;
# otherwise prints what to install. Exit status, as tools/dev.sh's engine hook reads it: 0 built or cached; 3 cannot
# be built on this machine (no tarball, not root for the build packages), said on the last line; 1 apt-get or
# the build failed. The tests skip without the build (or fail under CI=true), saying so.
# Only the client is built (the tests play demos: no game library), without the MVD client and save games
# (-Dmvd-server=false does not compile at this commit): half the CPU time of the full build.
#   bash tools/engine_q2pro.sh          build when missing, print the cache folder
# The tarball is a test tool (GPL-2): never committed, never in the extension's zip. One change to its source:
# main() in src/unix/system.c refuses to run as root ("You can not run Q2PRO as superuser"), and the test
# command runs as root in CI, so that test is taken out (nothing else differs from the tarball).
set -u
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ENGINES="${CLASSIC_MODELS_ENGINES:-$ROOT/../shared/engines}"
tarball="$(ls "$ENGINES"/q2pro-*.tar.gz 2>/dev/null | head -n 1)"
if [ -z "$tarball" ]; then
  echo "note: no q2pro-*.tar.gz under $ENGINES; the Q2PRO tests skip (fail under CI=true)" >&2
  exit 3
fi
commit="$(basename "$tarball" .tar.gz)"; commit="${commit#q2pro-}"
cache="$ROOT/.venvs/engines/q2pro-$commit"
if [ -x "$cache/q2pro" ]; then echo "$cache"; exit 0; fi

# build dependencies (README of ../shared/engines), the X server the tests run it under and Mesa's software GL
packages=(meson ninja-build pkg-config gcc libsdl2-dev zlib1g-dev libpng-dev libjpeg-dev xvfb libgl1-mesa-dri)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f '${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing ${missing[*]} to build Q2PRO (apt-get)..." >&2
    export DEBIAN_FRONTEND=noninteractive
    if ! { apt-get -o DPkg::Lock::Timeout=600 update -qq >/dev/null && apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "${missing[@]}" >/dev/null; }; then
      echo "note: apt-get could not install ${missing[*]}; the Q2PRO tests skip (fail under CI=true)" >&2
      exit 1
    fi
  else
    echo "note: building Q2PRO needs ${missing[*]} (Debian/Ubuntu: sudo apt-get install ${missing[*]});" \
         "without them the Q2PRO tests skip, and fail under CI=true" >&2
    exit 3
  fi
fi

mkdir -p "$ROOT/.venvs/engines"
exec 9>"$ROOT/.venvs/engines/q2pro.lock"
flock 9  # one build at a time; a second caller waits and then finds the cache
if [ -x "$cache/q2pro" ]; then echo "$cache"; exit 0; fi
work="$(mktemp -d "$ROOT/.venvs/engines/.q2pro-build.XXXXXX")"
trap 'rm -rf "$work"' EXIT
echo "building Q2PRO $commit (about 90 s on 2 cores; log in $cache.log)..." >&2
started=$SECONDS
if tar xzf "$tarball" -C "$work" \
   && sed -i 's/if (!getuid() || !geteuid()) {/if (0) {  \/* classic_models tests: run as root *\//' "$work/q2pro/src/unix/system.c" \
   && grep -q 'if (0) {  /\* classic_models' "$work/q2pro/src/unix/system.c" \
   && (cd "$work/q2pro" \
       && meson setup build -Dwrap_mode=nodownload -Dlibcurl=disabled -Davcodec=disabled -Dopenal=disabled \
            -Dwayland=disabled -Dsystem-wide=false -Dmvd-client=false -Dsave-games=false \
       && ninja -C build q2pro) >"$cache.log" 2>&1; then
  mkdir -p "$work/out"
  cp "$work/q2pro/build/q2pro" "$work/q2pro/LICENSE" "$work/out/"
  rm -rf "$cache" && mv "$work/out" "$cache"
  echo "built Q2PRO in $((SECONDS - started)) s: $cache" >&2
  echo "$cache"
else
  echo "note: the Q2PRO build failed (see $cache.log); the Q2PRO tests skip (fail under CI=true)" >&2
  exit 1
fi
exit 0
