"""The export path MD2 and MDL share: plan the frames once, sample the mesh objects at them, name the
frames, merge the parts into one mesh. The builders quantise, pick normals and pack skins on what
:func:`sample_model` hands back.

    options, objects ──► export_meshes, checked_topology ──► plan_frames (the FramePlan: which frames,
    at which scene times, from the timeline, shape keys or actions, named how; the end pose)
    ──► check (counts and names known before sampling, :mod:`.planned`) ──► sample_parts (at the
    plan's frames; an imported model's own span) ──► still_frames (one frame if nothing moves)
    ──► exported_frames (file frames and final names) ──► merged
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

import bpy

from ...formats.message_text import quoted
from .animated_mesh import (
    ExportedFrames,
    MeshPart,
    checked_topology,
    export_meshes,
    exported_frames,
    merged,
    sample_parts,
)
from .frame_plan import FramePlan, plan_frames
from .options import FrameExportOptions
from .planned import PlannedExport, model_label, planned_export
from .still_frames import still_frames


@dataclass
class SampledModel:
    """Every exported frame of the objects, as one mesh, with its frame names."""
    parts: list[MeshPart]          # one per mesh object, in export order
    plan: FramePlan                # the frames planned (before the still-model and own-span cuts)
    frames: list                   # the planned frames written (:class:`.frame_plan.PlannedFrame`)
    exported: ExportedFrames       # names and the file frame each frame was (if any)
    positions: np.ndarray          # (F, V, 3) every part's vertices, file units
    triangles: np.ndarray          # (T, 3) counter-clockwise (Blender order)
    uvs: np.ndarray                # (T, 3, 2) corner UVs
    info: list[str] = field(default_factory=list)   # notes for the report, after the rate's
    rate: list[str] = field(default_factory=list)   # the report's line on the rate (kept apart: a Quake III
    #                                                 player's parts give way to one line for the player)

    @property
    def report(self) -> list[str]:
        """Every line for the report: the rate's, then the notes."""
        return self.rate + self.info

    @property
    def first(self) -> bpy.types.Object:
        return self.parts[0].obj

    @property
    def label(self) -> str:
        """The model, for messages (:func:`.planned.model_label`)."""
        return model_label([p.obj for p in self.parts])

    @property
    def frames_evaluated(self) -> int:
        return sum(p.frames_evaluated for p in self.parts)


def sample_model(context: bpy.types.Context, objects: list[bpy.types.Object], options: FrameExportOptions,
                 format_name: str, int_attributes: tuple[str, ...] = (), kept_triangles: str = "",
                 check: Callable[[PlannedExport], None] | None = None) -> SampledModel:
    """The mesh objects of ``objects`` sampled at the frames ``options`` asks for, named and merged.

    ``int_attributes``: integer mesh attributes the format keeps (read with the topology);
    ``kept_triangles``: the mesh property holding a file's degenerate triangles (a mesh without faces
    is refused unless it has them); ``check``: refuses counts known before sampling (:mod:`.planned`)."""
    meshes, left_out = sampled_meshes(objects, kept_triangles)
    topologies = [checked_topology(context, obj, format_name, int_attributes, kept_triangles) for obj in meshes]
    plan = plan_frames(context, meshes, topologies, options,
                       None if check is None else lambda p: check(planned_export(p, meshes, topologies)))
    parts, frames = sample_parts(context, meshes, topologies, plan, options, kept_triangles)
    sampled = len(frames)
    parts, frames, still = still_frames(parts, frames, plan)
    exported = exported_frames(plan, parts[0], frames)
    positions, triangles, uvs = merged(parts)
    info = plan.report(sampled, rate=False) + ([still] if still else [])
    info += [f"object {quoted(name)} has no faces: left out" for name in left_out]
    return SampledModel(parts, plan, frames, exported, positions, triangles, uvs, info, plan.rate_lines(sampled))


def sampled_meshes(objects: list[bpy.types.Object], kept_triangles: str = "") -> tuple[list[bpy.types.Object],
                                                                                       list[str]]:
    """The mesh objects :func:`sample_model` samples, in order (the first gives the model's skins and
    records), and the names of the meshes without faces it leaves out."""
    objects, left_out = _without_empty_meshes(objects, kept_triangles)
    return export_meshes(objects), left_out


def _without_empty_meshes(objects: list[bpy.types.Object], kept_triangles: str) -> tuple[list, list[str]]:
    """Mesh objects with no faces, no modifiers and no kept triangles (an MS3D group with no triangles)
    left out when another mesh has faces; the names left out. Alone, they are refused by the sampling."""
    def empty(obj: bpy.types.Object) -> bool:
        return (obj.type == "MESH" and len(obj.data.polygons) == 0 and len(obj.modifiers) == 0
                and not (kept_triangles and obj.data.get(kept_triangles) is not None))
    kept = [o for o in objects if not empty(o)]
    if not any(o.type == "MESH" for o in kept):
        return objects, []
    return kept, [o.name for o in objects if empty(o)]
