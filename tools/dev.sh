#!/usr/bin/env bash
# One entry point for developers and CI. Creates the venvs it needs under .venvs/ on first use.
#   bash tools/dev.sh demo [MODEL.md2] [-o DIR]   sample model -> MD2 -> import -> .blend, round trip, contact sheet
#                                                 (demo, bench, fuzz, cli, build: the newest bpy here, 5.2 LTS or 5.0)
#   bash tools/dev.sh test [pytest args]          what CI runs: the lint, the manual's strict build, the tests that need Blender (marked `blender` by
#                                                 tests/conftest.py) on bpy 4.2 LTS and 4.5 LTS, the whole suite on 5.2 LTS
#                                                 (wheels; 5.2 needs Python 3.13), so the bpy-free tests run once; then
#                                                 (without pytest args) the real-Blender stage below; stages 2 at a time.
#                                                 First `setup` below for every stage; the engines built from source
#                                                 (tools/engine_*.sh, when there) compile in the background meanwhile.
#                                                 Exit 0: every stage ran and passed; 1: one failed, or this machine
#                                                 lacks a package apt-get cannot install; 3: INCOMPLETE, every stage
#                                                 that ran passed but some were skipped for packages a non-root user
#                                                 must install (listed at the end; 1 under CI=true). Not 0, because a
#                                                 green run that skipped a stage is how stages went unrun unnoticed;
#                                                 not 1, so a script tells "install X" from "a test failed"
#   bash tools/dev.sh test --quick [pytest args]  the quick lane (also: `quick`): the lint and the whole suite on the newest
#                                                 bpy only, on both cores (pytest-xdist -n 2); no real-Blender stage, and
#                                                 nothing installed (engine tools, glTF validator): their tests skip saying so
#   bash tools/dev.sh setup [STAGE...]            what the stages need from this machine (venvs, wheels, engines,
#                                                 real-blender; default all): as root, installs the missing Debian
#                                                 packages with apt-get (exit 1 when one cannot be); not root, lists
#                                                 them (exit 3 when one is missing)
#   bash tools/dev.sh corpus [--verify|--check] [--dest DIR] [--from DIR] [--debs DIR] ...
#                                                 the corpus of tests/support/corpus/MANIFEST.tsv where the tests
#                                                 read it ($CLASSIC_MODELS_CORPUS, ../shared/corpus, .venvs/corpus):
#                                                 copied from ../shared/corpus, else fetched from GitHub and Debian
#                                                 packages by commit/version, each sha256 checked (tools/corpus.py);
#                                                 `test` runs it first (the full lane with --verify)
#   bash tools/dev.sh lint [ruff args]            ruff check (rules in pyproject.toml), from .venvs/lint, then mypy over
#                                                 formats/ and common/ ([tool.mypy]: a type error fails), then
#                                                 tools/sentence_length.py (the pages a modder reads first: <= 25 words a sentence)
#   bash tools/dev.sh real-blender [pytest args]  Debian's own Blender 5.2.x (sid) and 4.3.x (trixie) in Debian roots
#                                                 under Xvfb: tests/real_blender (needs root; installs debootstrap)
#   bash tools/dev.sh bench [--markdown]          MD2/MDL import/export benchmark against bare-bpy floors
#   bash tools/dev.sh bench-ms3d [--markdown]     MS3D import/export benchmark against bare-bpy floors
#   bash tools/dev.sh bench-floor [--markdown] [--base CHECKOUT]
#                                                 MD2/MDL/MD3 import and untouched export against the floor (CPU s)
#   bash tools/dev.sh bench-md5-import [--markdown] [--base CHECKOUT]
#                                                 MD5 imports with many anims, before and after (CPU s)
#   bash tools/dev.sh bench-md5-md3 [--markdown] [--base CHECKOUT] [--rounds N]
#                                                 MD5 import/export, one-frame MD3 import, before and after (CPU s)
#   bash tools/dev.sh fuzz [--cases N ...]        the long fuzz campaign (tools/fuzz_campaign.py)
#   bash tools/dev.sh cli COMMAND ...             python -m classic_models (info, check, convert)
#   bash tools/dev.sh build                       validate the manifest, build the installable zip into dist/ and the
#                                                 extension repository beside it (index.json, index.html; docs/install.md)
#   bash tools/dev.sh blender-test sid|trixie|BLENDER  the same tests inside Blender's own program (pytest-blender):
#                                                 Debian's 5.2.x (sid) or 4.3.x (trixie) in a Debian root, or a binary
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
# Compiled Python kept between processes (__pycache__ beside the sources, git-ignored; the package build, the
# Debian roots' copies and the release test leave it out): the test stages start a Python a few thousand times
# (pytest's workers, the command line, its conversion workers), and where PYTHONDONTWRITEBYTECODE is set each
# compiled every module it imported again and pytest rewrote every test module's asserts anew (measured on the
# 2-core machine: collecting the suite 17.3 -> 6.8 s CPU; a one-file `convert` 3.6 -> 2.6 s CPU, most of the
# rest importing bpy). Not PYTHONPYCACHEPREFIX: the extension loads through a new temporary repository folder
# in each process (tools/load_extension.py, cli/convert.py), a path a prefixed cache would never see again.
unset PYTHONDONTWRITEBYTECODE

