"""Mesh objects sampled frame by frame, shared by the MD2 and MDL builders.

Each object gives its topology (triangulated as Blender does, per-corner UVs) and its vertex
positions at every frame of the frame plan (:mod:`.frame_plan`: timeline, shape keys or actions,
sampled by :mod:`.frame_sampling` and :mod:`.action_sampling`), with modifiers and armatures applied, in file
units. Every frame must have the topology the export writes (:mod:`.topology_change`).
"""
from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

import bpy

from ...common.frame_table import FrameEntry, frame_table, match_frames, own_frame_span
from ...formats.errors import FormatError
from ...formats.message_text import quoted
from ..export_error import ExportError
from .action_sampling import sample_actions
from .frame_plan import FramePlan, PlannedFrame
from .frame_rate import whole
from .frame_sampling import has_active_modifiers, sample_shape_keys, sample_timeline, world_matrices
from .mesh_topology import Topology, object_topology
from .options import FrameExportOptions


@dataclass
class MeshPart:
    obj: bpy.types.Object
    topology: Topology
    positions: np.ndarray       # (F, V, 3) float32 (float64 once transformed) in file units
    key_names: list[str | None]
    key_indices: list[int | None]
    frames_evaluated: int = 0


@dataclass
class ExportedFrames:
    """What the export knows of each exported frame: its name and the file frame it was, if any."""
    names: list[str]
    match: np.ndarray            # (F,) index into ``table``, -1 for a frame the file did not have
    table: list[FrameEntry]      # the first object's frame table (empty for models made in Blender)

    def stored_name(self, f: int) -> bool:
        """True if frame f is written with the name the file stored (so its stored name bytes apply)."""
        m = self.match[f]
        return m >= 0 and self.names[f] == self.table[m].file_name


def export_meshes(objects: list[bpy.types.Object]) -> list[bpy.types.Object]:
    """The mesh objects of ``objects``, refused when there are none."""
    meshes = [o for o in objects if o.type == "MESH"]
    if not meshes:
        raise ExportError("nothing to export: select at least one mesh object" + _not_meshes(objects))
    return meshes


def sample_parts(context: bpy.types.Context, meshes: list[bpy.types.Object], topologies: list[Topology],
                 plan: FramePlan, options: FrameExportOptions,
                 kept_triangles: str = "") -> tuple[list[MeshPart], list[PlannedFrame]]:
    """Every mesh of ``meshes`` sampled at the frames of ``plan``; the planned frames kept (an imported
    model's own span may be fewer, :func:`_own_frames`).

    A mesh without faces is refused unless the import kept triangles for it (``kept_triangles``,
    the mesh property holding the file's degenerate triangles, e.g. of a placeholder model; present and
    empty for a file's part of vertices and no triangle)."""
    if plan.source == "ACTIONS":
        return _sample_actions(context, meshes, topologies, options, kept_triangles, plan), plan.frames
    frames = plan.frames
    parts = [_sample(context, obj, topology, plan, options, kept_triangles)
             for obj, topology in zip(meshes, topologies)]
    if plan.own_span:
        parts, frames = _own_frames(parts, frames)
    count = len(parts[0].positions)
    for part in parts[1:]:
        if len(part.positions) != count:
            raise ExportError(f"object {quoted(part.obj.name)} has {len(part.positions)} shape-key frames, "
                              f"{quoted(parts[0].obj.name)} has {count}; export them separately")
    return parts, frames


def _own_frames(parts: list[MeshPart], frames: list[PlannedFrame]) -> tuple[list[MeshPart], list[PlannedFrame]]:
    """Imported models whose scene range is longer than their own frames only because a longer model
    shares the scene (a player's weapons) export their own frames (:func:`own_frame_span`)."""
    spans = [own_frame_span(p.obj, [f.time for f in frames], p.key_indices) for p in parts]
    span = spans[0]
    if span is None or any(s != span for s in spans):
        return parts, frames
    return [replace(p, positions=p.positions[span], key_names=p.key_names[span], key_indices=p.key_indices[span])
            for p in parts], frames[span]


def _not_meshes(objects: list[bpy.types.Object]) -> str:
    """What the selection held instead of meshes, and how to make meshes of it."""
    if not objects:
        return ""
    listed = ", ".join(f"{quoted(o.name)} ({o.type.lower()})" for o in objects[:3]) + (" ..." if len(objects) > 3 else "")
    return (f" (selected: {listed}; Object > Convert > Mesh makes meshes of text and curves, "
            "Object > Apply > Make Instances Real of collection instances)")


def checked_topology(context, obj, format_name: str, int_attributes: tuple[str, ...],
                      kept_triangles: str = "") -> Topology:
    """The topology, refused without a UV map or (with no modifier that may add faces later) faces."""
    topology = object_topology(context, obj, int_attributes)
    if not has_active_modifiers(obj):
        _refuse_faceless(obj, topology, kept_triangles)
    if topology.corner_uvs is None:
        raise ExportError(f"object {quoted(obj.name)} has no UV map; {format_name} needs texture coordinates")
    return topology


