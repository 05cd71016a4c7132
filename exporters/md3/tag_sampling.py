"""World matrices of the tag empties (and the model root) at every exported frame, at the times the
meshes were sampled: on the timeline each frame's scene time; for Actions each action played alone as
the meshes saw it (:class:`..sampling.action_playback.ActionPlayback`), so an empty parented to a bone
follows the bone with no baking by hand; for Shape Keys the scene as it is now (one pose for every key).

Constraints, drivers, parents and bone parents are all evaluated by Blender's depsgraph: a tag is read
from ``Object.evaluated_get(depsgraph).matrix_world`` like the meshes' own transforms.
"""
from __future__ import annotations

import numpy as np

import bpy

from ..sampling.action_playback import ActionPlayback
from ..sampling.action_sampling import animated_ids
from ..sampling.frame_rate import set_frame
from ..sampling.frame_sampling import transform_animated
from .tag_curves import curve_matrices


def _read(context: bpy.types.Context, objects: list[bpy.types.Object]) -> np.ndarray:
    depsgraph = context.evaluated_depsgraph_get()
    return np.array([np.array(o.evaluated_get(depsgraph).matrix_world, np.float64) for o in objects]).reshape(-1, 4, 4)


def _ids(meshes: list[bpy.types.Object], objects: list[bpy.types.Object]) -> list[bpy.types.ID]:
    """Every ID an action may play on while the tags are read: the meshes' and the tags' own."""
    ids: list[bpy.types.ID] = []
    for obj in list(meshes) + list(objects):
        ids += [i for i in animated_ids(obj) if not any(i == j for j in ids)]
    return ids


def frame_sources(sampled) -> tuple[list, list | None, bool]:
    """For each exported frame of ``sampled`` (a :class:`..sampling.pipeline.SampledModel`, its frames
    as the frame plan made them): its scene time, the ``(action, target)`` it was sampled from (None on
    the timeline) and whether frames are shape keys (every frame read at the scene's current time)."""
    plan, frames = sampled.plan, sampled.frames
    if plan.source == "SHAPE_KEYS":
        return [f.time for f in frames], None, True
    if plan.source == "ACTIONS":
        pairs = {planned.action.name: (planned.action, planned.target) for planned in plan.actions}
        return [f.time for f in frames], [pairs[f.action] for f in frames], False
    return [f.time for f in frames], None, False


def sample_matrices(context: bpy.types.Context, objects: list[bpy.types.Object], meshes: list[bpy.types.Object],
                    times: list, actions: list | None, shape_keys: bool) -> np.ndarray:
    """(F, len(objects), 4, 4) world matrices of ``objects`` at each exported frame.

    ``times``: the scene frame of each exported frame; ``actions``: None on the timeline, else one
    ``(action, target)`` pair per exported frame (consecutive frames of one action share it);
    ``shape_keys``: every frame is read at the current scene time."""
    count = len(times)
    out = np.empty((count, len(objects), 4, 4))
    if not objects or not count:
        return out
    scene = context.scene
    current = scene.frame_current, scene.frame_subframe
    if shape_keys or (actions is None and not any(transform_animated(o) for o in objects)):
        out[:] = _read(context, objects)[None]          # nothing animates them: one read stands for every frame
        return out
    if actions is None and (fast := curve_matrices(objects, times)) is not None:
        return fast
    try:
        if actions is None:
            for f, time in enumerate(times):
                set_frame(scene, time)
                out[f] = _read(context, objects)
            return out
        listed = {a.name for a, _ in actions}
        ids = _ids(meshes, objects)
        rest = {key.name: _key_values(key) for key in ids if key.id_type == "KEY"}
        with ActionPlayback(ids, listed, rest) as playback:
            playing = None
            for f, (time, pair) in enumerate(zip(times, actions)):
                if pair is not playing:
                    playback.play(*pair)
                    playing = pair
                set_frame(scene, time)
                out[f] = _read(context, objects)
        return out
    finally:
        scene.frame_set(current[0], subframe=current[1])


def _key_values(key: bpy.types.Key) -> np.ndarray:
    values = np.empty(len(key.key_blocks), np.float32)
    key.key_blocks.foreach_get("value", values)
    return values
