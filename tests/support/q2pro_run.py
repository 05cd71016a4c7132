"""Run the Q2PRO built by ``tools/engine_q2pro.sh`` under Xvfb and drive it through its console on
stdin: play a demo, take a screenshot, read the console, quit; every step waits on what the engine
printed, never on time.

- Xvfb is started here with ``-displayfd``: it writes its display number once it accepts clients, so
  the engine starts on a ready server whatever the load (``xvfb-run -a`` raced with other servers
  starting at the same time: Q2PRO's X11 driver then failed to open the display and fell back to SDL).

- ``sys_console 1`` (set on the command line; ``src/unix/tty.c`` ``tty_init_input``) makes the client
  read commands from stdin (not a terminal) and print its console to stdout; ``logfile 1`` with
  ``logfile_flush 1`` keeps the same lines in ``<homedir>/baseq2/logs/console.log``
  (``src/common/common.c``), each line led by its kind (``logfile_prefix "@ "``: ``format_prefix`` puts
  one of ``ATDWEN`` for the ``@``; W a warning, E an error): :meth:`Q2Pro.complaints`.
- A demo's last message prints a marker (``quake2_data.demo``'s ``marker``) once the client has parsed
  every frame of it (``src/client/demo.c`` ``CL_DemoFrame``; ``cl_demowait 1`` then keeps
  the last frame on screen). The screenshot is asked for after the marker and after a second marker
  echoed from stdin, so at least one frame has been drawn with the demo's last state.
- ``screenshottga NAME`` writes ``<homedir>/baseq2/screenshots/NAME.tga`` synchronously and prints
  ``Wrote ...`` (``src/refresh/images.c`` ``IMG_ScreenShotTGA_f``, ``screenshot_done_cb``).

Engine settings: no sound (``s_enable 0``), the HUD and 2D off (``scr_draw2d 0``, ``cl_gun 0``), the screen
cleared to black every frame (``gl_clear 1``), models drawn unshaded at the skin's colour (the entity's
``RF_FULLBRIGHT``, ``gl_dotshading 0``, ``intensity 1``, ``gl_brightness 0``), nearest texel filtering
(``gl_texturemode GL_NEAREST``) so sampled colours are the skin's, no frame lerp (``cl_nolerp 1``) and no
level of detail for the MD5 (``gl_md5_distance 0``).
"""
from __future__ import annotations

import os
import queue
import select
import shutil
import subprocess
import threading
import time
from pathlib import Path

import pytest

from .engine_tools import on_source_engine_wheel
from .environment import CHECKOUT

ENGINE_GLOB = "q2pro-*"
SETTINGS = {
    "s_enable": "0", "vid_fullscreen": "0", "in_grab": "0", "scr_draw2d": "0", "cl_gun": "0",
    "gl_clear": "1", "gl_dotshading": "0", "intensity": "1", "gl_brightness": "0", "gl_texturemode": "GL_NEAREST",
    "gl_shadows": "0", "cl_nolerp": "1", "cl_demowait": "1", "gl_md5_distance": "0", "logfile": "1",
    "logfile_flush": "1", "logfile_prefix": "@ ", "con_notifytime": "0", "scr_showturtle": "0", "cl_maxfps": "30",
    "r_maxfps": "30", "scr_demobar": "0",
}
TIMEOUT = 180.0


def engine_folder() -> Path:
    """The cached build; else skip (or fail under CI) saying what to run; skipped on the wheels other than
    :data:`.engine_tools.SOURCE_ENGINES_ON`."""
    on_source_engine_wheel()
    found = sorted((CHECKOUT / ".venvs" / "engines").glob(ENGINE_GLOB))
    found = [f for f in found if (f / "q2pro").is_file()]
    xvfb = shutil.which("Xvfb")
    if found and xvfb:
        return found[-1]
    message = ("Q2PRO is not built: run `bash tools/engine_q2pro.sh` (it builds Q2PRO "
               "from ../shared/engines into .venvs/engines/)" if not found else
               "install xvfb (Debian: apt-get install xvfb) to run Q2PRO")
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"{message}; under CI the test command builds it")
    pytest.skip(message)


