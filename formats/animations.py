"""Animations named by frame names: ``run1``..``run6`` is the animation ``run`` (bpy-free).

Shared by the importers (markers, the sidebar list, actions) and the command line (``info``, the glb
clips). The rule, on a model's frame names in file order:

- A frame's *stem* is its name without its trailing digits (``stand01`` -> ``stand``; a name without
  digits is its own stem). Consecutive frames with the same stem form a *run*.
- A run is one animation named after the stem (``run1``..``run6``, ``stand01``..``stand40``,
  ``frame100``..``frame129``), unless it numbers several animations by their last two digits: every
  name has at least three digits, the names split (by the digits before the last two) into at least
  two consecutive sub-runs with different leading digits, and each sub-run counts its last two digits
  01, 02, ... without a gap. Then each sub-run is an animation named after the stem and its leading
  digits: ``pain101``..``pain104``, ``pain201``..``pain204``, ``pain301``..``pain304`` are ``pain1``,
  ``pain2`` and ``pain3``. Quake II names its player frames so (id-Software/Quake-2 ``game/m_player.h``:
  ``FRAME_pain101`` .. ``FRAME_pain304``, ``FRAME_death101`` .. ``FRAME_death308``, the animations the
  game plays as pain1..3 and death1..3).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import groupby

from .mdl.codec import MdlModel

_TRAILING_DIGITS = re.compile(r"\d+$")
_NUMBER_DIGITS = 2      # the digits that count frames within a numbered animation (``pain1`` + ``01``)


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
    """``run12`` -> ``run``: the frame name without its trailing digits (its stem)."""
    return _TRAILING_DIGITS.sub("", frame_name) or frame_name


def animation_names(frame_names: list[str]) -> list[str]:
    """The animation each frame belongs to, by the rule of the module docstring."""
    stems = [animation_name(n) for n in frame_names]
    out = list(stems)
    start = 0
    for stem, run in groupby(stems):
        count = len(list(run))
        numbered = _numbered(frame_names[start:start + count], stem)
        if numbered is not None:
            out[start:start + count] = numbered
        start += count
    return out


def _numbered(names: list[str], stem: str) -> list[str] | None:
    """The run's animation names where its last two digits number several animations, else None."""
    digits = [name[len(stem):] for name in names]
    if any(len(d) <= _NUMBER_DIGITS or not d.isdigit() for d in digits):
        return None
    leads = [d[:-_NUMBER_DIGITS] for d in digits]
    subs = [[d for _, d in sub] for _, sub in groupby(zip(leads, digits), key=lambda pair: pair[0])]
    if len(subs) < 2 or len({sub[0][:-_NUMBER_DIGITS] for sub in subs}) != len(subs):
        return None
    if any([int(d[-_NUMBER_DIGITS:]) for d in sub] != list(range(1, len(sub) + 1)) for sub in subs):
        return None
    return [stem + lead for lead in leads]


def group_animations(frame_names: list[str]) -> list[Animation]:
    """Consecutive frames of the same animation (:func:`animation_names`) form one animation."""
    animations: list[Animation] = []
    for i, base in enumerate(animation_names(frame_names)):
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
    names = animation_names(model.pose_names)
    for index, slot in enumerate(model.frames):
        name = names[slot.first_pose]
        last = slot.first_pose + slot.num_poses - 1
        simple = slot.intervals is None
        if simple and previous_simple and runs[-1][0].name == name:
            runs[-1][0].last = last
            runs[-1][1].append(index)
        else:
            runs.append((Animation(name, slot.first_pose, last), [index]))
        previous_simple = simple
    return runs