# find_python 3.11|3.13 -> the full path of a Python of that version: PATH, pyenv, usual prefixes.
find_python() {
  local want="$1" candidate real
  local -a candidates=("python$want")
  [ "$want" = 3.11 ] && candidates+=(python3)
  if command -v pyenv >/dev/null 2>&1; then
    candidates+=("$(pyenv root 2>/dev/null)"/versions/"$want"*/bin/python"$want")
  fi
  candidates+=("$HOME"/.pyenv/versions/"$want"*/bin/python"$want" "/usr/bin/python$want" "/usr/local/bin/python$want")
  for candidate in "${candidates[@]}"; do
    command -v "$candidate" >/dev/null 2>&1 || continue
    real="$("$candidate" -c "import sys; assert '%d.%d' % sys.version_info[:2] == '$want'; print(sys.executable)" 2>/dev/null)" || continue
    [ -n "$real" ] && { echo "$real"; return 0; }
  done
  return 1
}

# venv NAME BPY_SPEC PYTHON_VERSION -> prints the venv's python, creating it when missing
venv() {
  local dir="$ROOT/.venvs/$1" spec="$2" want="$3"
  if [ ! -x "$dir/bin/python" ] || ! "$dir/bin/python" -c 'import bpy, pytest, numpy' >/dev/null 2>&1; then
    local py
    py="$(find_python "$want")" || { echo "error: $spec needs Python $want (not found on PATH or under pyenv)" >&2; return 1; }
    echo "setting up $dir ($spec, Python $want)..." >&2
    "$py" -m venv "$dir" >&2
    "$dir/bin/python" -m pip install --quiet --disable-pip-version-check "$spec" pytest pytest-blender pytest-xdist >&2
  elif ! "$dir/bin/python" -c 'import xdist, pytest_blender' >/dev/null 2>&1; then
    echo "adding pytest-xdist and pytest-blender to $dir..." >&2     # (a venv older than them)
    "$dir/bin/python" -m pip install --quiet --disable-pip-version-check pytest-xdist pytest-blender >&2
  fi
  echo "$dir/bin/python"
}

# lint_venv -> the ruff of .venvs/lint (any Python 3), installing RUFF_SPEC there when missing or changed, and
# MYPY_SPEC beside it (its own check: a venv made before mypy keeps its ruff)
RUFF_SPEC='ruff==0.17.*'
MYPY_SPEC='mypy==2.4.*'
lint_venv() {
  local dir="$ROOT/.venvs/lint" py
  if [ ! -x "$dir/bin/ruff" ] || [ "$(cat "$dir/spec" 2>/dev/null)" != "$RUFF_SPEC" ]; then
    py="$(command -v python3 || find_python 3.11)" || { echo "error: the lint needs a Python 3" >&2; return 1; }
    echo "setting up $dir ($RUFF_SPEC)..." >&2
    "$py" -m venv "$dir" >&2 && "$dir/bin/python" -m pip install --quiet --disable-pip-version-check "$RUFF_SPEC" >&2 \
      && echo "$RUFF_SPEC" >"$dir/spec" || return 1
  fi
  if ! "$dir/bin/python" -c "import importlib.metadata as m; assert m.version('mypy').startswith('${MYPY_SPEC#mypy==}'.rstrip('*'))" \
       >/dev/null 2>&1; then
    echo "adding $MYPY_SPEC to $dir..." >&2
    "$dir/bin/python" -m pip install --quiet --disable-pip-version-check "$MYPY_SPEC" >&2 || return 1
  fi
  echo "$dir/bin/ruff"
}

# type_check RUFF: mypy (beside RUFF) over formats/ and common/ as the package classic_models ([tool.mypy] in
# pyproject.toml), through a classic_models link to this checkout and a cache, both under .venvs/mypy/ in a
# folder of this checkout's own (.venvs may be shared by several checkouts); findings name files from the root
type_check() {
  local dir key status
  key="$(printf %s "$ROOT" | cksum | cut -d' ' -f1)"; dir="$ROOT/.venvs/mypy/$key"
  mkdir -p "$dir" && { [ "$(readlink "$dir/classic_models")" = "$ROOT" ] || ln -sfn "$ROOT" "$dir/classic_models"; } || return 1
  MYPYPATH="$dir" "${1%/ruff}/mypy" --cache-dir "$dir/cache" | sed -e "s|^$dir/classic_models/||" -e "s|^.venvs/mypy/$key/classic_models/||"
  status=${PIPESTATUS[0]}
  return "$status"
}

# has_python NAME PYTHON_VERSION: the venv already works, or that Python exists to create it
has_python() {
  "$ROOT/.venvs/$1/bin/python" -c 'import bpy' >/dev/null 2>&1 || find_python "$2" >/dev/null
}

# newest -> the newest Blender this machine can run: bpy 5.2 LTS (Python 3.13), else bpy 5.0 (Python 3.11)
newest() {
  if has_python bpy-5.2 3.13; then
    venv bpy-5.2 'bpy==5.2.*' 3.13
  else
    echo "note: no Python 3.13 found, using bpy 5.0 (install Python 3.13, e.g. 'pyenv install 3.13', for Blender 5.2 LTS)" >&2
    venv bpy-5.0 'bpy==5.0.1' 3.11
  fi
}