def _start_xvfb(width: int, height: int) -> tuple[subprocess.Popen, str]:
    """An Xvfb of one screen; returns it and its display once it is ready (``-displayfd``)."""
    read_end, write_end = os.pipe()
    server = subprocess.Popen(["Xvfb", "-displayfd", str(write_end), "-screen", "0", f"{width}x{height}x24",
                               "-nolisten", "tcp"], pass_fds=(write_end,), stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    os.close(write_end)
    text = b""
    try:
        while not text.endswith(b"\n"):
            ready, _, _ = select.select([read_end], [], [], TIMEOUT)
            chunk = os.read(read_end, 64) if ready else b""
            if not chunk:
                server.kill()
                raise AssertionError(f"Xvfb gave no display number (exit {server.poll()})")
            text += chunk
    finally:
        os.close(read_end)
    return server, f":{text.decode().strip()}"


class Q2Pro:
    """One engine process; use as a context manager."""

    def __init__(self, root: Path, width: int = 640, height: int = 480, settings: dict[str, str] | None = None):
        self.root, self.home = root, root / "home"
        self.home.mkdir(parents=True, exist_ok=True)
        self.lines: list[str] = []
        self._queue: queue.Queue[str] = queue.Queue()
        exe = engine_folder() / "q2pro"
        self.xvfb, display = _start_xvfb(width, height)
        cvars = dict(SETTINGS, vid_geometry=f"{width}x{height}", **(settings or {}))
        args = ["+set", "sys_console", "1", "+set", "basedir", str(root), "+set", "homedir", str(self.home)]
        for name, value in cvars.items():
            args += ["+set", name, value]
        self.process = subprocess.Popen(
            [str(exe), *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, cwd=root,
            env=dict(os.environ, HOME=str(self.home), SDL_AUDIODRIVER="dummy", DISPLAY=display))
        threading.Thread(target=self._read, daemon=True).start()
        self._mark = 0

    def _read(self) -> None:
        for raw in self.process.stdout:
            self._queue.put(raw.decode("latin-1").rstrip("\r\n"))
        self._queue.put(None)

    def __enter__(self):
        self.wait_for("classic_models: ready", send="echo classic_models: ready")
        return self

    def __exit__(self, *exc):
        self.close()

    def send(self, command: str) -> None:
        self.process.stdin.write((command + "\n").encode("ascii"))
        self.process.stdin.flush()

    def wait_for(self, text: str, send: str | None = None, timeout: float = TIMEOUT) -> str:
        """Wait until a console line holds ``text`` (sending ``send`` again every few seconds while the
        console is not up yet); returns the line."""
        deadline, resend = time.monotonic() + timeout, 0.0
        while True:
            now = time.monotonic()
            if now > deadline:
                raise AssertionError(f"Q2PRO printed no line with {text!r} in {timeout:.0f} s:\n" + self.tail())
            if send is not None and now >= resend:
                self.send(send)
                resend = now + 5.0
            try:
                line = self._queue.get(timeout=0.5)
            except queue.Empty:
                if self.process.poll() is not None and self._queue.empty():
                    raise AssertionError(f"Q2PRO exited ({self.process.returncode}) before {text!r}:\n" + self.tail())
                continue
            if line is None:
                raise AssertionError(f"Q2PRO closed its console before {text!r}:\n" + self.tail())
            self.lines.append(line)
            if text in line:
                return line

    def tail(self, count: int = 40) -> str:
        return "\n".join(self.lines[-count:])

    def mark(self) -> str:
        """Echo a fresh marker and wait for it: every command sent before has run."""
        self._mark += 1
        text = f"classic_models: mark {self._mark}"
        self.send(f"echo {text}")
        self.wait_for(text)
        return text

    def play(self, demo: str, marker: str) -> None:
        """``demo NAME`` and wait for the marker its last message echoes."""
        self.send(f"demo {demo}")
        self.wait_for(marker)

    def screenshot(self, name: str) -> Path:
        """Two markers (a frame drawn in between), then ``screenshottga NAME``; the file it wrote."""
        self.mark()
        self.mark()
        self.send(f"screenshottga {name}")
        line = self.wait_for(f"{name}.tga")
        assert "Wrote" in line, line
        path = self.home / "baseq2" / "screenshots" / f"{name}.tga"
        assert path.is_file(), line
        return path

    def close(self) -> None:
        if self.process.poll() is None:
            try:
                self.send("quit")
                self.process.wait(timeout=30)
            except (OSError, subprocess.TimeoutExpired):
                self.process.kill()
                self.process.wait()
        self.xvfb.terminate()
        self.xvfb.wait(timeout=30)
        while True:
            try:
                line = self._queue.get_nowait()
            except queue.Empty:
                break
            if line is not None:
                self.lines.append(line)

    def complaints(self) -> list[str]:
        """The warning and error lines of the console log once the engine is up (``Q2PRO initialized``,
        ``src/common/common.c`` ``Qcommon_Init``): what it says of the game's files, the demos and
        models; the display's setup before it (Xvfb's GLX has no swap control) is not about them."""
        lines = self.log.splitlines()
        start = next((i for i, line in enumerate(lines) if "Q2PRO initialized" in line), 0)
        return [line[2:] for line in lines[start:] if line[:2] in ("W ", "E ")]

    @property
    def log(self) -> str:
        path = self.home / "baseq2" / "logs" / "console.log"
        return path.read_text(errors="replace") if path.is_file() else "\n".join(self.lines)
