"""DarkPlaces' decompile of an IQM (or any skeletal model): ``darkplaces-server -basedir DIR
+modelprecache progs/m.iqm +modeldecompile progs/m.iqm +quit`` writes, under ``$HOME/.darkplaces/id1/``,
``progs/m_decompiled.obj`` (the vertices as the file holds them, ``Mod_Decompile_OBJ``: ``v x z y`` in
Debian's 0~20180908) and ``progs/m_decompiled/<anim>.smd`` per anim (or framegroup), each with its
``nodes`` (index, name, parent) and ``skeleton`` (per frame, per joint ``x y z rx ry rz`` relative to
the parent: ``Mod_Decompile_SMD`` in DarkPlaces ``model_shared.c``). A ``.framegroups`` file beside the
model replaces the file's anims (``Mod_FrameGroupify``); ``progs/m_decompiled.framegroups`` lists the anims
as DarkPlaces holds them (``first count fps loop // name``).

Debian's DarkPlaces writes every anim's SMD from pose 0 (its decompiler does not start at the anim's
first frame: ``walk.smd`` and ``wave.smd`` begin alike, and so do framegroups ``0 2`` and ``3 2``), though it
plays them from their first frame. :func:`anim_poses` therefore reads DarkPlaces' anims from its
``.framegroups`` and every pose through one framegroup ``0 F`` spanning the file, and slices them itself.

DarkPlaces keeps the poses as 6 shorts (``Mod_INTERQUAKEMODEL_Load``): translations in steps of
``biggest |translation| / 32767`` (truncated), rotations x y z times 32767 (truncated): :func:`dp_steps`.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .engine_tools import parse_obj, require


@dataclass
class Smd:
    nodes: list[tuple[str, int]]
    frames: list[np.ndarray]          # per frame (J, 6)


@dataclass
class Decompiled:
    positions: np.ndarray             # (V, 3) Blender's axes
    smds: dict[str, Smd] = field(default_factory=dict)
    groups: list[tuple[int, int, float, bool, str]] = field(default_factory=list)   # first, count, fps, loop, name
    log: str = ""


def parse_smd(path: Path) -> Smd:
    nodes, frames, section, current = [], [], None, None
    for line in path.read_text(errors="replace").splitlines():
        words = line.split()
        if not words:
            continue
        if words[0] in ("nodes", "skeleton", "triangles") and len(words) == 1:
            section = words[0]
        elif words[0] == "end":
            section = None
        elif section == "nodes":
            match = re.match(r'\s*(\d+)\s+"(.*)"\s+(-?\d+)', line)
            nodes.append((match.group(2), int(match.group(3))))
        elif section == "skeleton" and words[0] == "time":
            current = []
            frames.append(current)
        elif section == "skeleton":
            current.append([float(w) for w in words[1:7]])
    return Smd(nodes, [np.array(f, np.float64) for f in frames])


def decompile(model: Path, work: Path, framegroups: str | None = None) -> Decompiled:
    exe = require("darkplaces-server")
    base, home = work / "dp_base", work / "dp_home"
    shutil.rmtree(home, ignore_errors=True)
    (base / "id1" / "progs").mkdir(parents=True, exist_ok=True)
    home.mkdir(parents=True, exist_ok=True)
    name = "progs/m.iqm"
    shutil.copyfile(model, base / "id1" / name)
    groups = base / "id1" / (name + ".framegroups")
    if framegroups is not None:
        groups.write_text(framegroups)
    elif groups.exists():
        groups.unlink()
    run = subprocess.run([exe, "-basedir", str(base), "+net_address", "127.0.0.1", "+modelprecache", name,
                          "+modeldecompile", name, "+quit"], capture_output=True, text=True, timeout=120,
                         env=dict(os.environ, HOME=str(home)), cwd=work)
    log = run.stdout + run.stderr
    out = home / ".darkplaces" / "id1" / "progs"
    obj = out / "m_decompiled.obj"
    assert obj.is_file(), f"DarkPlaces did not load {model.name}:\n{log[-2000:]}"
    decompiled = Decompiled(parse_obj(obj).positions[:, [0, 2, 1]], log=log)
    for smd in sorted((out / "m_decompiled").glob("*.smd")):
        if smd.stem != "ref1":
            decompiled.smds[smd.stem] = parse_smd(smd)
    listed = out / "m_decompiled.framegroups"
    for line in listed.read_text().splitlines() if listed.is_file() else []:
        numbers, _, name = line.partition("//")
        first, count, fps, loop = numbers.split()
        decompiled.groups.append((int(first), int(count), float(fps), loop != "0", name.strip()))
    return decompiled


def anim_poses(model: Path, work: Path, num_frames: int) -> tuple[Decompiled, dict[str, Smd]]:
    """DarkPlaces' decompile of ``model`` and each of its anims' poses, as DarkPlaces lists the anims
    (first frame, count) over every pose it loaded (``num_frames``: the file's frame count)."""
    decompiled = decompile(model, work)
    every = decompile(model, work / "all", framegroups=f"0 {num_frames} 10 1 every\n").smds["every"]
    anims = {name: Smd(every.nodes, every.frames[first:first + count])
             for first, count, _, _, name in decompiled.groups}
    return decompiled, anims


def dp_steps(model) -> tuple[float, float]:
    """(translation step, rotation step) of DarkPlaces' 6-short poses of ``model`` (an IqmModel)."""
    poses = model.poses
    ends = np.concatenate([poses["channeloffset"][:, :3], poses["channeloffset"][:, :3] +
                           65535 * poses["channelscale"][:, :3]])
    return float(np.abs(ends).max()) / 32767.0, 1.0 / 32767.0
