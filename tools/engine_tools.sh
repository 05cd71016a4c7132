#!/usr/bin/env bash
# The real programs the engine tests load exports in (tests/support/engine_tools.py): DarkPlaces (MDL, MD2,
# MD3), Maverick Model 3D and Assimp (MS3D, MD3), OpenArena (ioquake3 with its data, MD3) under Xvfb (xvfb-run
# needs xauth). As root with apt-get (CI), installs the missing ones from Debian
# (apt-get update once, then install); otherwise prints what to install. Never fails the caller.
#   bash tools/engine_tools.sh --missing    prints the missing ones' Debian packages, one a line, and exits 0
#                                           (tools/dev.sh's setup installs them, or fails saying which)
set -u
missing=()
[ -x /usr/games/darkplaces-server ] || command -v darkplaces-server >/dev/null 2>&1 || missing+=(darkplaces-server)
command -v mm3d >/dev/null 2>&1 || missing+=(mm3d)
command -v assimp >/dev/null 2>&1 || missing+=(assimp-utils)
[ -x /usr/games/openarena ] || command -v openarena >/dev/null 2>&1 || missing+=(openarena)
command -v xvfb-run >/dev/null 2>&1 || missing+=(xvfb)
command -v xauth >/dev/null 2>&1 || missing+=(xauth)
if [ "${1:-}" = --missing ]; then [ ${#missing[@]} -eq 0 ] || printf '%s\n' "${missing[@]}"; exit 0; fi
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing ${missing[*]} for the engine tests (apt-get)..." >&2
  export DEBIAN_FRONTEND=noninteractive
  if apt-get update -qq >/dev/null && apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null; then
    exit 0
  fi
  echo "note: apt-get could not install ${missing[*]}; the engine tests skip (or fail under CI=true)" >&2
else
  echo "note: the engine tests need ${missing[*]}: install them (Debian/Ubuntu: sudo apt-get install ${missing[*]});" \
       "without them those tests skip, and fail under CI=true" >&2
fi
exit 0
