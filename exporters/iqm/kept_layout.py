"""An edited IQM imported with its ``.iqm.framegroups`` written in the file's own anim layout.

With *Frame Groups* the import made one action per group of ``<model>.iqm.framegroups`` instead of one per
anim (``importers/iqm/iqm_import.py``); each group is a run of the whole file's frames (every anim's frames
one after another, ``formats/iqm/framegroups.py``), and each action keeps its group's ``(first, count)``
(``IQM_ANIM_FRAMES``). A modder editing one group expects the file back as it was but for the frames
edited: the same anims (names, frame counts, order, rates, flags), the same ``.framegroups``. So while the
actions exported are the import's group actions (:func:`group_layout`):

- one per group the import read, in the groups' order, every one of them ticked, none added;
- each the import's (its ``IQM_IMPORT_ID``), holding its group's frames, and sampled to as many frames;

the file is written with the file's anim records and frame count, each file frame taken from the group
action covering it (:meth:`GroupLayout.place`): a frame no group covers is the file's pose (so the file's
row, byte for byte); a frame two or more groups cover is the first of them (in the groups' order) whose
pose there is not the file's, else the file's (every group left it unchanged); where two groups changed it
differently the first is written and the report says how many frames. The build then keeps the file's row
of every frame whose pose is unchanged (:func:`.imported_parts.kept_encoding`). Anything else (a group's
action made longer or shorter, a group added, removed, unticked or reordered, bones other than the file's
joints) falls back to one anim per action, and the report says so (:func:`fallback_note`).
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePosixPath

import numpy as np

import bpy

from ...common.iqm.contract import IQM_ANIM_FRAMES, IQM_ANIM_INDEX, IQM_FILE, IQM_FRAMEGROUPS, IQM_IMPORT_ID
from ...common.stored_records import stored_bytes, stored_int
from ...formats.iqm.framegroups import SUFFIX, FrameGroup, parse_framegroups
from ...formats.iqm.records import IqmModel
from .imported_parts import STILL, decoded_channels
from .skeleton import Anim


@dataclass
class GroupLayout:
    """The file's frame groups (as the import read them) the chosen actions stand for, one each in order,
    and the ``.framegroups`` bytes the import read."""
    groups: list[FrameGroup]
    data: bytes

    def place(self, values: np.ndarray, kept: IqmModel, names: np.ndarray, parents: np.ndarray
              ) -> tuple[np.ndarray, list[str]] | None:
        """(num_frames, P, 10) channel values in the file's frames from ``values`` (every group's sampled
        frames one group after another, in the groups' order; module docstring), and the report's lines;
        None when the joints (``names``, text offsets, and ``parents``) are not the file's poses: the file's
        frames cannot stand beside them."""
        if values.shape[1] != len(kept.poses) or not np.array_equal(kept.poses["parent"], parents) or \
                (len(kept.joints) and not np.array_equal(kept.joints["name"], names)):
            return None
        file = decoded_channels(kept)
        out = file.copy()
        chosen = np.full(len(file), -1)                 # the group whose pose a frame holds (-1: the file's)
        conflicts = 0
        start = 0
        for index, group in enumerate(self.groups):
            rows = np.arange(group.first, group.first + group.count)
            mine = values[start:start + group.count]
            start += group.count
            changed = np.abs(mine - file[rows]).max(axis=(1, 2)) > STILL
            taken = chosen[rows] >= 0
            differ = taken & changed
            if differ.any():                            # a frame an earlier group changed too: the earlier stays
                conflicts += int((np.abs(mine[differ] - out[rows[differ]]).max(axis=(1, 2)) > STILL).sum())
            take = changed & ~taken
            out[rows[take]] = mine[take]
            chosen[rows[take]] = index
        notes = []
        if conflicts:
            notes.append(f"{conflicts} frame{'s' if conflicts > 1 else ''} of the file two frame groups cover "
                         "changed differently in each: the first group's pose written")
        return out, notes


def _import_groups(root: bpy.types.Object | None, kept: IqmModel | None) -> tuple[list[FrameGroup], bytes] | None:
    data = stored_bytes(root, IQM_FRAMEGROUPS) if root is not None else None
    if kept is None or data is None or not kept.num_frames:
        return None
    groups, _ = parse_framegroups(data, kept.num_frames)
    return (groups, data) if groups else None


def group_layout(root: bpy.types.Object | None, kept: IqmModel | None, anims: list[tuple],
                 scene_fps: float) -> GroupLayout | None:
    """The layout when ``anims`` (:func:`.anim_list.export_anims`) are the import's group actions, each
    sampled to its group's frame count (module docstring), else None."""
    found = _import_groups(root, kept)
    if found is None or len(anims) != len(found[0]):
        return None
    token = root.get(IQM_IMPORT_ID)
    for anim, group in zip(anims, found[0]):
        action = anim[0]
        if action is None or action.get(IQM_IMPORT_ID) != token or stored_int(action, IQM_ANIM_INDEX, 0) != -1:
            return None
        stored = action.get(IQM_ANIM_FRAMES)
        if stored is None or len(stored) != 2 or (int(stored[0]), int(stored[1])) != (group.first, group.count):
            return None
        if Anim(*anim).times(scene_fps).size != group.count:
            return None
    return GroupLayout(*found)


def fallback_note(root: bpy.types.Object | None, kept: IqmModel | None, layout: GroupLayout | None) -> str:
    """The report's line when the import read frame groups but the export did not keep the file's layout
    (``layout``: what :func:`group_layout` found; empty when the import read no groups)."""
    found = _import_groups(root, kept)
    if found is None:
        return ""
    name = PurePosixPath(str(root.get(IQM_FILE, ""))).name + SUFFIX
    why = ("the bones are no longer the file's joints" if layout is not None else
           "a group's frame count changed, or a group was added, removed, unticked or reordered")
    return (f"the file's anims and frame layout changed: the actions are written as one anim each, not in the file's "
            f"{len(kept.anims)} anims split by the {len(found[0])} frame groups of {name} ({why})")
