"""An imported anim that nothing changed, written back as its file's text without sampling a pose.

The import stores on the action of each whole ``.md5anim`` (no ``.md5scale``, its joints the armature's
bones) digests of the file, of the F-curves it made and of the bones' rests (``common/md5/keys.py``,
MD5_ANIM_KEYS). An export of the armature's anims each to its own file (*Frame Rate: Automatic*, an
action planned alone) writes the kept text as it is where all of these hold, else samples the anim as
before (:mod:`.pose`, :mod:`.write_back`):

- the ``.md5mesh`` is written back as it was (so the file's bounds hold), with *Scale* 1, and the
  armature object has no parent, no constraints and the identity matrix (the poses are the file's
  numbers in its own space);
- the poses are the action's F-curves alone (:func:`..sampling.curve_pose.why_not`: no bone
  constraints, drivers, NLA, partial influence, bones that do not inherit their parent's transform);
  the action has one layer and strip;
- the bones' rests, parents, inheritance and rotation modes and the joint order digest as imported;
- the action's F-curves (read with one ``foreach_get`` each: data path, index, every key's frame and
  value) digest as imported, none muted, with modifiers or extrapolating, in no muted group; the kept
  text digests as the file the import read;
- the planned frames are the keys' frames, one per key: the anim at its own rate over its own range.

Then sampling would give the keyed values at the keyed frames, the import's poses, and the anim would
be written from its kept text (:func:`.write_back.kept_anim`); so the text is written straight away.
The ``.md5mesh`` the same way (:func:`mesh_held`, MD5_MESH_KEYS on the armature).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

import bpy

from ...common.md5.contract import (
    MD5_ANIM_FRAMES,
    MD5_ANIM_KEYS,
    MD5_ANIM_SOURCE,
    MD5_DEGENERATE,
    MD5_MESH_INDEX,
    MD5_MESH_KEYS,
    MD5_MESH_SOURCE,
)
from ...common.md5.keys import keys_digest, mesh_digest, rig_digest, source_digest
from ...common.stored_records import stored_bytes, stored_floats, stored_json
from ..sampling.action_playback import pick_slot
from ..sampling.curve_pose import why_not
from ..sampling.frame_rate import scene_times

CONSTANT = 0                    # FCurve.extrapolation as foreach_get reads it (FCURVE_EXTRAPOLATE_CONSTANT)


@dataclass
class KeptText:
    """An anim written as the file's own text, with what the export reports of it."""
    text: bytes
    num_frames: int
    frame_rate: float


def _fcurves(action: bpy.types.Action, target: bpy.types.ID):
    """The F-curves and groups ``action`` plays on ``target`` (its slot's from 4.4 on), or (None, None)."""
    if hasattr(action, "slots"):
        from bpy_extras import anim_utils
        slot = pick_slot(action, target)
        bag = anim_utils.action_get_channelbag_for_slot(action, slot) if slot is not None else None
        return (bag.fcurves, bag.groups) if bag is not None else (None, None)
    return action.fcurves, action.groups


def _all(collection, name: str, dtype, wanted) -> bool:
    values = np.empty(len(collection), dtype)
    collection.foreach_get(name, values)
    return bool(np.all(values == wanted))