# ---- what the stages need from this machine ---------------------------------------------------------------
# needs STAGE: one line "PACKAGES|WHAT FOR" per piece STAGE lacks here (Debian package names), found by looking
# for the piece itself (a command, a module, a library), not by asking dpkg. Stages: venvs (lint, docs: python3
# -m venv), wheels (Python 3.11 and 3.13 with venv, the X and GL libraries bpy loads), engines (the engine
# programs of tools/engine_tools.sh, Xvfb, node and npm for the glTF validator), real-blender (debootstrap).
needs() {
  local py lib
  case "$1" in
    venvs)
      if [ ! -x "$ROOT/.venvs/lint/bin/ruff" ] || [ ! -x "$ROOT/.venvs/docs/bin/mkdocs" ]; then
        python3 -c 'import ensurepip' >/dev/null 2>&1 || echo "python3-venv|python3 -m venv (.venvs/lint, .venvs/docs)"
      fi ;;
    wheels)
      for entry in "${MATRIX[@]}"; do
        IFS=: read -r name _spec want <<<"$entry"
        "$ROOT/.venvs/$name/bin/python" -c 'import importlib.util as u; assert u.find_spec("bpy")' >/dev/null 2>&1 && continue
        if ! py="$(find_python "$want")"; then echo "python$want python$want-venv|Python $want (.venvs/$name; where Debian has no python$want package: pyenv install $want)"
        elif ! "$py" -c 'import ensurepip' >/dev/null 2>&1; then echo "python$want-venv|python$want -m venv (.venvs/$name)"
        fi
      done | sort -u
      for lib in libX11.so.6:libx11-6 libXrender.so.1:libxrender1 libXxf86vm.so.1:libxxf86vm1 libXfixes.so.3:libxfixes3 \
                 libXi.so.6:libxi6 libxkbcommon.so.0:libxkbcommon0 libSM.so.6:libsm6 libGL.so.1:libgl1; do
        /sbin/ldconfig -p 2>/dev/null | grep -q "${lib%%:*} " || echo "${lib#*:}|${lib%%:*}, which bpy loads"
      done ;;
    engines)
      bash "$ROOT/tools/engine_tools.sh" --missing | sed 's/.*/&|&, for the engine tests (tools\/engine_tools.sh)/'
      { command -v node && command -v npm; } >/dev/null 2>&1 || echo "nodejs npm|node and npm, for the glTF validator" ;;
    real-blender)
      command -v debootstrap >/dev/null 2>&1 || echo "debootstrap|debootstrap, which makes the Debian roots"
      command -v unshare >/dev/null 2>&1 || echo "util-linux|unshare, for the Debian roots" ;;
  esac
}

