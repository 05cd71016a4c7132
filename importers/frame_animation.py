"""Per-frame shape keys played on the timeline or as actions, shared by MD2 and MDL.

File frame i is shape key i (after Basis); its value is keyed 0 at scene frame ``start + (i - 1) s``,
1 at ``start + i s`` and 0 at ``start + (i + 1) s`` with linear interpolation (``s`` scene frames per
file frame: 1 where the import set the scene to the model's rate, scene fps / 10 where the scene kept
its own, see :mod:`.scene_timing`), so the timeline blends neighbouring frames linearly as the
engines do. A marker starts each animation (at the whole frame at or before it). With
``animations='ACTIONS'`` each animation is its own action keyed the same way from ``start`` (kept
with a fake user, the first one active), and the animation list holds each action.
"""
from __future__ import annotations

import math
import re

import numpy as np

import bpy

from ..common.actions import assign_action
from ..common.frame_table import record_frame_table
from ..formats.animations import Animation
from .scene_timing import SceneTiming, apply_timing

KEY_NAME_BYTES = 63        # a shape key's name field holds 63 bytes and its NUL
_NUMBERED = re.compile(r"\.\d+$")


def unique_key_names(names: list[str], taken: tuple[str, ...] = ("Basis",)) -> list[str] | None:
    """The names Blender gives shape keys added in turn with ``names`` after ``taken``, or None where
    its rule is not the simple one followed here.

    Blender makes a taken name unique with the first free ``.001``, ``.002``, ... (``BLI_uniquename``,
    delimiter '.'), trying every number from 1 on each time: a model whose frames share one name (a
    Nexuiz turret's 155 "(from 3DSMax)") costs it a number of name comparisons that grows with the cube
    of its frames. Given names already unique it compares each once. A name ending in '.' and digits
    (Blender continues from that number), an empty name or one too long is left to Blender."""
    seen = set(taken)
    tried: dict[str, int] = {}  # per name, the numbers below this one are taken (no key is removed here)
    unique = []
    for name in names:
        if not name:
            return None         # Blender names it "Key"
        if name in seen:
            if _NUMBERED.search(name):
                return None
            number = tried.get(name, 1)
            while f"{name}.{number:03d}" in seen:
                number += 1
            tried[name] = number + 1
            name = f"{name}.{number:03d}"
        if len(name.encode("utf-8")) > KEY_NAME_BYTES:
            return None
        seen.add(name)
        unique.append(name)
    return unique


def add_frame_shape_keys(obj: bpy.types.Object, names: list[str], positions: np.ndarray) -> list[bpy.types.ShapeKey]:
    """Basis (the first frame) plus one shape key per frame, values set to 0 (one ``foreach_set`` for
    them all: new keys start at 1.0 from Blender 5.0), named as Blender names them (:func:`unique_key_names`)."""
    obj.shape_key_add(name="Basis", from_mix=False)
    frames = np.ascontiguousarray(positions, dtype=np.float32).reshape(len(positions), -1)
    keys = []
    for name, co in zip(unique_key_names(names) or names, frames):
        key = obj.shape_key_add(name=name, from_mix=False)
        try:
            key.points.foreach_set("co", co)
        except AttributeError:
            key.data.foreach_set("co", co)
        keys.append(key)
    blocks = obj.data.shape_keys.key_blocks
    values = np.empty(len(blocks), dtype=np.float32)
    blocks.foreach_get("value", values)
    values[len(blocks) - len(keys) - 1:] = 0.0
    blocks.foreach_set("value", values)
    obj.data.shape_keys.use_relative = True
    return keys


def ensure_channelbag(action: bpy.types.Action, slot: bpy.types.ActionSlot):
    """The channel bag of ``slot`` in ``action``, created if missing (4.4 to 5.x; 4.4/4.5 lack the helper)."""
    from bpy_extras import anim_utils
    if hasattr(anim_utils, "action_ensure_channelbag_for_slot"):
        return anim_utils.action_ensure_channelbag_for_slot(action, slot)
    layer = action.layers[0] if len(action.layers) else action.layers.new("Layer")
    strip = layer.strips[0] if len(layer.strips) else layer.strips.new(type="KEYFRAME")
    return strip.channelbag(slot, ensure=True)


def new_action_fcurves(id_block: bpy.types.ID, action_name: str,
                       data_paths: list[str | tuple[str, int]]) -> list[bpy.types.FCurve]:
    """A new action assigned to ``id_block`` with one F-curve per data path, or per (data path, array
    index) (4.2 to 5.x)."""
    action = bpy.data.actions.new(action_name)
    anim = id_block.animation_data or id_block.animation_data_create()
    if hasattr(action, "slots"):
        slot = action.slots.new(id_type=id_block.id_type, name=id_block.name)
        anim.action = action
        anim.action_slot = slot
        channels = ensure_channelbag(action, slot).fcurves
    else:
        anim.action = action
        channels = action.fcurves
    return [channels.new(path) if isinstance(path, str) else channels.new(path[0], index=path[1])
            for path in data_paths]


def set_linear_keys(fcurve: bpy.types.FCurve, frames: np.ndarray, values: np.ndarray) -> None:
    points = fcurve.keyframe_points
    points.add(len(frames))
    points.foreach_set("co", np.column_stack([frames, values]).astype(np.float32).ravel())
    points.foreach_set("interpolation", np.ones(len(frames), dtype=np.int32))
    fcurve.update()


