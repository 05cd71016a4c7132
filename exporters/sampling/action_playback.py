"""Play one action at a time on the IDs that move the exported meshes, each from rest, and put
everything back afterwards (also on error).

Blender keeps a property's last value when the new action does not animate it, so before each
action (as glTF's exporter does between actions): shape keys animated by any listed action go to 0
(the others keep their values), the armatures' pose bones to rest, objects to their transforms from
before the export. The action is assigned with a suitable slot (4.4+) and NLA off; listed actions
on the other IDs are taken off. On exit every ID's action, slot, NLA switch, shape-key values, bone
and object transforms are as they were.
"""
from __future__ import annotations

import numpy as np

import bpy

from ...common.actions import played_with

# (property, floats per item, rest value)
POSE_CHANNELS = (("location", 3, (0.0, 0.0, 0.0)), ("rotation_quaternion", 4, (1.0, 0.0, 0.0, 0.0)),
                 ("rotation_euler", 3, (0.0, 0.0, 0.0)), ("rotation_axis_angle", 4, (0.0, 0.0, 1.0, 0.0)),
                 ("scale", 3, (1.0, 1.0, 1.0)))
OBJECT_CHANNELS = ("location", "rotation_euler", "rotation_quaternion", "rotation_axis_angle", "scale")


def pick_slot(action: bpy.types.Action, id_block: bpy.types.ID):
    """The action's slot for ``id_block`` (4.4+), else None: its last used one, one named after it, the first."""
    slots = [s for s in getattr(action, "slots", ()) if s.target_id_type in (id_block.id_type, "UNSPECIFIED")]
    if not slots:
        return None
    anim = id_block.animation_data
    last = getattr(anim, "last_slot_identifier", "") if anim is not None else ""
    for slot in slots:
        if slot.identifier == last or slot.identifier[2:] == id_block.name:
            return slot
    return slots[0]


def assigned_actions(id_block: bpy.types.ID) -> set[str]:
    """Names of the actions ``id_block`` plays: its action and its NLA strips'."""
    anim = id_block.animation_data
    if anim is None:
        return set()
    names = {anim.action.name} if anim.action is not None else set()
    names |= {s.action.name for t in anim.nla_tracks for s in t.strips if s.action is not None}
    return names


def _get(collection, name: str, size: int) -> np.ndarray:
    out = np.empty(len(collection) * size, np.float32)
    collection.foreach_get(name, out)
    return out


class ActionPlayback:
    """``with ActionPlayback(ids, listed, key_rest) as playback: playback.play(action, id_block)``.

    ``key_rest`` maps a Key's name to the values its blocks start every action with.
    """

    def __init__(self, ids: list[bpy.types.ID], listed: set[str], key_rest: dict[str, np.ndarray]):
        self.ids = ids
        self.listed = listed
        self.key_rest = key_rest
        self.saved: list = []

    def __enter__(self) -> ActionPlayback:
        for id_block in self.ids:
            anim = id_block.animation_data
            state = {"anim": None if anim is None else
                     (anim.action, getattr(anim, "action_slot", None), anim.use_nla)}
            if id_block.id_type == "KEY":
                state["values"] = _get(id_block.key_blocks, "value", 1)
            elif id_block.id_type == "OBJECT":
                state["object"] = {name: tuple(getattr(id_block, name)) for name in OBJECT_CHANNELS}
                if id_block.pose is not None:
                    state["pose"] = {name: _get(id_block.pose.bones, name, size) for name, size, _ in POSE_CHANNELS}
            self.saved.append(state)
        return self

    def play(self, action: bpy.types.Action, target: bpy.types.ID) -> None:
        """Everything at rest, then ``action`` alone on ``target`` (with the actions that play together
        with it on the other IDs, :func:`...common.actions.played_with`: an MD3 model's surfaces and tags)."""
        together = [(action, target)] + played_with(action, target)
        for id_block, state in zip(self.ids, self.saved):
            self._rest(id_block, state)
            anim = id_block.animation_data
            own = next((a for a, i in together if i == id_block), None)
            if own is not None:
                anim = anim or id_block.animation_data_create()
                anim.use_nla = False
                if anim.action != own:
                    anim.action = own
                slot = pick_slot(own, id_block)
                if slot is not None and anim.action_slot != slot:
                    anim.action_slot = slot
            elif anim is not None and assigned_actions(id_block) & self.listed:
                anim.action = None
                anim.use_nla = False

    def _rest(self, id_block: bpy.types.ID, state: dict) -> None:
        if id_block.id_type == "KEY" and id_block.name in self.key_rest:
            id_block.key_blocks.foreach_set("value", self.key_rest[id_block.name])
        elif id_block.id_type == "OBJECT":
            for name, value in state["object"].items():
                setattr(id_block, name, value)
            if "pose" in state:
                bones = id_block.pose.bones
                for name, _, rest in POSE_CHANNELS:
                    bones.foreach_set(name, np.tile(np.asarray(rest, np.float32), len(bones)))

    def __exit__(self, *exc) -> None:
        for id_block, state in zip(self.ids, self.saved):
            saved = state["anim"]
            if saved is None:
                if id_block.animation_data is not None:
                    id_block.animation_data_clear()
            else:
                anim = id_block.animation_data
                action, slot, use_nla = saved
                if anim.action != action:
                    anim.action = action
                if slot is not None and anim.action_slot != slot:
                    anim.action_slot = slot
                anim.use_nla = use_nla
            if "values" in state:
                id_block.key_blocks.foreach_set("value", state["values"])
            for name, value in state.get("object", {}).items():
                setattr(id_block, name, value)
            for name, values in state.get("pose", {}).items():
                id_block.pose.bones.foreach_set(name, values)