# setup STAGE...: makes this machine ready for those stages. As root with apt-get: installs every missing package
# (one apt-get update, one install), then looks again; what is still missing (a package this system does not have,
# e.g. python3.13 on Debian 12) is an error: "error: ..." lines, status 1. Not root: one "skipped: ... install ..."
# line per piece, appended to incomplete[] (the run's summary says it is incomplete), status 0.
setup() {
  local stage lines=() packages=() line
  for stage in "$@"; do while IFS= read -r line; do [ -n "$line" ] && lines+=("$stage|$line"); done < <(needs "$stage"); done
  [ ${#lines[@]} -eq 0 ] && return 0
  for line in "${lines[@]}"; do IFS='|' read -r _ pkgs _ <<<"$line"; packages+=($pkgs); done
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing ${packages[*]} for the test stages (apt-get)..." >&2
    mkdir -p "$LOGS"; export DEBIAN_FRONTEND=noninteractive
    local install=(apt-get install -y -qq --no-install-recommends)
    if ! { apt-get update -qq && "${install[@]}" "${packages[@]}"; } >"$LOGS/apt-get.log" 2>&1; then
      for line in "${lines[@]}"; do        # one unknown package fails the whole install: each piece alone
        IFS='|' read -r _ pkgs _ <<<"$line"; "${install[@]}" $pkgs >>"$LOGS/apt-get.log" 2>&1 || true
      done
    fi
    hash -r; lines=()
    for stage in "$@"; do while IFS= read -r line; do [ -n "$line" ] && lines+=("$stage|$line"); done < <(needs "$stage"); done
    for line in "${lines[@]}"; do
      IFS='|' read -r stage pkgs what <<<"$line"
      echo "error: $stage needs $what: apt-get could not install $pkgs (see $LOGS/apt-get.log); install it and rerun" >&2
    done
    [ ${#lines[@]} -eq 0 ]; return
  fi
  local how="as root this command installs them with apt-get"
  command -v apt-get >/dev/null 2>&1 || how="this system has no apt-get: install them with its package manager"
  for line in "${lines[@]}"; do
    IFS='|' read -r stage pkgs what <<<"$line"
    echo "skipped: $stage needs $what: install $pkgs (Debian/Ubuntu: sudo apt-get install $pkgs; $how)" >&2
    incomplete+=("$stage: no $what (install $pkgs)")
  done
  return 0
}

# ---- the test stages run as jobs on a pool of workers --------------------------------------------------------
# Each job's output goes to out/test-logs/NAME.log and is printed whole when the job ends (with its pytest
# closing line); its summary line goes to NAME.result. The pool has $CLASSIC_MODELS_JOBS workers (default: the
# machine's cores, at most 3; 1 runs the stages one after the other as before).
LOGS="${CLASSIC_MODELS_LOGS:-$ROOT/out/test-logs}"     # (a test points it elsewhere)
JOBS="${CLASSIC_MODELS_JOBS:-$(nproc 2>/dev/null || echo 1)}"
[ "$JOBS" -ge 1 ] 2>/dev/null || JOBS=1
[ "$JOBS" -le 3 ] || JOBS=3
declare -A JOB_OF=()
running=0; stages_run=()

# pool_start NAME FUNCTION [ARGS...]: FUNCTION ARGS in the background once a worker is free
pool_start() {
  local name="$1"; shift
  while [ "$running" -ge "$JOBS" ]; do pool_reap; done
  rm -f "$LOGS/$name.result"
  ( "$@" ) >"$LOGS/$name.log" 2>&1 &
  JOB_OF[$!]="$name"; running=$((running + 1)); stages_run+=("$name")
  echo "--- started: $name"
}

# pool_reap: waits for one job of the pool, prints its log, appends its summary to results[]
pool_reap() {
  local pid="" rc=0 name
  wait -n -p pid || rc=$?
  name="${JOB_OF[$pid]:-}"
  [ -n "$name" ] || return 0           # a child outside the pool (the roots being made)
  unset "JOB_OF[$pid]"; running=$((running - 1))
  echo "=== $name (exit $rc)"
  cat "$LOGS/$name.log"
  results+=("$(cat "$LOGS/$name.result" 2>/dev/null || echo "$name: FAILED (exit $rc, no summary)")")
  [ "$rc" -eq 0 ] || status=1
}

pool_drain() { while [ "$running" -gt 0 ]; do pool_reap; done; }

# wheel_job VENV PYTHON LABEL all|blender [pytest args]: the suite on one bpy wheel, whole or only the tests that
# need Blender (-m blender; pytest args may choose another -m); "none of those needs Blender" is then no failure
wheel_job() {
  local name="$1" py="$2" label="$3" scope="$4" started=$SECONDS rc=0; shift 4
  [ "$scope" = blender ] && set -- -m blender "$@"
  [ "$scope" = middle ] && set -- -m "blender and not sweep and not subprocess_bpy and not engine" "$@"
  echo "=== tests on $label (Python $("$py" -c 'import platform; print(platform.python_version())')): pytest $*"
  # its own temporary folder: pytest's numbered tmp_path folders of runs side by side never meet
  TMPDIR="$(mktemp -d "${TMPDIR:-/tmp}/classic_models_$name.XXXXXX")"; export TMPDIR
  "$py" -m pytest -q -rs "$@" || rc=$?
  rm -rf --one-file-system "$TMPDIR"
  local what="$label"; [ "$scope" = blender ] && what="$label (the tests that need Blender)"
  [ "$scope" = middle ] && what="$label (the tests that need Blender but the corpus sweeps, the command line and the engines)"
  case $rc in
    0) echo "$what: passed in $((SECONDS - started)) s" ;;
    5) if [ "$scope" != all ]; then echo "$what: none among those selected"; rc=0
       else echo "$what: NO TESTS RAN (pytest exit 5)"; fi ;;
    *) echo "$what: FAILED (pytest exit $rc)" ;;
  esac >"$LOGS/$name.result"
  [ "$rc" -eq 0 ]
}

# lint_job RUFF: ruff over the checkout (rules in pyproject.toml), then the type check of formats/ and common/
# (type_check), then the manual's mean sentence length (tools/sentence_length.py); any finding fails the run
lint_job() {
  local ruff="$1" started=$SECONDS rc=0
  echo "=== lint: $("$ruff" --version), rules in pyproject.toml"
  "$ruff" check --no-fix --output-format concise "$ROOT" || rc=$?
  echo "=== lint: $("${ruff%/ruff}/mypy" --version | cut -d' ' -f1-2) over formats/ and common/ ([tool.mypy] in pyproject.toml)"
  type_check "$ruff" || { [ "$rc" -ne 0 ] || rc=5; }
  echo "=== lint: mean sentence length of the manual's pages (tools/sentence_length.py)"
  "${ruff%/ruff}/python" tools/sentence_length.py || { [ "$rc" -ne 0 ] || rc=4; }
  case $rc in
    0) echo "lint (ruff, mypy, sentence length): passed in $((SECONDS - started)) s" ;;
    4) echo "lint: FAILED (a page a modder reads first averages over 25 words a sentence; 'python3 tools/sentence_length.py')" ;;
    5) echo "lint (mypy): FAILED (type errors in formats/ or common/: they are in its log above; 'bash tools/dev.sh lint')" ;;
    *) echo "lint (ruff): FAILED (ruff exit $rc: the findings are in its log above; 'bash tools/dev.sh lint')" ;;
  esac >"$LOGS/lint.result"
  [ "$rc" -eq 0 ]
}

# docs_job: the manual as a site (mkdocs, strict: a broken link, anchor or picture fails the run)
docs_job() {
  local started=$SECONDS rc=0
  echo "=== docs: mkdocs build --strict (tools/build_docs.sh)"
  bash tools/build_docs.sh || rc=$?
  case $rc in
    0) echo "docs (mkdocs --strict): passed in $((SECONDS - started)) s" ;;
    *) echo "docs (mkdocs --strict): FAILED (exit $rc; 'bash tools/build_docs.sh')" ;;
  esac >"$LOGS/docs.result"
  [ "$rc" -eq 0 ]
}

