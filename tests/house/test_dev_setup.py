"""What the test command's stages need from the machine (issue 45): `bash tools/dev.sh setup` and the
real-Blender stage, run with a PATH of stubs in a temporary folder. `id` says root or not; `apt-get` logs each
call and "installs" a package by putting a command of its name on that PATH (or refuses the packages named in
APT_MISSING, as apt-get does a package the system does not have); the machine's own debootstrap (/usr/sbin) is
not on the PATH. As root what is missing is installed with apt-get, or the run fails naming it; not root, the
stage is skipped with the line saying what to install and the run ends INCOMPLETE (exit 3), never green."""
from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

CHECKOUT = Path(__file__).resolve().parents[2]

ID = """#!/bin/sh
[ "$1" = -u ] && { echo "$FAKE_UID"; exit 0; }
exec /usr/bin/id "$@"
"""
APT_GET = """#!/bin/sh
echo "$*" >>"$STUBS/apt-get.log"
[ "$1" = update ] && exit 0
for p in "$@"; do
  case "$p" in -*|install) continue ;; esac
  case " $APT_MISSING " in *" $p "*) echo "E: Unable to locate package $p" >&2; exit 100 ;; esac
done
for p in "$@"; do
  case "$p" in -*|install) continue ;; esac
  printf '#!/bin/sh\\nexit 0\\n' >"$STUBS/$p"; chmod +x "$STUBS/$p"
done
"""


def dev(tmp_path: Path, *args: str, uid: int, apt_missing: str = "") -> subprocess.CompletedProcess:
    """``bash tools/dev.sh ARGS`` with the stubs first on PATH, then /usr/bin and /bin only."""
    stubs = tmp_path / "stubs"
    stubs.mkdir(exist_ok=True)
    for name, text in (("id", ID), ("apt-get", APT_GET)):
        (stubs / name).write_text(text)
        (stubs / name).chmod(0o755)
    env = {**os.environ, "PATH": f"{stubs}:/usr/bin:/bin", "STUBS": str(stubs), "FAKE_UID": str(uid),
           "APT_MISSING": apt_missing, "CLASSIC_MODELS_LOGS": str(tmp_path / "logs"),
           "CLASSIC_MODELS_ROOTS": str(tmp_path / "roots")}
    env.pop("CI", None)
    return subprocess.run(["/bin/bash", str(CHECKOUT / "tools" / "dev.sh"), *args], cwd=CHECKOUT, env=env,
                          capture_output=True, text=True, timeout=300)


def apt_calls(tmp_path: Path) -> list[str]:
    log = tmp_path / "stubs" / "apt-get.log"
    return log.read_text().splitlines() if log.is_file() else []


@pytest.fixture(autouse=True)
def no_debootstrap_on_the_stub_path():
    if any(Path(d, "debootstrap").exists() for d in ("/usr/bin", "/bin")):
        pytest.skip("debootstrap is in /usr/bin or /bin here: the stub PATH cannot leave it out")


def test_as_root_the_missing_debootstrap_is_installed_with_apt_get(tmp_path):
    run = dev(tmp_path, "setup", "real-blender", uid=0)
    assert run.returncode == 0, run.stderr
    calls = apt_calls(tmp_path)
    assert calls[0] == "update -qq" and "debootstrap" in calls[1].split() and calls[1].startswith("install"), calls
    assert (tmp_path / "stubs" / "debootstrap").is_file()
    assert "skipped" not in run.stderr and "INCOMPLETE" not in run.stdout, run.stderr + run.stdout


def test_as_root_a_package_apt_get_cannot_install_fails_the_run_naming_it(tmp_path):
    run = dev(tmp_path, "setup", "real-blender", uid=0, apt_missing="debootstrap")
    assert run.returncode == 1, run.stdout + run.stderr
    assert "error: real-blender needs debootstrap, which makes the Debian roots: apt-get could not install " \
           "debootstrap" in run.stderr, run.stderr
    assert not (tmp_path / "stubs" / "debootstrap").exists()


def test_not_root_nothing_is_installed_and_the_run_is_incomplete(tmp_path):
    run = dev(tmp_path, "setup", "real-blender", uid=1000)
    assert run.returncode == 3, run.stdout + run.stderr
    assert apt_calls(tmp_path) == []
    assert "install debootstrap (Debian/Ubuntu: sudo apt-get install debootstrap" in run.stderr, run.stderr
    assert "=== INCOMPLETE" in run.stdout and "real-blender: no debootstrap, which makes the Debian roots " \
           "(install debootstrap)" in run.stdout, run.stdout


def test_not_root_the_real_blender_stage_is_skipped_saying_so_and_never_green(tmp_path):
    """The stage's own command, not root: no root can be made, so the stage is skipped with that line, the
    summary says the run is incomplete and the exit status is 3 (it was 0: a green run without the stage)."""
    if not any((CHECKOUT / ".venvs" / name / "bin" / "python").exists() for name in ("bpy-5.2", "bpy-4.5", "bpy-4.2")):
        pytest.skip("no .venvs/bpy-* here for the stage's host side (bash tools/dev.sh test makes them)")
    run = dev(tmp_path, "real-blender", uid=1000)
    assert run.returncode == 3, run.stdout + run.stderr
    assert "=== real Blender SKIPPED" in run.stdout and "needs root" in run.stdout, run.stdout
    assert "=== INCOMPLETE" in run.stdout and "real Blender: needs root" in run.stdout, run.stdout
    assert apt_calls(tmp_path) == []
