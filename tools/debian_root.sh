#!/usr/bin/env bash
# Makes (once) and reuses a Debian root holding Debian's own Blender, for the real-Blender test layer
# (tests/real_blender/) and for running anything inside Debian's Blender.
#   bash tools/debian_root.sh check                 exit 0 when this machine can make roots; else prints what is needed
#   bash tools/debian_root.sh ensure sid|trixie     makes the root when missing, prints its path
#   bash tools/debian_root.sh path sid|trixie       prints the path of a ready root (exit 1 when not made yet)
#   bash tools/debian_root.sh run sid|trixie CMD... runs CMD inside the root (chroot, /proc mounted for the
#                                                   run only), e.g. `run sid blender --version`
#   bash tools/debian_root.sh remove sid|trixie     deletes a root (refuses while anything is mounted in it)
# Roots live in $CLASSIC_MODELS_ROOTS (default: <checkout>/.venvs) as debian-SUITE.
# sid packages Blender 5.2.x LTS, trixie 4.3.x. Everything comes from Debian's packages:
# debootstrap --variant=minbase (it makes the /dev nodes, so /dev is never bind-mounted), a fresh /proc, then apt-get with Check-Valid-Until=false (the registry serves a dated
# snapshot). About 1.5-2.5 min and 1.3 GB a root.
# Safety: no host folder is ever bind-mounted into a root (an `rm -rf .venvs` must never reach host
# files); files go in by copying. /proc is mounted only inside a private mount namespace for the
# duration of one command (unshare), so no mount outlives it; `remove` refuses while anything is mounted.
set -euo pipefail
CHECKOUT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ROOTS="${CLASSIC_MODELS_ROOTS:-$CHECKOUT/.venvs}"
PACKAGES=(blender python3-numpy python3-pytest xvfb xauth imagemagick xdotool x11-utils)

can_make() {
  [ "$(id -u)" = 0 ] || { echo "needs root (debootstrap and chroot)"; return 1; }
  command -v debootstrap >/dev/null 2>&1 || { echo "needs debootstrap ('apt-get install debootstrap')"; return 1; }
  command -v unshare >/dev/null 2>&1 || { echo "needs unshare (util-linux)"; return 1; }
  return 0
}

root_of() {
  case "$1" in sid|trixie) echo "$ROOTS/debian-$1" ;; *) echo "error: suite must be sid or trixie, not '$1'" >&2; return 2 ;; esac
}

# in_root DIR CMD...: CMD chrooted into DIR, in private mount and PID namespaces with a fresh /proc.
# The /proc mount exists only inside that namespace (nothing to unmount, nothing left behind), and
# when CMD ends the kernel ends every process it started (Xvfb included).
in_root() {
  local dir="$1"; shift
  unshare --mount --propagation private --pid --fork --mount-proc="$dir/proc" \
    chroot "$dir" env -i HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"
}

mounts_inside() {  # lists every mount point under DIR
  local dir
  dir="$(readlink -f "$1")"
  awk -v d="$dir/" '{ gsub(/\\040/, " ", $2); if (index($2 "/", d) == 1) print $2 }' /proc/mounts
}

remove_root() {
  local dir="$1" busy
  [ -e "$dir" ] || return 0
  busy="$(mounts_inside "$dir")"
  if [ -n "$busy" ]; then
    echo "error: refusing to delete $dir: still mounted inside it:" >&2; echo "$busy" >&2; return 1
  fi
  rm -rf --one-file-system "$dir"
}

ensure() {
  local suite="$1" dir log
  dir="$(root_of "$suite")"; log="$ROOTS/debian-$suite.log"
  if [ -f "$dir/.ready" ]; then echo "$dir"; return 0; fi
  local why; why="$(can_make)" || { echo "error: cannot make a Debian root: $why" >&2; return 1; }
  mkdir -p "$ROOTS"
  echo "making $dir (debootstrap $suite, then Debian's Blender; about 2 min)..." >&2
  if [ ! -f "$dir/.bootstrapped" ]; then
    remove_root "$dir"; mkdir -p "$dir"
    debootstrap --variant=minbase "$suite" "$dir" >"$log" 2>&1 \
      || { echo "error: debootstrap $suite failed (see $log)" >&2; return 1; }
    touch "$dir/.bootstrapped"
  fi
  local apt=(in_root "$dir" apt-get -q -o Acquire::Check-Valid-Until=false)
  { "${apt[@]}" update && "${apt[@]}" install -y --no-install-recommends "${PACKAGES[@]}"; } >>"$log" 2>&1 \
    || { echo "error: installing Blender into the $suite root failed (see $log)" >&2; return 1; }
  in_root "$dir" apt-get clean >/dev/null 2>&1 || true
  touch "$dir/.ready"
  echo "$dir"
}

run_in() {
  local suite="$1" dir; shift
  dir="$(root_of "$suite")"
  [ -f "$dir/.ready" ] || { echo "error: no ready $suite root at $dir (run: bash tools/debian_root.sh ensure $suite)" >&2; return 1; }
  in_root "$dir" "$@"
}

case "${1:-}" in
  check) why="$(can_make)" || { echo "$why"; exit 1; } ;;
  ensure) ensure "${2:?suite: sid or trixie}" ;;
  path) dir="$(root_of "${2:?suite: sid or trixie}")"; [ -f "$dir/.ready" ] || exit 1; echo "$dir" ;;
  run) suite="${2:?suite: sid or trixie}"; shift 2; run_in "$suite" "$@" ;;
  remove) remove_root "$(root_of "${2:?suite: sid or trixie}")" ;;
  *) echo "usage: bash tools/debian_root.sh {check|ensure SUITE|path SUITE|run SUITE CMD...|remove SUITE}  (SUITE: sid or trixie)" >&2; exit 2 ;;
esac