# real_prepare: decides whether the real-Blender stage runs; when it does, starts making (or reusing) both
# Debian roots in the background (I/O and network: they overlap the wheel runs) and returns 0. Where it cannot
# (setup has installed debootstrap as root already) it appends a line to results[] and returns 1: not root, the
# stage is skipped and the run incomplete (incomplete[]); as root or under CI=true, the run fails.
real_prepare() {
  local why
  if ! why="$(bash tools/debian_root.sh check)"; then
    if [ "$(id -u)" = 0 ] || [ "${CI:-}" = true ]; then
      echo "=== real Blender FAILED: cannot make Debian roots: $why"
      results+=("real Blender: FAILED (cannot make Debian roots: $why)"); status=1; return 1
    fi
    echo "=== real Blender SKIPPED: Debian's Blender runs in Debian roots (chroot), and that $why"
    results+=("real Blender: SKIPPED ($why)"); incomplete+=("real Blender: $why"); return 1
  fi
  echo "--- making (or reusing) the Debian sid (Blender 5.2.x) and trixie (4.3.x) roots in the background"
  rm -f "$LOGS/roots.rc"
  (
    started=$SECONDS
    bash tools/debian_root.sh ensure sid >/dev/null & sid_job=$!
    bash tools/debian_root.sh ensure trixie >/dev/null & trixie_job=$!
    rc=0; wait "$sid_job" || rc=1; wait "$trixie_job" || rc=1
    echo "$rc $((SECONDS - started))" >"$LOGS/roots.rc.tmp" && mv "$LOGS/roots.rc.tmp" "$LOGS/roots.rc"
  ) >"$LOGS/roots.log" 2>&1 &
  return 0
}

# roots_ready NAME: waits for the roots started by real_prepare; 1 (with NAME's summary written) if they failed
roots_ready() {
  while [ ! -f "$LOGS/roots.rc" ]; do sleep 2; done
  local rc seconds; read -r rc seconds <"$LOGS/roots.rc"
  if [ "$rc" != 0 ]; then
    echo "real Blender: FAILED (making the Debian roots; see .venvs/debian-*.log)" >"$LOGS/$1.result"; return 1
  fi
  echo "Debian roots ready ($seconds s after the start)"
}

# gui_job PYTHON [pytest args]: tests/real_blender, Blender's window under Xvfb in both roots
gui_job() {
  local py="$1" started rc=0; shift
  roots_ready real-blender || return 1
  echo "=== real Blender: Debian sid (Blender 5.2.x) and trixie (4.3.x), extension installed with install-file, under Xvfb"
  started=$SECONDS
  CLASSIC_MODELS_REAL_BLENDER=1 "$py" -m pytest -q tests/real_blender "$@" || rc=$?
  case $rc in
    0) echo "real Blender 5.2.x and 4.3.x: passed in $((SECONDS - started)) s" ;;
    *) echo "real Blender: FAILED (pytest exit $rc; screenshots and logs in out/real_blender/)" ;;
  esac >"$LOGS/real-blender.result"
  [ "$rc" -eq 0 ]
}

# inside_job PYTHON: the suite's Blender part (-m blender) inside Debian's Blender 4.3.x (trixie), a version the
# wheels do not cover, through pytest-blender (as `tools/dev.sh blender-test trixie`)
inside_job() {
  local py="$1" started rc=0
  roots_ready inside-4.3 || return 1
  if ! "$py" -c 'import pytest_blender' 2>/dev/null; then
    echo "suite inside Debian's Blender 4.3.x: skipped ($py has no pytest-blender)" >"$LOGS/inside-4.3.result"; return 0
  fi
  echo "=== the suite inside Debian's Blender 4.3.x (pytest-blender, tools/root_blender.sh)"
  started=$SECONDS
  CLASSIC_MODELS_ROOT="$(bash tools/debian_root.sh path trixie)" \
    "$py" -m pytest -q -m "blender and not sweep and not subprocess_bpy and not engine" -p pytest-blender --blender-executable "$ROOT/tools/root_blender.sh" \
    || rc=$?
  case $rc in
    0) echo "suite inside Debian's Blender 4.3.x: passed in $((SECONDS - started)) s" ;;
    *) echo "suite inside Debian's Blender 4.3.x: FAILED (pytest exit $rc)" ;;
  esac >"$LOGS/inside-4.3.result"
  [ "$rc" -eq 0 ]
}

