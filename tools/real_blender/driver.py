"""Run the real-Blender GUI session in a Debian root and collect its output (host side, stdlib only).

    python3 tools/real_blender/driver.py sid|trixie [--out out/real_blender/SUITE]
    python3 tools/real_blender/driver.py sid|trixie --repository    # the release repository's round only

The root comes from ``tools/debian_root.sh`` (``$CLASSIC_MODELS_ROOTS``, default ``.venvs``; it must be made
first with ``ensure``). The checkout is COPIED into the root (never bind-mounted: deleting a root must never
reach host files), ``session.sh`` runs inside it (extension build, install-file, Xvfb, Blender with
``gui_session.py``), then the session's output (results.json, logs, screenshots) is copied to ``--out``.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parents[2]
ROOT_TOOL = CHECKOUT / "tools" / "debian_root.sh"
INSIDE = f"opt/classic_models_test_{os.getpid()}"     # one folder per run: runs in one root do not collide
SKIP_DIRS = {".git", ".venvs", "out", "dist", "__pycache__", ".pytest_cache"}


def root_path(suite: str) -> Path | None:
    """The ready root of ``suite``, or None when it has not been made."""
    result = subprocess.run(["bash", str(ROOT_TOOL), "path", suite], capture_output=True, text=True)
    return Path(result.stdout.strip()) if result.returncode == 0 and result.stdout.strip() else None


def copy_checkout(target: Path) -> None:
    """The checkout's files (no venvs, git data or outputs) into ``target``."""
    def ignore(folder: str, names: list[str]) -> set[str]:
        return {n for n in names if n in SKIP_DIRS or n.endswith(".pyc")}
    shutil.copytree(CHECKOUT, target, ignore=ignore, symlinks=True)


def run_session(suite: str, out: Path, only: str = "", timeout: float = 3000.0) -> dict:
    """Run the GUI session in the ``suite`` root (``only``: comma-separated scenario names, for debugging);
    returns the exit code and seconds. Output lands in ``out``."""
    root = root_path(suite)
    if root is None:
        raise RuntimeError(f"no ready {suite} root: run 'bash tools/debian_root.sh ensure {suite}'")
    base = root / INSIDE
    if base.exists():
        shutil.rmtree(base)          # plain files only: nothing is ever mounted under it
    started = time.monotonic()
    copy_checkout(base / "src")
    copied = time.monotonic()
    (base / "only.txt").write_text(only)
    result = subprocess.run(["bash", str(ROOT_TOOL), "run", suite, "bash", f"/{INSIDE}/src/tools/real_blender/session.sh",
                             f"/{INSIDE}"],
                            timeout=timeout, capture_output=True, text=True)
    if out.exists():
        shutil.rmtree(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    if (base / "out").is_dir():
        shutil.copytree(base / "out", out)
    else:
        out.mkdir()
    (out / "session_stdout.txt").write_text(result.stdout + result.stderr)
    shutil.rmtree(base, ignore_errors=True)
    info = {"returncode": result.returncode, "seconds": round(time.monotonic() - started, 1),
            "copy_s": round(copied - started, 1)}
    (out / "driver.json").write_text(json.dumps(info))
    return info


def run_repository(suite: str, out: Path, timeout: float = 900.0) -> dict:
    """The release repository's round (``repository_session.py``: build, add by file:// URL, install, build a
    newer version, update) in one background Blender of the ``suite`` root, started with ``--online-mode`` and
    a fresh user folder; its repository.json, index.json, index.html and console go to ``out``."""
    root = root_path(suite)
    if root is None:
        raise RuntimeError(f"no ready {suite} root: run 'bash tools/debian_root.sh ensure {suite}'")
    inside = f"{INSIDE}_repository"
    base = root / inside
    if base.exists():
        shutil.rmtree(base)
    started = time.monotonic()
    copy_checkout(base / "src")
    result = subprocess.run(["bash", str(ROOT_TOOL), "run", suite, "env", f"HOME=/{inside}/home", "blender",
                             "--background", "--online-mode", "--python",
                             f"/{inside}/src/tools/real_blender/repository_session.py", "--",
                             f"/{inside}/src", f"/{inside}/out"],
                            timeout=timeout, capture_output=True, text=True)
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    for name in ("repository.json", "repository/index.json", "repository/index.html"):
        if (base / "out" / name).is_file():
            shutil.copy2(base / "out" / name, out / Path(name).name)
    (out / "blender.log").write_text(result.stdout + result.stderr)
    shutil.rmtree(base, ignore_errors=True)
    return {"returncode": result.returncode, "seconds": round(time.monotonic() - started, 1)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("suite", choices=("sid", "trixie"))
    parser.add_argument("--out", type=Path)
    parser.add_argument("--only", default="", help="comma-separated scenario names (make_scene always runs)")
    parser.add_argument("--repository", action="store_true",
                        help="run the release repository's round (repository_session.py) instead of the GUI session")
    args = parser.parse_args()
    if args.repository:
        out = args.out or CHECKOUT / "out" / "real_blender" / f"{args.suite}-repository"
        info = run_repository(args.suite, out)
    else:
        out = args.out or CHECKOUT / "out" / "real_blender" / args.suite
        info = run_session(args.suite, out, args.only)
    print(f"{args.suite}: session exit {info['returncode']} in {info['seconds']} s -> {out}")
    return 0 if info["returncode"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