def _refuse_faceless(obj: bpy.types.Object, topology: Topology, kept_triangles: str) -> None:
    """No faces (and no triangles the import kept): refused. With modifiers this is checked after
    sampling, where faces appearing on a later frame are refused as a topology change instead."""
    if len(topology.triangles) == 0 and not (kept_triangles and obj.data.get(kept_triangles) is not None):
        raise ExportError(f"object {quoted(obj.name)} has no faces")


def _sample_actions(context, meshes: list[bpy.types.Object], topologies: list[Topology], options: FrameExportOptions,
                    kept_triangles: str, plan: FramePlan) -> list[MeshPart]:
    """Every mesh at every planned frame of every planned action."""
    samples = sample_actions(context, meshes, [t.at for t in topologies], options.apply_transform, plan.actions)
    parts = []
    for obj, topology, positions, names, indices in zip(meshes, topologies, samples.positions, samples.key_names,
                                                        samples.key_indices):
        _refuse_faceless(obj, topology, kept_triangles)
        if options.scale != 1.0:
            positions = positions * options.scale
        if not all_finite(positions):
            raise ExportError(f"object {quoted(obj.name)} has non-finite (NaN or infinite) vertex coordinates")
        parts.append(MeshPart(obj=obj, topology=topology, positions=positions, key_names=names, key_indices=indices,
                              frames_evaluated=samples.evaluated))
    return parts


def _sample(context, obj: bpy.types.Object, topology: Topology, plan: FramePlan, options: FrameExportOptions,
            kept_triangles: str) -> MeshPart:
    frames = plan.times
    try:
        if plan.source == "SHAPE_KEYS":
            sampled = sample_shape_keys(context, obj, topology.num_vertices)
        else:
            sampled = sample_timeline(context, obj, frames, topology.at)
    except FormatError as exc:
        raise ExportError(str(exc)) from exc
    _refuse_faceless(obj, topology, kept_triangles)
    positions = sampled.positions
    if options.apply_transform:
        matrices = world_matrices(context, obj, frames if plan.source == "TIMELINE" else None)
        if not np.array_equal(matrices, np.broadcast_to(np.eye(4), matrices.shape)):
            positions = positions.astype(np.float64) @ np.swapaxes(matrices[:, :3, :3], 1, 2)
            np.add(positions, matrices[:, None, :3, 3], out=positions)
    if options.scale != 1.0:
        positions = positions.astype(np.float64) * options.scale
    if not all_finite(positions):
        raise ExportError(f"object {quoted(obj.name)} has non-finite (NaN or infinite) vertex coordinates")
    return MeshPart(obj, topology, positions, sampled.key_names, sampled.key_indices, sampled.evaluated_frames)


def all_finite(values: np.ndarray) -> bool:
    """No NaN or infinity: the smallest and largest are finite (a NaN makes both NaN), without a mask."""
    return values.size == 0 or bool(np.isfinite(values.min()) and np.isfinite(values.max()))


def merged(parts: list[MeshPart]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """All parts as one mesh: (positions (F, V, 3), counter-clockwise triangles (T, 3), corner UVs (T, 3, 2))."""
    offsets = np.cumsum([0] + [p.topology.num_vertices for p in parts])
    triangles = np.concatenate([p.topology.triangles + off for p, off in zip(parts, offsets)])
    positions = parts[0].positions if len(parts) == 1 else np.concatenate([p.positions for p in parts], axis=1)
    uvs = np.concatenate([p.topology.corner_uvs for p in parts])
    return positions, triangles, uvs


def exported_frames(plan: FramePlan, part: MeshPart, frames: list[PlannedFrame]) -> ExportedFrames:
    """Each kept planned frame's file frame (by the key it is, else by its place on the timeline) and
    name: the frame table's name for a file frame, the shape key's name for a key the user added, else
    the plan's ``<marker><nn>`` (an added end pose the next number) or ``<action><nn>``; a file frame
    shown by the action the import made for its animation keeps its name from the frame table."""
    obj = part.obj
    table = frame_table(obj)
    on_timeline = plan.source == "TIMELINE" and abs(plan.every - 1.0) < 1e-9
    places = [int(whole(f.time)) - plan.offset if on_timeline else None for f in frames[:len(part.key_indices)]]
    places += [None] * (len(part.key_indices) - len(places))
    match = match_frames(obj, table, places, part.key_indices)
    if plan.source == "ACTIONS":
        if plan.name_problem:
            raise ExportError(plan.name_problem)
        own = {item.action.name for item in obj.classic_model.animations if item.action is not None}
        names = [table[m].name if m >= 0 and f.action in own else f.name for f, m in zip(frames, match)]
        return ExportedFrames(names, match, table)
    names, previous = [], ("", 0)
    for m, key_name, frame in zip(match, part.key_names, frames):
        if m >= 0:
            names.append(table[m].name)
            continue
        if key_name:
            names.append(key_name)
            continue
        number = frame.number
        if previous[0] == frame.marker and number <= previous[1]:      # an end pose closer than a step
            number = previous[1] + 1
        previous = frame.marker, number
        names.append(f"{frame.marker}{number:02d}")
    return ExportedFrames(names, match, table)
