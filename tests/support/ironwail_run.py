"""Runs ironwail (built by ``tools/engine_ironwail.sh`` into ``.venvs/engines/ironwail-<commit>/``) on a
basedir made by :mod:`support.quake_data` under Xvfb, and returns its screenshot and console log.

It waits on state, not on time: the demo itself stuffs ``screenshot`` once its entities have been drawn and
``quit`` after it, so the run is over when the process ends; the timeout only guards a hang (the process
group is then killed) and the screenshot counts only when the console says it was written. The engine
writes ``shot0000.tga`` into the game folder (``SCR_ScreenShot_f``, gl_screen.c; the build has no user
folders, ``DO_USERDIRS=0``) and, with ``-condebug``, its console to ``qconsole.log`` (``LOG_Init``,
console.c). A missing build or Xvfb skips the test saying what to run; under CI (``CI=true``) it fails.
"""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from .engine_tools import on_source_engine_wheel
from .engine_view import read_screenshot
from .environment import CHECKOUT


def ironwail_binary() -> Path:
    """The built engine; else skip (fail under CI) saying to run tools/engine_ironwail.sh; skipped on the
    wheels other than :data:`.engine_tools.SOURCE_ENGINES_ON`."""
    on_source_engine_wheel()
    found = sorted((CHECKOUT / ".venvs" / "engines").glob("ironwail-*/ironwail"))
    xvfb = shutil.which("xvfb-run")
    if found and xvfb and os.access(found[-1], os.X_OK):
        return found[-1]
    what = ("ironwail is not built: run `bash tools/engine_ironwail.sh` (it builds ../shared/engines' "
            "ironwail into .venvs/engines/)" if not found else "install xvfb (Debian: apt-get install xvfb)")
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"{what}; the test command runs tools/engine_ironwail.sh under CI")
    pytest.skip(what)


@dataclass
class EngineShot:
    image: np.ndarray          # (height, width, 3) RGB, top row first
    log: str                   # the console log (qconsole.log)


def run_ironwail(root: Path, width: int, height: int, timeout: float = 900) -> EngineShot:
    """Start ironwail on ``root`` (``root/id1`` written by quake_data.write_basedir) in a ``width`` x
    ``height`` window, wait for it to quit, return its screenshot and log; fail with the log's end when
    the engine stops without a screenshot."""
    exe = ironwail_binary()
    shot = root / "id1" / "shot0000.tga"
    command = ["xvfb-run", "-a", "-s", f"-screen 0 {width}x{height}x24", str(exe), "-basedir", str(root),
               "-condebug", "-nosound", "-window", "-width", str(width), "-height", str(height)]
    env = dict(os.environ, HOME=str(root), SDL_AUDIODRIVER="dummy", LIBGL_ALWAYS_SOFTWARE="1")
    output = root / "ironwail.out"
    with output.open("w") as sink:
        process = subprocess.Popen(command, cwd=root, env=env, stdout=sink, stderr=subprocess.STDOUT,
                                   start_new_session=True)
        try:
            process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)      # its own session: xvfb-run, Xvfb and the engine
            process.wait()
    log_path = next((p for p in (root / "qconsole.log", root / "id1" / "qconsole.log") if p.is_file()), None)
    log = log_path.read_text(errors="replace") if log_path else ""
    if not shot.is_file() or "Wrote shot0000.tga" not in log:
        tail = "\n".join((log or output.read_text(errors="replace")).splitlines()[-25:])
        pytest.fail(f"ironwail wrote no screenshot ({shot}, exit {process.returncode}); its console ends:\n{tail}")
    return EngineShot(read_screenshot(shot), log)
