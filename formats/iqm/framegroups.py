"""``<model>.iqm.framegroups``: DarkPlaces' own naming and splitting of a model's frames into animations
(bpy-free).

DarkPlaces ``model_shared.c`` ``Mod_LoadModel`` loads ``"%s.framegroups"`` of the model's name after any
model (``x.iqm`` reads ``x.iqm.framegroups``) and, when it names at least one group, ``Mod_FrameGroupify``
replaces the model's animations (an IQM's anims) with its lines. Each line (``Mod_FrameGroupify_ParseGroups``,
tokens split by ``COM_ParseToken_Simple``, ``//`` to the end of the line a comment, blank lines skipped)::

    first count [fps [loop [name [ignored ...]]]]

``first`` and ``count`` are frames of the whole file (an IQM's frames, every anim's one after another),
read with ``atoi``; ``fps`` (``atof``) is 20 when absent, ``loop`` (``atoi != 0``) 1 when absent, the name
``groupified_<n>_anim`` when absent; a line with no ``count`` is skipped ("framegroups file: missing number
of frames"). ``Mod_FrameGroupify_ParseGroups_Store`` then bounds them: ``first`` to ``0 .. frames - 1``,
``count`` to ``1 .. frames - first``, the rate to at least 1. Xonotic's player models ship such files
beside their ``.iqm`` (and ``.dpm``, ``.md3``).
"""
from __future__ import annotations

import re
from dataclasses import dataclass

SUFFIX = ".framegroups"
DEFAULT_FPS = 20.0
_TOKEN = re.compile(r'"([^"\n]*)"?|(\S+)')
_NUMBER = re.compile(r"\s*[+-]?(\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?)")


@dataclass(frozen=True)
class FrameGroup:
    """One animation of the file, as DarkPlaces keeps it (bounded to the model's frames)."""
    name: str
    first: int
    count: int
    fps: float
    loop: bool


def _atoi(token: str) -> int:
    match = re.match(r"\s*([+-]?\d+)", token)
    return int(match.group(1)) if match else 0


def _atof(token: str) -> float:
    match = _NUMBER.match(token)
    if not match:
        return 0.0
    sign = -1.0 if token.strip().startswith("-") else 1.0
    return sign * float(match.group(1))


def _lines(text: str) -> list[list[str]]:
    """Each line's tokens, comments (``//`` to the end of the line) left out, empty lines dropped."""
    out = []
    for line in text.replace("\r", "\n").split("\n"):
        tokens = []
        for match in _TOKEN.finditer(line):
            if match.group(2) is not None and match.group(2).startswith("//"):
                break
            tokens.append(match.group(1) if match.group(1) is not None else match.group(2))
        if tokens:
            out.append(tokens)
    return out


def parse_framegroups(data: bytes, num_frames: int) -> tuple[list[FrameGroup], list[str]]:
    """The groups of a ``.framegroups`` file for a model of ``num_frames`` frames, bounded as DarkPlaces
    bounds them, and warnings (one per kind) for lines it skips or bounds."""
    groups: list[FrameGroup] = []
    skipped = bounded = 0
    for tokens in _lines(data.decode("latin-1")):
        if len(tokens) < 2:
            skipped += 1
            continue
        start, count = _atoi(tokens[0]), _atoi(tokens[1])
        fps = _atof(tokens[2]) if len(tokens) > 2 else DEFAULT_FPS
        loop = _atoi(tokens[3]) != 0 if len(tokens) > 3 else True
        name = tokens[4] if len(tokens) > 4 and tokens[4] else f"groupified_{len(groups)}_anim"
        first = min(max(start, 0), max(num_frames - 1, 0))
        length = min(max(count, 1), max(num_frames - first, 1))
        if (first, length) != (start, count):
            bounded += 1
        groups.append(FrameGroup(name, first, length, max(1.0, fps), loop))
    warnings = []
    if skipped:
        warnings.append(f"{skipped} line{'s' if skipped > 1 else ''} without a frame count skipped, as DarkPlaces "
                        "skips them")
    if bounded:
        warnings.append(f"{bounded} group{'s' if bounded > 1 else ''} past the model's {num_frames} frames bounded "
                        "to them, as DarkPlaces bounds them")
    return groups, warnings
