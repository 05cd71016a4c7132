"""What an MD2/MDL export will write, known before a single frame is sampled: the model's name, its
vertex and triangle counts (from the meshes' topology) and its frame count (from the frame range,
rate and step, the shape keys or the actions). The builders check these against the engine's
limits first, so a model that cannot fit is refused in a moment instead of after baking thousands
of frames, with what to change to make it fit.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import bpy

from .frame_rate import GAME_RATE, scene_fps, spacing, timeline_frames
from .action_sampling import action_frames
from .options import FrameExportOptions
from ...formats.shown import quoted

_EPS = 1e-6


def model_label(objects: list[bpy.types.Object]) -> str:
    """The model being exported, for messages: ``model 'Woman4' (10 mesh objects)`` when the meshes share
    one top parent (an imported MS3D's model object), ``object 'Cube'`` for one mesh without a parent,
    else the first names."""
    tops = set()
    for obj in objects:
        while obj.parent is not None:
            obj = obj.parent
        tops.add(obj.name)
    if len(objects) == 1:
        top = tops.pop()
        return f"object {quoted(objects[0].name)}" if top == objects[0].name else \
            f"model {quoted(top)} (object {quoted(objects[0].name)})"
    if len(tops) == 1:
        return f"model {quoted(tops.pop())} ({len(objects)} mesh objects)"
    names = ", ".join(quoted(o.name) for o in objects[:3])
    return f"{len(objects)} objects ({names}{', ...' if len(objects) > 3 else ''})"


@dataclass
class PlannedExport:
    """Counts known before sampling. ``vertices``/``triangles`` are at least what the file gets (an export
    may add vertex copies); ``frames`` is None when it is only known after sampling (an imported model
    sharing the scene with a longer one)."""
    label: str
    first: bpy.types.Object      # the first mesh (whose settings name the flavour written)
    vertices: int
    triangles: int
    frames: int | None
    frame_source: str
    frame_rate: str
    step: int
    seconds: float               # scene time the timeline frames cover
    action_frame_counts: list[int] | None = None   # ACTIONS: the frames of each action at each Step 1..100
    names: list[str] | None = None                 # the frame names, where known before sampling

    def fewer_frames(self, limit: int) -> str:
        """What to change so at most ``limit`` frames are written."""
        if self.frame_source == "SHAPE_KEYS":
            return f"export at most {limit} shape keys, or Frames: Timeline"
        if self.frame_source == "ACTIONS" and self.action_frame_counts is not None:
            steps = [s for s, count in enumerate(self.action_frame_counts, 1) if count <= limit]
            return (f"a larger Step (Step {steps[0]} writes {self.action_frame_counts[steps[0] - 1]} frames)"
                    if steps else "fewer or shorter actions (untick some in the list)")
        hints = ["a shorter frame range (Output > Frame Range)"]
        if self.seconds > 0:
            fit = math.floor(limit / self.seconds + _EPS)
            if self.frame_rate == "SCENE" and self.seconds * GAME_RATE <= limit:
                hints.append("Frame Rate: Game (10 fps)")
            if fit >= 1:
                hints.append(f"at most {fit} frames a second (command line: --fps {fit})")
        return "export fewer frames: " + ", or ".join(hints)


def plan_export(context: bpy.types.Context, meshes: list[bpy.types.Object], topologies: list,
                options: FrameExportOptions, actions: list | None, own_span_possible: bool,
                timeline: list | None = None) -> PlannedExport:
    """The counts an export of ``meshes`` (with their ``topologies``) will have. ``actions``: the
    (action, target) pairs an Actions export samples, None for the timeline and shape keys;
    ``timeline``: the scene frames a timeline export samples (with the end pose where it is added),
    by default :func:`.frame_rate.timeline_frames`."""
    scene = context.scene
    vertices = sum(t.num_vertices for t in topologies)
    triangles = sum(len(t.triangles) for t in topologies)
    seconds, counts, frames = 0.0, None, None
    if actions is not None:
        every = spacing(scene, options.frame_rate)
        counts = [sum(len(action_frames(a, step, every, t)) for a, t in actions) for step in range(1, 101)]
        frames = counts[max(1, options.step) - 1]
    elif options.frame_source == "SHAPE_KEYS":
        key = meshes[0].data.shape_keys
        frames = max(1, len(key.key_blocks) - 1) if key is not None else 1
    else:
        sampled = timeline if timeline is not None else timeline_frames(scene, options.frame_rate)
        seconds = (scene.frame_end - scene.frame_start + 1) / scene_fps(scene)
        frames = None if own_span_possible else len(sampled)
    return PlannedExport(model_label(meshes), meshes[0], vertices, triangles, frames, options.frame_source
                         if actions is None else "ACTIONS", options.frame_rate, options.step, seconds, counts)