def _keys(curves) -> tuple[str, np.ndarray] | None:
    """(digest, the key frames) of plain F-curves (none muted, extrapolating or with modifiers) keyed at the
    same count of frames each (as the import keys them), else None."""
    if not len(curves) or not _all(curves, "mute", bool, False) or not _all(curves, "extrapolation", np.int32,
                                                                          CONSTANT):
        return None
    indexes = np.empty(len(curves), np.int32)
    curves.foreach_get("array_index", indexes)
    count = len(curves[0].keyframe_points)
    co = np.empty((len(curves), 2 * count), np.float32)
    paths = []
    for fcurve, index, row in zip(curves, indexes.tolist(), co):
        points = fcurve.keyframe_points
        if len(points) != count or len(fcurve.modifiers):
            return None
        points.foreach_get("co", row)
        paths.append(f"{fcurve.data_path}[{index}]")
    return keys_digest(paths, np.full(len(co), co.shape[1] // 2), co), co[0, 0::2]


def mesh_held(armature: bpy.types.Object, meshes: list[bpy.types.Object], order: list[str], scale: float,
              per_material: bool) -> dict | None:
    """The import's MD5_MESH_KEYS record while the ``.md5mesh`` is written back as its kept text without
    reading it: the kept text digests as the file the import read, ``meshes`` (in block order) and the bones
    digest as the import made them (:func:`...common.md5.keys.mesh_digest`), the armature and every mesh
    object at the identity matrix, *Scale* 1 and a block per material; else None.

    Then the export reads the vertices, weights and UVs the import gave from its file, in the rest pose the
    import built from the file's joints, and every value equals the kept one within the precision the file
    printed it with (:mod:`.write_back`): the merge keeps every kept value and the text printed is the
    kept text (every corpus ``.md5mesh``, ``tests/md5/test_md5_mesh_untouched_blender.py``), so it is not printed."""
    record = stored_json(armature, MD5_MESH_KEYS)
    source = stored_bytes(armature, MD5_MESH_SOURCE)
    identity = np.eye(4)
    if (not isinstance(record, dict) or source is None or scale != 1.0 or not per_material
            or not np.array_equal(np.array(armature.matrix_world), identity)
            or any(not np.array_equal(np.array(obj.matrix_world), identity) for obj in meshes)
            or record.get("source") != source_digest(source)
            or not isinstance(record.get("over"), int) or not isinstance(record.get("most"), int)):
        return None
    digest = mesh_digest(armature, order, meshes, MD5_MESH_INDEX, MD5_DEGENERATE)
    return record if record.get("mesh") == digest else None


class Untouched:
    """``untouched(plan, frames)``: the kept text of the one action a file's plan plays, where nothing
    changed (module docstring), else None; ``untouched.rate(action)``: its file's ``frameRate`` where its
    kept text is the file the import read, else None. One per export; the armature's checks run once."""

    def __init__(self, context: bpy.types.Context, armature: bpy.types.Object, order: list[str], scale: float):
        self.context, self.armature, self.order, self.scale = context, armature, order, scale
        self.mesh_as_imported = False       # set once the mesh is known to write back as its file
        self._rig: str | None | bool = False
        self._records: dict[int, dict | None] = {}

    def _record(self, action: bpy.types.Action) -> dict | None:
        """The import's record of ``action`` while its kept text is the file the import read, else None."""
        key = action.as_pointer()
        if key not in self._records:
            record = stored_json(action, MD5_ANIM_KEYS)
            source = stored_bytes(action, MD5_ANIM_SOURCE)
            valid = (isinstance(record, dict) and source is not None and record.get("source") == source_digest(source)
                     and isinstance(record.get("rate"), float) and stored_floats(action, MD5_ANIM_FRAMES, 2) is None)
            self._records[key] = dict(record, text=source) if valid else None
        return self._records[key]

    def rate(self, action: bpy.types.Action | None) -> float | None:
        record = self._record(action) if action is not None else None
        return None if record is None else record["rate"]

    def _rig_now(self) -> str | None:
        """The rig's digest while the armature's own state lets the poses be the F-curves' (else None)."""
        if self._rig is False:
            armature = self.armature
            world = armature.evaluated_get(self.context.evaluated_depsgraph_get()).matrix_world
            anim = armature.animation_data     # as each action will play (why_not checks it only with one)
            full = anim is None or (anim.action_influence == 1.0 and anim.action_blend_type == "REPLACE")
            plain = (full and self.scale == 1.0 and armature.parent is None and not len(armature.constraints)
                     and np.array_equal(np.array(world), np.eye(4))
                     and stored_bytes(armature, MD5_MESH_SOURCE) is not None
                     and why_not(self.context, armature) is None)
            self._rig = rig_digest(armature, self.order) if plain else None
        return self._rig

    def __call__(self, plan, frames: list) -> KeptText | None:
        if not self.mesh_as_imported or plan.actions is None or len(plan.actions) != 1 or plan.may_be_still:
            return None
        planned = plan.actions[0]
        action = planned.action
        record = self._record(action)
        if record is None or planned.target != self.armature or any(f.action != action.name for f in frames):
            return None
        layers = getattr(action, "layers", ())
        if len(layers) > 1 or any(len(layer.strips) > 1 for layer in layers):
            return None
        if self._rig_now() is None or record.get("rig") != self._rig:
            return None
        curves, groups = _fcurves(action, self.armature)
        if curves is None or (groups is not None and len(groups) and not _all(groups, "mute", bool, False)):
            return None
        keys = _keys(curves)
        if keys is None or keys[0] != record.get("keys"):
            return None
        times = scene_times([f.time for f in frames])
        if len(times) != len(keys[1]) or not np.array_equal(times, keys[1]):
            return None
        return KeptText(record["text"], len(times), record["rate"])
