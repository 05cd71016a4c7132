"""Final vertex positions of a mesh object at many frames, read the cheapest exact way.

Stepping the timeline re-evaluates every shape key on every frame (cost grows with frames
squared on per-frame-key models). So where a frame's evaluated mesh is exactly one shape key (no
active modifiers, that key's value at 1 and every other key at 0 on that frame), the key's
coordinates are read directly; only the remaining frames step the timeline.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

import bpy

from ...formats.errors import FormatError
from ...formats.message_text import quoted
from .curve_values import curves_values
from .frame_rate import set_frame
from .topology_change import TopologyAt

BASIS = 0


@dataclass
class SampledFrames:
    positions: np.ndarray          # (F, V, 3) float32, object space
    key_names: list[str | None]    # the shape key a frame is exactly equal to, else None
    key_indices: list[int | None]  # that key's index in key_blocks (never Basis), else None
    evaluated_frames: int          # how many frames needed a depsgraph evaluation


def has_active_modifiers(obj: bpy.types.Object) -> bool:
    return any(m.show_viewport for m in obj.modifiers)


def read_key_positions(key_block: bpy.types.ShapeKey, num_verts: int) -> np.ndarray:
    flat = np.empty(num_verts * 3, dtype=np.float32)
    try:
        key_block.points.foreach_get("co", flat)
    except AttributeError:
        key_block.data.foreach_get("co", flat)
    return flat.reshape(num_verts, 3)


def read_mesh_positions(mesh: bpy.types.Mesh) -> np.ndarray:
    flat = np.empty(len(mesh.vertices) * 3, dtype=np.float32)
    mesh.vertices.foreach_get("co", flat)
    return flat.reshape(-1, 3)


def _fcurves_of(id_block: bpy.types.ID) -> list[bpy.types.FCurve] | None:
    """The F-curves driving ``id_block`` through its action, or None if NLA/drivers make it complex."""
    anim = id_block.animation_data
    if anim is None:
        return []
    if len(anim.drivers) or any(not t.mute for t in anim.nla_tracks):
        return None
    action = anim.action
    if action is None:
        return []
    if hasattr(anim, "action_slot"):
        from bpy_extras import anim_utils
        slot = anim.action_slot
        if slot is None:
            return []
        bag = anim_utils.action_get_channelbag_for_slot(action, slot)
        return list(bag.fcurves) if bag is not None else []
    return list(action.fcurves)


def block_floats(key: bpy.types.Key, name: str) -> np.ndarray:
    """A float property of every key block, as float64."""
    array = np.empty(len(key.key_blocks), dtype=np.float32)
    key.key_blocks.foreach_get(name, array)
    return array.astype(np.float64)


def exact_key_per_frame(obj: bpy.types.Object, frames: np.ndarray) -> list[int | None]:
    """For each scene frame, the index of the one key block the evaluated mesh equals, else None."""
    unknown: list[int | None] = [None] * len(frames)
    key = obj.data.shape_keys
    if obj.type != "MESH" or has_active_modifiers(obj) or obj.show_only_shape_key:
        return unknown
    if key is None:
        return [BASIS] * len(frames)
    blocks = list(key.key_blocks)
    if not key.use_relative or any(b.relative_key != blocks[0] for b in blocks[1:]):
        return unknown
    fcurves = _fcurves_of(key)
    if fcurves is None:
        return unknown
    by_path = {fc.data_path: fc for fc in fcurves if not fc.mute}
    count = len(blocks)
    mute = np.empty(count, dtype=bool)
    key.key_blocks.foreach_get("mute", mute)
    low, high, value = (block_floats(key, name) for name in ("slider_min", "slider_max", "value"))
    values = np.zeros((count, len(frames)))
    curves, rows = [], []
    for i, block in enumerate(blocks[1:], 1):
        if mute[i]:
            continue
        curve = by_path.get(f'key_blocks["{bpy.utils.escape_identifier(block.name)}"].value')
        if curve is None:
            values[i] = value[i]
        else:
            curves.append(curve)
            rows.append(i)
    values[rows] = curves_values(curves, frames)
    values = np.clip(values, low[:, None], high[:, None])
    values[mute] = 0.0
    animated = np.flatnonzero((values != 0).any(axis=1))
    if any(blocks[i].vertex_group for i in animated if i):
        return unknown
    others = values[1:]
    nonzero = others != 0
    single = nonzero.sum(axis=0) == 1
    which = nonzero.argmax(axis=0)
    exact = single & (others[which, np.arange(len(frames))] == 1.0)
    return [BASIS if not column_any else (int(index) + 1 if is_exact else None)
            for column_any, index, is_exact in zip(nonzero.any(axis=0).tolist(), which.tolist(), exact.tolist())]


def evaluated_positions(context: bpy.types.Context, obj: bpy.types.Object) -> np.ndarray:
    """Vertex positions of ``obj`` with modifiers, shape keys and armatures applied, now."""
    depsgraph = context.evaluated_depsgraph_get()
    obj_eval = obj.evaluated_get(depsgraph)
    mesh = obj_eval.to_mesh()
    try:
        return read_mesh_positions(mesh)
    finally:
        obj_eval.to_mesh_clear()


def checked_positions(context: bpy.types.Context, obj: bpy.types.Object, at: TopologyAt, frame: float,
                      action: str = "") -> np.ndarray:
    """Evaluated positions now (scene frame ``frame``), refused if the topology is not ``at``'s."""
    obj_eval = obj.evaluated_get(context.evaluated_depsgraph_get())
    mesh = obj_eval.to_mesh()
    try:
        at.check(obj, frame, mesh, action)
        return read_mesh_positions(mesh)
    finally:
        obj_eval.to_mesh_clear()