def animate_frame_keys(key: bpy.types.Key, keys: list[bpy.types.ShapeKey], start: int, action_name: str,
                       step: float = 1.0) -> None:
    """Key each frame's value so file frame i plays at scene frame ``start + i * step`` (every curve's keys
    computed in one go: per curve only Blender's own calls remain)."""
    paths = [f'key_blocks["{bpy.utils.escape_identifier(k.name)}"].value' for k in keys]
    count = len(keys)
    offsets = np.array([-1, 0, 1], dtype=np.float32)
    co = np.empty((count, 3, 2), dtype=np.float32)
    co[:, :, 0] = (np.arange(count, dtype=np.float32)[:, None] + offsets) * np.float32(step) + np.float32(start)
    co[:, :, 1] = offsets == 0
    rows = co.reshape(count, 6)
    linear = np.ones(3, dtype=np.int32)
    for i, fcurve in enumerate(new_action_fcurves(key, action_name, paths)):
        first, last = (1 if i == 0 else 0), (2 if i == count - 1 else 3)    # no key before frame 0, after the last
        points = fcurve.keyframe_points
        points.add(last - first)
        points.foreach_set("co", rows[i, 2 * first:2 * last])
        points.foreach_set("interpolation", linear[:last - first])
        fcurve.update()


def scene_frame(start: int, index: int, step: float, last: bool = False) -> int:
    """The whole scene frame at or before file frame ``index`` (markers, the animation list's starts: a
    frame placed on a subframe is after its animation's marker, never before, so the export names it
    from that marker), or with ``last`` the first whole frame at or after it (an animation's end, so
    its range holds it)."""
    frame = start + index * step
    return math.ceil(frame - 1e-4) if last else math.floor(frame + 1e-4)


def list_actions(settings, actions: list[tuple[bpy.types.Action, int, float]], start: int) -> None:
    """With several (action, frame count, scene frames a frame) the sidebar's animation list of the
    object's ``settings`` (``classic_model``): one row per action, each over its frames from ``start``
    (the skeletal imports key every action from the same scene frame)."""
    if len(actions) > 1:
        settings.animation_mode = "ACTIONS"
        for action, frames, step in actions:
            item = settings.animations.add()
            item.name = action.name
            item.frame_start, item.frame_end = start, scene_frame(start, frames - 1, step, True)
            item.action = action


def add_markers(scene: bpy.types.Scene, animations: list[Animation], start: int, step: float = 1.0) -> None:
    """One marker at the first frame of each animation (skipped if the same one is there)."""
    existing = {(m.name, m.frame) for m in scene.timeline_markers}
    for anim in animations:
        frame = scene_frame(start, anim.first, step)
        if (anim.name, frame) not in existing:
            scene.timeline_markers.new(anim.name, frame=frame)


def play_frames_on_timeline(context: bpy.types.Context, obj: bpy.types.Object, source_format: str,
                            frame_names: list[str], positions: np.ndarray, animations: list[Animation],
                            fps: int, action_name: str, timing: SceneTiming, groups: list[int] | None = None,
                            intervals: list[float] | None = None, mode: str = "TIMELINE") -> int:
    """Everything an import does to play per-frame shape keys: keys, their animation, markers, scene
    timing (``timing``: at the model's ``fps`` or the scene's), and the object's settings (format, first
    frame, frame table, animation list). Returns the first frame."""
    scene = context.scene
    start = scene.frame_start
    step = timing.step(fps)
    keys = add_frame_shape_keys(obj, frame_names, positions)
    record_frame_table(obj, frame_names, keys, groups, intervals)
    settings = obj.classic_model
    settings.source_format = source_format
    settings.frame_offset = start
    settings.animation_mode = mode
    if mode == "ACTIONS":
        animations_as_actions(obj, keys, animations, start, step)
        apply_timing(scene, timing, start, start + ((animations[0].frames if animations else 1) - 1) * step, fps)
        return start
    animate_frame_keys(obj.data.shape_keys, keys, start, action_name, step)
    add_markers(scene, animations, start, step)
    apply_timing(scene, timing, start, start + (max(len(frame_names), 1) - 1) * step, fps)
    for anim in animations:
        item = settings.animations.add()
        item.name = anim.name
        item.frame_start, item.frame_end = scene_frame(start, anim.first, step), scene_frame(start, anim.last, step, True)
    return start


def animations_as_actions(obj: bpy.types.Object, keys: list[bpy.types.ShapeKey], animations: list[Animation],
                          start: int, step: float) -> None:
    """One action per animation, each playing its frames from ``start``; the first one active."""
    shape_keys = obj.data.shape_keys
    for anim in animations:
        animate_frame_keys(shape_keys, keys[anim.first:anim.last + 1], start, anim.name, step)
        list_animation(obj, anim, start, step, shape_keys.animation_data.action)
    if animations:
        assign_action(shape_keys, obj.classic_model.animations[0].action)


def list_animation(obj: bpy.types.Object, anim: Animation, start: int, step: float,
                   action: bpy.types.Action | None) -> None:
    """``anim`` in the object's animation list, played from ``start`` by ``action`` (kept with a fake
    user; None: the object only lists it, as an MD3 model root lists its surfaces' and tags' actions)."""
    item = obj.classic_model.animations.add()
    item.name, item.frame_start, item.frame_end = anim.name, start, scene_frame(start, anim.frames - 1, step, True)
    if action is not None:
        action.use_fake_user = True
        item.action = action
