"""OpenArena (Debian ``openarena``: the ioquake3 engine with OpenArena's data) run headless under Xvfb, to
prove Quake III loads an export: loose files in ``$HOME/.openarena/baseoa`` override the pk3s when
``sv_pure`` is 0, the game loads a map, ``modellist`` lists every model it loaded (``<bytes> : (<LODs>)
<name>``, renderergl1 ``R_Modellist_f``; the bytes are the MD3's own size) and quits. The renderer's
complaints about a model come as ``WARNING`` or ``R_LoadMD3`` lines in the log."""
from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

from .engine_tools import require

MAP = "oa_dm1"


def openarena_models(files: dict[str, Path], work: Path, *settings: str,
                     game_args: list[str] | None = None) -> tuple[dict[str, tuple[int, int]], str]:
    """Run the game with ``files`` (game path -> file) laid over its data and ``settings`` (cvar, value,
    ...) set; the models it loaded (name -> (bytes, LODs)) and the log. ``game_args`` (a command's words
    after ``openarena``, as docs/quick-start.md gives them) replace ``+set sv_pure 0``, the settings and
    ``+devmap MAP``; the window's size, no sound and ``+modellist +quit`` are added around them."""
    game, xvfb = require("openarena"), require("xvfb-run")
    home = work / "oa_home"
    for name, source in files.items():
        target = home / ".openarena" / "baseoa" / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)
    if game_args is None:
        game_args = ["+set", "sv_pure", "0", *(word for cvar, value in zip(settings[::2], settings[1::2])
                                                for word in ("+set", cvar, value)), "+devmap", MAP]
    run = subprocess.run([xvfb, "-a", "-s", "-screen 0 640x480x24", game, "+set", "r_mode", "2", "+set",
                          "s_initsound", "0", *game_args, "+wait", "100", "+modellist",
                          "+quit"], capture_output=True, text=True, timeout=180, env={"HOME": str(home),
                                                                                     "PATH": "/usr/bin:/bin"},
                         cwd=work)
    log = run.stdout + run.stderr
    models = {m.group(3): (int(m.group(1)), int(m.group(2)))
              for m in re.finditer(r"^\s*(\d+) : \((\d+)\) (\S+)\s*$", log, re.M)}
    assert models, f"OpenArena listed no model:\n{log[-3000:]}"
    return models, log


def complaints(log: str, name: str) -> list[str]:
    """Log lines where the renderer or game warns about ``name``."""
    stem = Path(name).stem
    return [line for line in log.splitlines() if stem in line and re.search(r"WARNING|R_LoadMD3|ERROR", line)]
