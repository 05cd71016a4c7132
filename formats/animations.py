"""Animations named by frame names: ``run1``..``run6`` is the animation ``run`` (bpy-free).

Shared by the importers (markers, the sidebar list) and the command line (``info``).
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from .mdl.codec import MdlModel

_TRAILING_DIGITS = re.compile(r"\d+$")


@dataclass
class Animation:
    """A run of frames ``first`` .. ``last`` (0-based file frames or poses)."""
    name: str
    first: int
    last: int

    @property
    def frames(self) -> int:
        return self.last - self.first + 1


def animation_name(frame_name: str) -> str:
    """``run12`` -> ``run``: the frame name without its trailing digits."""
    return _TRAILING_DIGITS.sub("", frame_name) or frame_name


def group_animations(frame_names: list[str]) -> list[Animation]:
    """Consecutive frames with the same animation name form one animation."""
    animations: list[Animation] = []
    for i, name in enumerate(frame_names):
        base = animation_name(name)
        if animations and animations[-1].name == base and animations[-1].last == i - 1:
            animations[-1].last = i
        else:
            animations.append(Animation(base, i, i))
    return animations


def slot_animations(model: MdlModel) -> list[Animation]:
    """MDL: one animation per frame group, and per run of simple frames sharing a name."""
    return [animation for animation, _slots in slot_runs(model)]


def slot_runs(model: MdlModel) -> list[tuple[Animation, list[int]]]:
    """:func:`slot_animations` with the frame slots (QuakeC frame numbers) each animation covers."""
    runs: list[tuple[Animation, list[int]]] = []
    previous_simple = False
    for index, slot in enumerate(model.frames):
        name = animation_name(model.pose_names[slot.first_pose])
        last = slot.first_pose + slot.num_poses - 1
        simple = slot.intervals is None
        if simple and previous_simple and runs[-1][0].name == name:
            runs[-1][0].last = last
            runs[-1][1].append(index)
        else:
            runs.append((Animation(name, slot.first_pose, last), [index]))
        previous_simple = simple
    return runs
