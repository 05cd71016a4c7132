"""The frame rate and frame count a skeletal file gave the anim an action holds, as every skeletal import
leaves them on its actions (``common/contract.py`` ANIM_FRAME_RATE, ANIM_FRAME_COUNT) and every skeletal
export reads them here: an anim imported from one format and exported as another keeps its rate, and no
export reads another format's own names.

Actions an earlier version imported (a ``.blend`` saved before these names) carry only their format's own
names; they are read here, in this one place: an IQM import's rate (``IQM_ANIM_RATE``) beside the file's
frames it holds (``IQM_ANIM_FRAMES``), an MD5 import's kept ``.md5anim`` text (``MD5_ANIM_SOURCE``: its
``frameRate`` and frames, ``MD5_ANIM_FRAMES`` for an anim the import split). ``IQM_ANIM_RATE`` alone is
the rate a user gives an action made in Blender for the IQM export (``docs/iqm.md``), which is no import's.
"""
from __future__ import annotations

import bpy

from ..formats.errors import FormatError
from ..formats.md5.anim import read_md5anim
from .contract import ANIM_FRAME_COUNT, ANIM_FRAME_RATE
from .iqm.contract import IQM_ANIM_FRAMES, IQM_ANIM_RATE
from .md5.contract import MD5_ANIM_FRAMES, MD5_ANIM_SOURCE
from .stored_records import stored_bytes, stored_floats


def _number(value: object) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _count(value: object) -> int:
    number = _number(value)
    return int(number) if number is not None and number >= 0 else 0


def _earlier_iqm(action: bpy.types.Action) -> tuple[float, int] | None:
    rate = _number(action.get(IQM_ANIM_RATE))
    if rate is None or IQM_ANIM_FRAMES not in action:
        return None
    frames = stored_floats(action, IQM_ANIM_FRAMES, 2)         # (first, count)
    return rate, 0 if frames is None else _count(frames[1])


def _earlier_md5(action: bpy.types.Action) -> tuple[float, int] | None:
    source = stored_bytes(action, MD5_ANIM_SOURCE)
    if source is None:
        return None
    try:
        anim = read_md5anim(source)
    except FormatError:
        return None
    split = stored_floats(action, MD5_ANIM_FRAMES, 2)          # (first, last) of a split anim
    return float(anim.frame_rate), len(anim.frames) if split is None else int(split[1] - split[0]) + 1


def file_rate(action: bpy.types.Action | None) -> float | None:
    """The rate the file gave ``action``'s anim, as the file says it (ANIM_FRAME_RATE; an earlier IQM
    import's), else None: an action made in Blender, or an earlier MD5 import's (:func:`file_timing` reads
    its text; the MD5 export reads it with its own kept anims)."""
    if action is None:
        return None
    rate = _number(action.get(ANIM_FRAME_RATE))
    if rate is not None:
        return rate
    earlier = _earlier_iqm(action)
    return None if earlier is None else earlier[0]


def file_timing(action: bpy.types.Action | None) -> tuple[float, int] | None:
    """(rate as the file says it, frames held; 0 where not known) of ``action``'s anim, the earlier
    versions' names included (module docstring), else None: an action made in Blender."""
    if action is None:
        return None
    rate = _number(action.get(ANIM_FRAME_RATE))
    if rate is not None:
        return rate, _count(action.get(ANIM_FRAME_COUNT))
    return _earlier_iqm(action) or _earlier_md5(action)