def sample_timeline(context: bpy.types.Context, obj: bpy.types.Object, frames: list[float],
                    at: TopologyAt) -> SampledFrames:
    """Positions at each scene frame in ``frames`` (subframes allowed); every evaluated frame must
    have the topology ``at`` describes."""
    num_verts = at.vertices
    frame_array = np.asarray(frames, dtype=np.float64)
    exact = exact_key_per_frame(obj, frame_array)
    blocks = obj.data.shape_keys.key_blocks if obj.data.shape_keys else None
    positions = np.empty((len(frames), num_verts, 3), dtype=np.float32)
    names: list[str | None] = []
    indices: list[int | None] = []
    cache: dict[int, np.ndarray] = {}
    for i, index in enumerate(exact):
        is_key = index is not None and blocks is not None and index != BASIS
        indices.append(index if is_key else None)
        if index is None:
            names.append(None)
            continue
        if index not in cache:
            cache[index] = (read_key_positions(blocks[index], num_verts) if blocks is not None
                            else read_mesh_positions(obj.data))
        positions[i] = cache[index]
        names.append(blocks[index].name if is_key else None)
    slow = [i for i, index in enumerate(exact) if index is None]
    if slow:
        scene = context.scene
        current = scene.frame_current, scene.frame_subframe
        try:
            for i in slow:
                set_frame(scene, frames[i])
                positions[i] = checked_positions(context, obj, at, frames[i])
        finally:
            scene.frame_set(current[0], subframe=current[1])
    return SampledFrames(positions, names, indices, len(slow))


def sample_shape_keys(context: bpy.types.Context, obj: bpy.types.Object, num_verts: int) -> SampledFrames:
    """One frame per shape key after Basis (with modifiers applied if any), or one frame of the mesh."""
    key = obj.data.shape_keys
    if key is None or len(key.key_blocks) < 2:
        co = evaluated_positions(context, obj)
        return SampledFrames(co[None], [None], [None], 1)
    blocks = list(key.key_blocks)[1:]
    if not has_active_modifiers(obj):
        positions = np.stack([read_key_positions(b, num_verts) for b in blocks])
        return SampledFrames(positions, [b.name for b in blocks], list(range(1, len(blocks) + 1)), 0)
    saved = obj.show_only_shape_key, obj.active_shape_key_index
    positions = np.empty((len(blocks), num_verts, 3), dtype=np.float32)
    try:
        obj.show_only_shape_key = True
        for i in range(len(blocks)):
            obj.active_shape_key_index = i + 1
            co = evaluated_positions(context, obj)
            if len(co) != num_verts:
                raise FormatError(f"object {quoted(obj.name)}: shape key {quoted(blocks[i].name)} changes the vertex count")
            positions[i] = co
    finally:
        obj.show_only_shape_key, obj.active_shape_key_index = saved
    return SampledFrames(positions, [b.name for b in blocks], list(range(1, len(blocks) + 1)), len(blocks))


def transform_animated(obj: bpy.types.Object) -> bool:
    """True if the object's world matrix may change over time (its own or a parent's animation,
    drivers or constraints)."""
    while obj is not None:
        anim = obj.animation_data
        if obj.constraints or (anim is not None and (anim.action or len(anim.drivers) or len(anim.nla_tracks))):
            return True
        obj = obj.parent
    return False


def world_matrices(context, obj: bpy.types.Object, frames: list[float] | None) -> np.ndarray:
    """(F, 4, 4) world matrices at the scene ``frames`` (one, repeated, when the transform is static)."""
    if frames is None or not transform_animated(obj):
        return np.array(obj.matrix_world, dtype=np.float64)[None]
    scene = context.scene
    current = scene.frame_current, scene.frame_subframe
    try:
        out = np.empty((len(frames), 4, 4))
        for i, frame in enumerate(frames):
            set_frame(scene, frame)
            out[i] = np.array(obj.evaluated_get(context.evaluated_depsgraph_get()).matrix_world)
        return out
    finally:
        scene.frame_set(current[0], subframe=current[1])
