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

from ...formats.message_text import quoted
from .action_sampling import action_frames
from .frame_plan import FramePlan
from .frame_rate import GAME_RATE

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


def planned_export(plan: FramePlan, meshes: list[bpy.types.Object], topologies: list) -> PlannedExport:
    """The counts an export of ``meshes`` (with their ``topologies``) by ``plan`` will have; for actions
    also the count at every Step (for the hint), for the timeline the names where the plan knows them."""
    vertices = sum(t.num_vertices for t in topologies)
    triangles = sum(len(t.triangles) for t in topologies)
    seconds, counts, frames, names = 0.0, None, len(plan.frames), None
    if plan.actions is not None:
        counts = [sum(len(action_frames(a.action, step, plan.every, a.target)) for a in plan.actions)
                  for step in range(1, 101)]
    elif plan.source == "TIMELINE":
        seconds = (plan.end - plan.start + 1) / plan.scene_fps
        frames = None if plan.own_span else frames
        names = plan.names if frames is not None else None
    return PlannedExport(model_label(meshes), meshes[0], vertices, triangles, frames, plan.source, plan.rate,
                         plan.step, seconds, counts, names)
