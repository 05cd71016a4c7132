#!/usr/bin/env bash
# Debian's Blender inside a Debian root, called like a blender executable (for pytest-blender):
#   CLASSIC_MODELS_ROOT=.venvs/debian-sid bash tools/root_blender.sh -b --python script.py -- args
# Copies (never bind-mounts: an `rm -rf` of the root must not reach host files) this checkout, the
# reference material beside it (../shared: corpus, palettes) and every host file named in the
# arguments (pytest-blender's run_pytest.py) into the root at the same absolute paths, mounts /proc for
# the run, then runs `blender` there from the same working directory, with Blender's user resources in
# a fresh folder so that an extension installed in the root's user profile (the GUI layer's) is not
# loaded twice.
set -euo pipefail
CHECKOUT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
root="$(cd "${CLASSIC_MODELS_ROOT:?set CLASSIC_MODELS_ROOT to a Debian root holding blender}" && pwd)"
[ -x "$root/usr/bin/blender" ] || { echo "error: no blender in $root" >&2; exit 2; }

copy_in() {  # copy_in HOST_DIR [tar excludes...]: HOST_DIR -> ROOT/HOST_DIR, replacing what was there
  local src="$1"; shift
  rm -rf --one-file-system "$root$src"; mkdir -p "$root$src"
  tar -C "$src" "$@" -cf - . | tar -C "$root$src" -xf -
}
copy_in "$CHECKOUT" --exclude=./.venvs --exclude=./.git --exclude=./out --exclude=./dist --exclude=__pycache__
[ -d "$CHECKOUT/../shared" ] && copy_in "$(cd "$CHECKOUT/../shared" && pwd)"
for arg in "$@"; do     # pytest-blender's own scripts live in the host venv
  case "$arg" in /*.py) [ -f "$arg" ] && copy_in "$(dirname "$arg")" ;; esac
  case "$arg" in      # ... and its plugin must be importable by the pytest inside Blender
    */pytest_blender/run_pytest.py)
      site="/usr/local/lib/python$(chroot "$root" python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])')/dist-packages"
      rm -rf --one-file-system "$root$site/pytest_blender"; mkdir -p "$root$site"
      cp -r "$(dirname "$arg")" "$root$site/pytest_blender" ;;
  esac
done

mountpoint -q "$root/proc" || { mount -t proc proc "$root/proc"; trap 'umount "$root/proc"' EXIT; }
resources="$(mktemp -d "$root/tmp/classic_models_res.XXXXXX")"
rc=0
chroot "$root" env -u CI HOME=/root BLENDER_USER_RESOURCES="${resources#"$root"}" \
  bash -c 'cd "$1" && shift && exec blender "$@"' _ "$PWD" "$@" || rc=$?
rm -rf --one-file-system "$resources"
exit $rc
