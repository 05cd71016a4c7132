"""A model that does not move is written as one frame.

A prop exported from the default scene (frames 1-250 at 24 fps, sampled every 0.1 s) would be 104
identical frames: the game shows the same pose, the file is a hundred times larger. When every sampled
frame of every object is identical (compared exactly) and nothing on the objects animates (no action,
NLA track or driver on the objects, their parents, meshes or shape keys, nor on an object a modifier
follows, such as the armature), one frame is written and the report says so. *Keep Still Frames*
writes them all. Models imported from an MD2 or MDL keep their frames (an untouched one is written back
as it was); Shape Keys and Actions export what the user listed; a Quake II player export keeps every
frame (its body and weapon models share one frame list, :mod:`..md2.player`).
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import bpy

from .animated_mesh import MeshPart
from .options import FrameExportOptions

FRAME_FORMATS = ("MD2", "MDL")     # imports whose frames are the file's own: written back as they were


def _animates(id_block) -> bool:
    anim = getattr(id_block, "animation_data", None) if id_block is not None else None
    return anim is not None and bool(anim.action or len(anim.drivers) or len(anim.nla_tracks))


def carries_animation(obj: bpy.types.Object) -> bool:
    """True if anything on ``obj`` may move it over time (see the module docstring)."""
    chain = []
    parent = obj
    while parent is not None:
        chain.append(parent)
        parent = parent.parent
    followed = [getattr(m, "object", None) for m in obj.modifiers]
    data = obj.data
    keys = getattr(data, "shape_keys", None)
    return any(_animates(x) for x in chain + followed + [data, keys]) or bool(obj.constraints)


def still_frames(parts: list[MeshPart], frames: list, options: FrameExportOptions) -> tuple[list[MeshPart], list, str]:
    """``parts`` and ``frames`` cut to the first frame when the model does not move (and the note
    for the report), else as they are with ''."""
    if (options.keep_still_frames or options.frame_source != "TIMELINE" or len(frames) < 2
            or any(p.obj.classic_model.source_format in FRAME_FORMATS for p in parts)
            or any(carries_animation(p.obj) for p in parts)):
        return parts, frames, ""
    if not all(np.array_equal(p.positions, np.broadcast_to(p.positions[:1], p.positions.shape)) for p in parts):
        return parts, frames, ""
    count = len(frames)
    kept = [replace(p, positions=p.positions[:1], key_names=p.key_names[:1], key_indices=p.key_indices[:1])
            for p in parts]
    return kept, frames[:1], (f"the model does not move: its {count} sampled frames are identical and nothing on it "
                              "animates, so one frame was written (Keep Still Frames writes them all)")