# ---- the engines the engine tests build from source, in the background ---------------------------------------
# Each of ENGINE_SCRIPTS builds one engine into .venvs/engines/ (or finds it cached there) and exits 0 when it is
# ready, 3 when it cannot be built on this machine and has said why (not root for its build packages: the run is
# then incomplete), anything else on failure. The full run starts them before the venvs (they compile while pip
# downloads) and waits for them before the wheel stages, which run the engine tests. A script that is not in
# the checkout is not run. Each writes out/test-logs/engine-NAME.log, then engine-NAME.rc ("EXIT SECONDS").
ENGINE_SCRIPTS=(tools/engine_ironwail.sh tools/engine_q2pro.sh)
engine_jobs=()
engines_start() {
  local script name
  for script in "${ENGINE_SCRIPTS[@]}"; do
    [ -f "$ROOT/$script" ] || continue
    name="$(basename "$script" .sh)"; name="${name#engine_}"
    rm -f "$LOGS/engine-$name.rc"
    echo "--- building (or reusing) $name in the background ($script, log out/test-logs/engine-$name.log)"
    ( started=$SECONDS; rc=0; bash "$ROOT/$script" >"$LOGS/engine-$name.log" 2>&1 || rc=$?
      echo "$rc $((SECONDS - started))" >"$LOGS/engine-$name.rc" ) &
    engine_jobs+=("$!:$name")
  done
}

# engines_ready: waits for the builds engines_start began; one line each in results[] (a failure: status 1)
engines_ready() {
  local job name rc seconds
  for job in "${engine_jobs[@]}"; do
    name="${job#*:}"
    wait "${job%%:*}" 2>/dev/null || true        # (pool_reap's wait -n may have reaped it: the .rc file tells)
    read -r rc seconds <"$LOGS/engine-$name.rc" 2>/dev/null || { rc=1; seconds=0; }
    case $rc in
      0) results+=("engine $name: ready in $seconds s") ;;
      3) echo "=== engine $name SKIPPED:"; tail -5 "$LOGS/engine-$name.log"
         results+=("engine $name: SKIPPED (cannot be built here; out/test-logs/engine-$name.log)")
         incomplete+=("engine $name: not built ($(tail -1 "$LOGS/engine-$name.log"))") ;;
      *) echo "=== engine $name FAILED (exit $rc):"; tail -20 "$LOGS/engine-$name.log"
         results+=("engine $name: FAILED (exit $rc; out/test-logs/engine-$name.log)"); status=1 ;;
    esac
  done
  engine_jobs=()
}

# corpus_step 0|1 (quick): the corpus before the stages (tools/corpus.py): missing files copied or fetched and
# their sha256 checked; the full lane hashes every file (--verify: about 0.15 s for the 62 MB, warm), the quick
# lane compares sizes (about 0.02 s). A wrong file stops the run before the stages (returns 1); files this
# machine cannot get (no network, no apt-get) make it INCOMPLETE (their tests skip saying so; under CI=true the
# suite fails at its start).
corpus_step() {
  local args=() rc=0 started=$SECONDS
  [ "$1" = 1 ] || args=(--verify)
  echo "=== corpus: tools/corpus.py${args[*]:+ ${args[*]}}"
  python3 tools/corpus.py "${args[@]}" || rc=$?
  case $rc in
    0) results+=("corpus: ready in $((SECONDS - started)) s") ;;
    3) results+=("corpus: INCOMPLETE (files this machine could not get: the lines above)")
       incomplete+=("corpus: files not got (no network or apt-get?); 'bash tools/dev.sh corpus' says which") ;;
    *) echo "=== FAILED: the corpus has a wrong file or cannot be made (the lines above; tools/corpus.py exit $rc)"
       return 1 ;;
  esac
}

