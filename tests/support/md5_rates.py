"""Small MD5 anims of their own frame counts and rates, written here for the default-export tests: the
two-joint mesh of :mod:`.md5_scale_model` with anims turning its arm about Z by ``turn`` degrees a frame."""
from __future__ import annotations

import math
from pathlib import Path

from .md5_scale_model import MESH


def anim_text(frames: int, rate: float, turn: float) -> bytes:
    """``frames`` frames at ``rate``: the arm (2 units above the root) turned ``k * turn`` degrees in frame k."""
    lines = [f"MD5Version 10\ncommandline \"\"\n\nnumFrames {frames}\nnumJoints 2\nframeRate {rate:g}\n"
             "numAnimatedComponents 12\n\nhierarchy {\n\t\"root\" -1 63 0\n\t\"arm\" 0 63 6\n}\n\nbounds {\n"]
    lines += ["\t( -2.000000 -2.000000 0.000000 ) ( 2.000000 2.000000 3.000000 )\n"] * frames
    lines.append("}\n\nbaseframe {\n\t( 0.000000 0.000000 0.000000 ) ( 0.000000 0.000000 0.000000 )\n"
                 "\t( 0.000000 0.000000 2.000000 ) ( 0.000000 0.000000 0.000000 )\n}\n")
    for k in range(frames):
        z = -math.sin(math.radians(k * turn) / 2)        # x y z of the unit quaternion with w <= 0
        lines.append(f"\nframe {k} {{\n\t0.000000 0.000000 0.000000 0.000000 0.000000 0.000000\n"
                     f"\t0.000000 0.000000 2.000000 0.000000 0.000000 {z:.6f}\n}}\n")
    return "".join(lines).encode()


# name -> (frames, rate, degrees a frame): none at the game's 10 per second, each its own count
ANIMS = {"thing": (14, 24.0, 6.0), "walk": (9, 15.0, 10.0), "wave": (5, 30.0, -12.0)}


def write_folder(folder: Path, anims: dict = ANIMS) -> dict[str, bytes]:
    """``thing.md5mesh`` and an ``.md5anim`` per entry of ``anims`` in ``folder``; every file's bytes by name."""
    folder.mkdir(parents=True, exist_ok=True)
    files = {"thing.md5mesh": MESH}
    files.update({f"{name}.md5anim": anim_text(*spec) for name, spec in anims.items()})
    for name, data in files.items():
        (folder / name).write_bytes(data)
    return files
