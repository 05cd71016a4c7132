"""A model that does not move is written as one frame.

A prop exported from the default scene (frames 1-250 at 24 fps, sampled every 0.1 s) would be 104
identical frames: the game shows the same pose, the file is a hundred times larger. When every sampled
frame of every object is identical (compared exactly) and nothing on the objects animates (no action,
NLA track or driver on the objects, their parents, meshes or shape keys, nor on an object a modifier
follows, such as the armature), one frame is written and the report says so. *Keep Still Frames*
writes them all. Models imported from an MD2 or MDL keep their frames (an untouched one is written back
as it was); Shape Keys and Actions export what the user listed; a Quake II player export keeps every
frame (its body and weapon models share one frame list, :mod:`..md2.player`). What may be cut is
decided with the frame plan (:func:`.frame_plan.carries_animation`). An MD5 export cuts its poses the
same way (every joint's pose identical, :mod:`..md5.build`).
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np

from .animated_mesh import MeshPart
from .frame_plan import FramePlan, PlannedFrame


def still_frames(parts: list[MeshPart], frames: list[PlannedFrame], plan: FramePlan
                 ) -> tuple[list[MeshPart], list[PlannedFrame], str]:
    """``parts`` and ``frames`` cut to the first frame when the plan allows it
    (:attr:`.frame_plan.FramePlan.may_be_still`) and every sampled frame is identical (and the note
    for the report), else as they are with ''."""
    if not plan.may_be_still:
        return parts, frames, ""
    if not all(np.array_equal(p.positions, np.broadcast_to(p.positions[:1], p.positions.shape)) for p in parts):
        return parts, frames, ""
    kept = [replace(p, positions=p.positions[:1], key_names=p.key_names[:1], key_indices=p.key_indices[:1])
            for p in parts]
    return kept, frames[:1], still_note(len(frames))


def still_note(count: int) -> str:
    """The report line of a model written as one frame."""
    return (f"the model does not move: its {count} sampled frames are identical and nothing on it animates, so "
            "one frame was written (Keep Still Frames writes them all)")