# finish: the summary's closing lines and the exit status: 0 when every stage ran and passed, 1 when one failed,
# 3 when every stage that ran passed but some were skipped for what this machine lacks (incomplete[]; 1 under
# CI=true, where every stage must run).
finish() {
  if [ ${#incomplete[@]} -gt 0 ]; then
    echo "=== INCOMPLETE: this machine lacks what these need (as root, this command installs it with apt-get):"
    printf '  %s\n' "${incomplete[@]}"
    if [ "$status" = 0 ]; then if [ "${CI:-}" = true ]; then status=1; else status=3; fi; fi
  fi
  exit "$status"
}

# The test matrix: oldest supported LTS, the LTS with both action APIs, the newest LTS.
MATRIX=("bpy-4.2:bpy==4.2.*:3.11" "bpy-4.5:bpy==4.5.*:3.11" "bpy-5.2:bpy==5.2.*:3.13")

cmd="${1:-test}"; shift || true
case "$cmd" in
  demo)
    py="$(newest)"
    exec "$py" tools/demo.py "$@" ;;
  test|quick)
    quick=0; [ "$cmd" = quick ] && quick=1
    [ "${1:-}" = --quick ] && { quick=1; shift; }
    status=0; results=(); incomplete=(); host_py=""; mkdir -p "$LOGS"; began=$SECONDS
    # Everything the stages need from the system, first (the quick lane installs nothing): as root missing
    # packages are installed with apt-get, and what cannot be is an error that stops the run here; not root,
    # each missing piece is one "skipped:" line and the run ends INCOMPLETE (exit 3; see finish).
    if [ "$quick" = 0 ] && ! setup venvs wheels engines real-blender; then
      echo "=== FAILED: this machine lacks what the test stages need (the errors above)"; exit 1
    fi
    corpus_step "$quick" || exit 1
    [ "$quick" = 1 ] || engines_start
    # The Khronos glTF validator for tests/engines/test_glb_valid.py (npm, into the ignored .venvs/); without node
    # and npm that test's validator step skips saying so (its JSON checks still run). The quick lane uses it
    # only when it is there already.
    export CLASSIC_MODELS_GLTF_VALIDATOR="${CLASSIC_MODELS_GLTF_VALIDATOR:-$ROOT/.venvs/gltf-validator}"
    if [ "$quick" = 0 ] && command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 \
       && [ ! -f "$CLASSIC_MODELS_GLTF_VALIDATOR/node_modules/gltf-validator/package.json" ]; then
      echo "installing gltf-validator into $CLASSIC_MODELS_GLTF_VALIDATOR..." >&2
      if ! npm install --prefix "$CLASSIC_MODELS_GLTF_VALIDATOR" --no-audit --no-fund --silent gltf-validator \
           >"$LOGS/npm.log" 2>&1; then
        echo "=== glTF validator FAILED: npm could not install gltf-validator (out/test-logs/npm.log)"
        results+=("glTF validator: FAILED (npm install gltf-validator; out/test-logs/npm.log)"); status=1
      fi
    fi
    # The real-Blender layer runs once (not per wheel), on the full run only: pytest args select wheel tests.
    real=0
    if [ "$quick" = 1 ]; then
      results+=("real Blender: not run (quick lane; 'bash tools/dev.sh real-blender')")
    elif [ $# -eq 0 ] || [ "${CLASSIC_MODELS_REAL_BLENDER:-}" = 1 ]; then
      real_prepare && real=1
    else
      results+=("real Blender: not run (pytest args given; run 'bash tools/dev.sh real-blender')")
    fi
    # The venvs first, one after the other (pip), then the stages on the pool ($JOBS at once).
    ruff=""
    if ! ruff="$(lint_venv)"; then
      echo "=== lint FAILED: could not set up .venvs/lint ($RUFF_SPEC)"
      results+=("lint: setup failed"); status=1
    fi
    wheels=()
    if [ "$quick" = 1 ]; then
      if py="$(newest)"; then
        wheels+=("$(basename "$(dirname "$(dirname "$py")")")|$py|Blender $("$py" -c 'import bpy; print(bpy.app.version_string)' 2>/dev/null | tail -1)")
      else
        echo "=== quick lane FAILED: could not set up the newest bpy"; results+=("quick lane: setup failed"); status=1
      fi
    else
      for entry in "${MATRIX[@]}"; do
        IFS=: read -r name spec want <<<"$entry"
        label="${spec#bpy==}"; label="Blender ${label%.\*}"
        if ! has_python "$name" "$want"; then     # (as root setup has installed it or stopped the run)
          echo "=== tests on $label SKIPPED: needs Python $want; install it (e.g. 'pyenv install $want' or your package manager's python$want) and rerun"
          results+=("$label: SKIPPED (no Python $want)"); incomplete+=("$label: no Python $want"); continue
        fi
        if ! py="$(venv "$name" "$spec" "$want")"; then
          echo "=== tests on $label FAILED: could not set up .venvs/$name"
          results+=("$label: setup failed"); status=1; continue
        fi
        label="Blender $("$py" -c 'import bpy; print(bpy.app.version_string)' 2>/dev/null | tail -1)"
        wheels+=("$name|$py|$label"); host_py="$py"
      done
    fi
    echo "=== running the stages, $JOBS at a time (each job's output is printed when it ends)"
    [ -z "$ruff" ] || pool_start lint lint_job "$ruff"
    pool_start docs docs_job
    engines_ready                 # the engine tests are in the wheel stages
    # The newest wheel runs the whole suite, the older ones only the tests that need Blender (-m blender): a
    # bpy-free test (codecs, CLI info/check, tools) runs once. A wheel between the newest and the oldest leaves
    # the corpus sweeps (-m sweep: a test over every file of a corpus folder) and the command line run with bpy
    # in a subprocess (-m subprocess_bpy: the same Python code on every Blender) and an engine's reading of an
    # export (-m engine: tests/engines) to those two, whose Blender APIs are the ones it lies between.
    # The quick lane's one wheel spreads its tests over the cores (pytest-xdist; worksteal: a worker left idle
    # at the end takes tests queued for the other, 620 -> 589 s measured).
    # Longest first, so that no long stage starts last beside an idle worker: the newest wheel (the whole
    # suite), then the real-Blender stage when the Debian roots are ready by then (its tests wait on the
    # screen, not on a core), the oldest wheel, the middle one, the suite inside Debian's Blender.
    started_real=0
    for ((i = ${#wheels[@]} - 1; i >= 0; i--)); do
      IFS='|' read -r name py label <<<"${wheels[i]}"
      scope=blender; [ "$i" -gt 0 ] && scope=middle; [ "$i" -eq $((${#wheels[@]} - 1)) ] && scope=all
      [ "$scope" = middle ] && continue
      spread=()
      [ "$quick" = 1 ] && [ "$JOBS" -gt 1 ] && "$py" -c 'import xdist' 2>/dev/null && spread=(-n "$JOBS" --dist worksteal)
      pool_start "$name" wheel_job "$name" "$py" "$label" "$scope" "${spread[@]}" "$@"
      if [ "$real" = 1 ] && [ "$started_real" = 0 ] && [ -f "$LOGS/roots.rc" ]; then
        pool_start real-blender gui_job "${host_py:-python3}"; started_real=1
      fi
    done
    for ((i = ${#wheels[@]} - 2; i > 0; i--)); do
      IFS='|' read -r name py label <<<"${wheels[i]}"
      pool_start "$name" wheel_job "$name" "$py" "$label" middle "$@"
    done
    if [ "$real" = 1 ]; then
      [ "$started_real" = 1 ] || pool_start real-blender gui_job "${host_py:-python3}"
      [ $# -gt 0 ] || pool_start inside-4.3 inside_job "${host_py:-python3}"
    fi
    pool_drain
    wait || true          # the roots' background job, if nothing reaped it
    echo "=== summary ($((SECONDS - began)) s in all)"
    printf '  %s\n' "${results[@]}"
    # out/test-logs/summary.json: the run's figures for the manual (python tools/figures.py record ci-run ...)
    lane=full; [ "$quick" = 1 ] && lane=quick
    python3 tools/figures.py tests "$LOGS" --total $((SECONDS - began)) --lane "$lane" --stages "${stages_run[@]}" \
      || echo "note: could not write $LOGS/summary.json"
    finish ;;
  setup)
    # What the stages need from this machine (default: every stage of the test command): installed as root with
    # apt-get; exit 0 ready, 1 something cannot be installed, 3 not root and something missing (listed).
    status=0; incomplete=(); mkdir -p "$LOGS"
    stages=("$@"); [ $# -gt 0 ] || stages=(venvs wheels engines real-blender)
    for stage in "${stages[@]}"; do
      case "$stage" in venvs|wheels|engines|real-blender) ;; *) echo "error: no stage '$stage' (venvs, wheels, engines, real-blender)" >&2; exit 2 ;; esac
    done
    setup "${stages[@]}" || exit 1
    finish ;;
  corpus)
    exec python3 tools/corpus.py "$@" ;;
  lint)
    ruff="$(lint_venv)" || exit 1
    rc=0; "$ruff" check "$@" || rc=$?
    type_check "$ruff" || rc=1
    "${ruff%/ruff}/python" tools/sentence_length.py >/dev/null || rc=1   # prints only the pages over the limit
    exit "$rc" ;;
  real-blender)
    # The host side needs only pytest and numpy: a venv of the matrix when there is one, else python3.
    status=0; results=(); incomplete=(); py=python3; mkdir -p "$LOGS"
    setup real-blender || exit 1
    for name in bpy-5.2 bpy-4.5 bpy-4.2; do
      [ -x "$ROOT/.venvs/$name/bin/python" ] && { py="$ROOT/.venvs/$name/bin/python"; break; }
    done
    "$py" -c 'import pytest, numpy' 2>/dev/null || { echo "error: $py lacks pytest or numpy (run 'bash tools/dev.sh test' once, or pip install them)" >&2; exit 1; }
    if real_prepare; then
      pool_start real-blender gui_job "$py" "$@"
      [ $# -gt 0 ] || pool_start inside-4.3 inside_job "$py"
      pool_drain; wait || true
    fi
    printf '  %s\n' "${results[@]}"
    finish ;;
  bench)
    py="$(newest)"
    exec "$py" tools/benchmark.py "$@" ;;
  bench-ms3d)
    py="$(newest)"
    exec "$py" tools/benchmark_ms3d.py "$@" ;;
  bench-floor)
    py="$(newest)"
    exec "$py" tools/benchmark_floor.py "$@" ;;
  bench-md5-import)
    py="$(newest)"
    exec "$py" tools/benchmark_md5_import.py "$@" ;;
  bench-md5-md3)
    py="$(newest)"
    exec "$py" tools/benchmark_md5_md3.py "$@" ;;
  fuzz)
    py="$(newest)"
    exec "$py" tools/fuzz_campaign.py "$@" ;;
  build)
    py="$(newest)"
    exec "$py" tools/build_extension.py "$@" ;;
  blender-test)
    # The suite inside a real Blender program through pytest-blender: `sid` (Debian's Blender 5.2.x LTS)
    # or `trixie` (4.3.x) in a Debian root made by tools/debian_root.sh, or a Blender binary's path.
    target="${1:?usage: tools/dev.sh blender-test sid|trixie|/path/to/blender [pytest args]}"; shift
    py="$(newest)"
    case "$target" in
      sid|trixie)
        CLASSIC_MODELS_ROOT="$(bash tools/debian_root.sh ensure "$target")" || exit 1
        export CLASSIC_MODELS_ROOT
        blender="$ROOT/tools/root_blender.sh" ;;
      *) blender="$target" ;;
    esac
    exec "$py" -m pytest -p pytest-blender --blender-executable "$blender" "$@" ;;
  cli)
    # python -m classic_models from the checkout: PYTHONPATH holds a classic_models -> checkout link.
    py="$(newest)"
    mkdir -p "$ROOT/.venvs/pkgpath"
    ln -sfn "$ROOT" "$ROOT/.venvs/pkgpath/classic_models"
    cd "${OLDPWD:-$ROOT}"
    PYTHONPATH="$ROOT/.venvs/pkgpath${PYTHONPATH:+:$PYTHONPATH}" exec "$py" -m classic_models "$@" ;;
  *)
    echo "usage: bash tools/dev.sh {demo|test [--quick]|quick|setup [STAGE...]|corpus|lint|real-blender|bench|bench-ms3d|bench-floor|bench-md5-import|bench-md5-md3|fuzz|build|cli|blender-test}" >&2; exit 2 ;;
esac
