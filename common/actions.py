"""Assigning actions on every supported Blender (slotted actions from 4.4 on)."""
from __future__ import annotations

import bpy

from .contract import MD3_ROOT


def assign_action(id_block: bpy.types.ID, action: bpy.types.Action | None) -> None:
    """Make ``action`` the active action of ``id_block`` (with its first slot where actions have slots)."""
    anim = id_block.animation_data or id_block.animation_data_create()
    anim.action = action
    slots = getattr(action, "slots", None) if action is not None else None
    if slots is not None and len(slots) and anim.action_slot is None:
        anim.action_slot = slots[0]


def _family(obj: bpy.types.Object) -> list[bpy.types.Object]:
    """``obj``, its parent and the parent's children (a Quake II player and the weapons imported with it;
    an MD3 model root's surface meshes and tag empties, which list their own actions)."""
    top = obj.parent if obj.parent is not None and obj.parent.classic_model.source_format else obj
    return [top] + [child for child in top.children
                    if child.classic_model.source_format or len(child.classic_model.animations)]


def _same_animation(items, index: int, name: str):
    """The member's animation standing for animation ``index`` named ``name``: the one at the same place
    when it has that name (an MD3 model's surfaces and tags list the root's animations in its order, and
    runs of frame names may repeat a name), else the first of that name."""
    return items[index] if index < len(items) and items[index].name == name else items.get(name)


def activate_animation(scene: bpy.types.Scene, obj: bpy.types.Object, index: int) -> None:
    """For a model imported with one action per animation: make animation ``index`` the active action
    (on the weapons imported with it too; an MD5 armature's own) and the scene range its frames."""
    settings = obj.classic_model
    if settings.animation_mode != "ACTIONS" or not 0 <= index < len(settings.animations):
        return
    item = settings.animations[index]
    for member in _family(obj):
        match = item if member is obj else _same_animation(member.classic_model.animations, index, item.name)
        if match is not None and match.action is not None and member.type == "ARMATURE":   # MD5: an action per anim
            assign_action(member, match.action)
            continue
        if match is not None and match.action is not None and member.type == "EMPTY":      # an MD3 tag's own
            assign_action(member, match.action)
            continue
        key = member.data.shape_keys if member.type == "MESH" else None
        if match is not None and match.action is not None and key is not None:
            # keys the new action does not animate would keep the value the old one left them at
            key.key_blocks.foreach_set("value", [0.0] * len(key.key_blocks))
            assign_action(key, match.action)
    scene.frame_start, scene.frame_end = item.frame_start, item.frame_end


def played_with(action: bpy.types.Action, target: bpy.types.ID) -> list[tuple[bpy.types.Action, bpy.types.ID]]:
    """The (action, ID) pairs that play together with ``action`` on ``target``: for an MD3 model imported
    with one action per animation (:mod:`.contract`, ``# MD3``), animation k is an action on every surface's
    shape keys and every tag empty of the model root, and playing one of them is playing all of them;
    [] for anything else."""
    owner = _owner(target)
    root = owner.parent if owner is not None else None
    if owner is None or root is None or root.get(MD3_ROOT) is None or root.classic_model.animation_mode != "ACTIONS":
        return []
    items = owner.classic_model.animations
    index = next((k for k, item in enumerate(items) if item.action == action), None)
    if index is None:
        return []
    out = []
    for member in root.children:
        match = _same_animation(member.classic_model.animations, index, items[index].name)
        played = member.data.shape_keys if member.type == "MESH" else member
        if member is not owner and match is not None and match.action is not None and played is not None:
            out.append((match.action, played))
    return out


def _owner(target: bpy.types.ID) -> bpy.types.Object | None:
    """The object ``target`` moves: itself, or the mesh object whose shape keys it is."""
    if target.id_type == "OBJECT":
        return target
    if target.id_type == "KEY":
        user = target.user
        return next((o for o in bpy.data.objects if o.type == "MESH" and o.data == user), None)
    return None
