#!/usr/bin/env bash
# One entry point for developers and CI. Creates the venvs it needs under .venvs/ on first use.
#   bash tools/dev.sh demo [MODEL.md2] [-o DIR]   sample model -> MD2 -> import -> .blend, round trip, contact sheet
#   bash tools/dev.sh test [pytest args]          test suite on bpy 4.2 LTS and bpy 5.0 (the wheel; no Blender binary)
#   bash tools/dev.sh bench [--markdown]          MD2/MDL import/export benchmark against bare-bpy floors
#   bash tools/dev.sh bench-ms3d [--markdown]     MS3D import/export benchmark against bare-bpy floors
#   bash tools/dev.sh fuzz [--cases N ...]        the long fuzz campaign (tools/fuzz_campaign.py)
#   bash tools/dev.sh cli COMMAND ...             python -m classic_models (info, check, convert)
#   bash tools/dev.sh build                       validate the manifest and build the installable zip into dist/
#   bash tools/dev.sh blender-test BLENDER        the same tests inside a Blender binary (pytest-blender)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

find_python() {
  for candidate in python3.11 python3; do
    if command -v "$candidate" >/dev/null 2>&1 &&
       "$candidate" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))' 2>/dev/null; then
      echo "$candidate"; return 0
    fi
  done
  echo "error: the bpy wheels need Python 3.11 (python3.11 not found)" >&2
  return 1
}

# venv NAME BPY_SPEC -> prints the venv's python, creating it when missing
venv() {
  local dir="$ROOT/.venvs/$1" spec="$2"
  if [ ! -x "$dir/bin/python" ] || ! "$dir/bin/python" -c 'import bpy, pytest, numpy' >/dev/null 2>&1; then
    local py; py="$(find_python)"
    echo "setting up $dir ($spec)..." >&2
    "$py" -m venv "$dir" >&2
    "$dir/bin/python" -m pip install --quiet --disable-pip-version-check "$spec" pytest pytest-blender >&2
  fi
  echo "$dir/bin/python"
}

cmd="${1:-test}"; shift || true
case "$cmd" in
  demo)
    py="$(venv bpy-5.0 'bpy==5.0.1')"
    exec "$py" tools/demo.py "$@" ;;
  test)
    status=0
    for pair in "bpy-4.2:bpy==4.2.*" "bpy-5.0:bpy==5.0.1"; do
      name="${pair%%:*}"; spec="${pair#*:}"
      py="$(venv "$name" "$spec")"
      echo "=== tests on $("$py" -c 'import bpy; print("Blender", bpy.app.version_string)' 2>/dev/null | tail -1)"
      "$py" -m pytest -q "$@" || status=$?
    done
    exit $status ;;
  bench)
    py="$(venv bpy-5.0 'bpy==5.0.1')"
    exec "$py" tools/benchmark.py "$@" ;;
  bench-ms3d)
    py="$(venv bpy-5.0 'bpy==5.0.1')"
    exec "$py" tools/benchmark_ms3d.py "$@" ;;
  fuzz)
    py="$(venv bpy-5.0 'bpy==5.0.1')"
    exec "$py" tools/fuzz_campaign.py "$@" ;;
  build)
    py="$(venv bpy-5.0 'bpy==5.0.1')"
    exec "$py" tools/build_extension.py "$@" ;;
  blender-test)
    blender="${1:?usage: tools/dev.sh blender-test /path/to/blender [pytest args]}"; shift
    py="$(venv bpy-5.0 'bpy==5.0.1')"
    exec "$py" -m pytest -p pytest_blender.plugin --blender-executable "$blender" "$@" ;;
  cli)
    # python -m classic_models from the checkout: PYTHONPATH holds a classic_models -> checkout link.
    py="$(venv bpy-5.0 'bpy==5.0.1')"
    mkdir -p "$ROOT/.venvs/pkgpath"
    ln -sfn "$ROOT" "$ROOT/.venvs/pkgpath/classic_models"
    cd "${OLDPWD:-$ROOT}"
    PYTHONPATH="$ROOT/.venvs/pkgpath${PYTHONPATH:+:$PYTHONPATH}" exec "$py" -m classic_models "$@" ;;
  *)
    echo "usage: bash tools/dev.sh {demo|test|bench|bench-ms3d|fuzz|build|cli|blender-test}" >&2; exit 2 ;;
esac
