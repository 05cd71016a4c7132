"""Mesh objects sampled frame by frame, shared by the MD2 and MDL builders.

Each object gives its topology (triangulated as Blender does, per-corner UVs) and its vertex
positions at every exported frame: over the scene range (``TIMELINE``), every 0.1 s of scene time
or every scene frame (:mod:`.frame_rate`), or one per shape key (``SHAPE_KEYS``) or over each
action (``ACTIONS``, see :mod:`.action_sampling`), with modifiers and armatures applied, in file
units. Every frame must have the topology the export writes (:mod:`.topology_change`).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Callable

import numpy as np
import bpy

from ...formats.errors import FormatError
from ...common.frame_table import FrameEntry, frame_table, match_frames, own_frame_span
from ..export_error import ExportError
from .frame_rate import set_frame, spacing, timeline_frames, whole
from .frame_sampling import has_active_modifiers, sample_shape_keys, sample_timeline
from .action_sampling import (FrameOrigin, action_frame_names, ended_actions, find_actions, order_actions,
                              sample_actions, standard_rule)
from .mesh_topology import Topology, object_topology
from .options import FrameExportOptions
from .planned import PlannedExport, plan_export
from ...formats.shown import quoted

_SAME_POSE = 1e-6          # Blender units: an end pose this close to the first is the same pose


@dataclass
class MeshPart:
    obj: bpy.types.Object
    topology: Topology
    positions: np.ndarray       # (F, V, 3) float32 (float64 once transformed) in file units
    key_names: list[str | None]
    key_indices: list[int | None]
    frames_evaluated: int = 0
    origins: list[FrameOrigin] | None = None   # ACTIONS: the action and action frame of each frame


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


def sample_parts(context: bpy.types.Context, objects: list[bpy.types.Object], options: FrameExportOptions,
                 format_name: str, int_attributes: tuple[str, ...] = (), kept_triangles: str = "",
                 check: Callable[[PlannedExport], None] | None = None) -> tuple[list[MeshPart], list[int], list[str]]:
    """Every mesh object of ``objects`` sampled at the same frames; the scene frames used; the
    animations that gained their end pose as a last frame (:func:`_with_end_pose`,
    :func:`.action_sampling.action_frames`).

    A mesh without faces is refused unless the import kept triangles for it (``kept_triangles``,
    the mesh property holding the file's degenerate triangles, e.g. of a placeholder model).
    ``check`` sees the counts known before sampling (:mod:`.planned`) and raises to refuse them."""
    meshes = [o for o in objects if o.type == "MESH"]
    if not meshes:
        raise ExportError("nothing to export: select at least one mesh object" + _not_meshes(objects))
    scene = context.scene
    topologies = [_checked_topology(context, obj, format_name, int_attributes, kept_triangles) for obj in meshes]
    by_actions = options.frame_source == "ACTIONS" or imported_as_actions(meshes[0], options)
    actions = _listed_actions(meshes, options) if by_actions else None
    frames = [] if by_actions else timeline_frames(scene, options.frame_rate)

    def planned(frames: list) -> None:
        if check is None:
            return
        plan = plan_export(context, meshes, topologies, options, actions, _own_span_possible(meshes[0]),
                           None if by_actions else frames)
        if not by_actions and options.frame_source == "TIMELINE" and plan.frames is not None:
            plan.names = _names_before_sampling(scene, meshes, topologies, frames, options)
        check(plan)
    planned(frames)             # actions: with their end poses (known from the F-curves)
    if by_actions:
        gained = ended_actions(actions, options.step, spacing(scene, options.frame_rate))
        return (*_sample_actions(context, meshes, topologies, options, kept_triangles, actions), gained)
    frames, gained = _with_end_pose(context, meshes, topologies, frames, options)
    if gained:
        planned(frames)         # the timeline's end pose needed two frames evaluated: counted now
    parts = [_sample(context, obj, topology, frames, options, kept_triangles)
             for obj, topology in zip(meshes, topologies)]
    if options.frame_source == "TIMELINE":
        parts, frames = _own_frames(parts, frames)
    count = len(parts[0].positions)
    for part in parts[1:]:
        if len(part.positions) != count:
            raise ExportError(f"object {quoted(part.obj.name)} has {len(part.positions)} shape-key frames, "
                              f"{quoted(parts[0].obj.name)} has {count}; export them separately")
    return parts, frames, gained


def _with_end_pose(context, meshes: list[bpy.types.Object], topologies: list[Topology], frames: list,
                   options: FrameExportOptions) -> tuple[list, list[str]]:
    """The timeline ``frames`` plus the range's last frame where the game rate passes it by and a mesh
    is in another pose there than at the first frame (a cycle that ends where it starts keeps its
    frames) and than at the last frame sampled (a model whose last key the steps reached, as one
    imported into a 24 fps scene, ends there); with the animation that gained it (the last marker's
    name, else the frame range)."""
    scene = context.scene
    first, last = scene.frame_start, scene.frame_end
    if options.frame_source != "TIMELINE" or abs(frames[-1] - last) < 1e-6:
        return frames, []
    if not any(_moved(context, obj, topology, [first, frames[-1], last], options.apply_transform)
               for obj, topology in zip(meshes, topologies)):
        return frames, []
    markers = sorted((m.frame, m.name) for m in scene.timeline_markers if m.frame <= last)
    return frames + [last], [markers[-1][1] if markers else f"frames {first}-{last}"]


def _moved(context, obj: bpy.types.Object, topology: Topology, frames: list, world: bool) -> bool:
    """True if the mesh (in world space with ``world``) at the last of the scene ``frames`` differs
    from its pose at each of the others."""
    try:
        positions = sample_timeline(context, obj, frames, topology.at).positions.astype(np.float64)
    except FormatError as exc:
        raise ExportError(str(exc)) from exc
    if world:
        matrices = _world_matrices(context, obj, frames)
        positions = positions @ np.swapaxes(matrices[:, :3, :3], 1, 2) + matrices[:, None, :3, 3]
    return not any(np.allclose(positions[i], positions[-1], rtol=0.0, atol=_SAME_POSE)
                   for i in range(len(frames) - 1))


def _own_frames(parts: list[MeshPart], frames: list[int]) -> tuple[list[MeshPart], list[int]]:
    """Imported models whose scene range is longer than their own frames only because a longer model
    shares the scene (a player's weapons) export their own frames (:func:`own_frame_span`)."""
    spans = [own_frame_span(p.obj, frames, p.key_indices) for p in parts]
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


def imported_as_actions(obj: bpy.types.Object, options: FrameExportOptions) -> bool:
    """True for a timeline export of a model imported with one action per animation: its frames are
    the actions' frames (the import's list order), so an untouched model writes the file it came from."""
    return options.frame_source == "TIMELINE" and obj.classic_model.animation_mode == "ACTIONS"


def _checked_topology(context, obj, format_name: str, int_attributes: tuple[str, ...],
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
    if len(topology.triangles) == 0 and not (kept_triangles and obj.data.get(kept_triangles)):
        raise ExportError(f"object {quoted(obj.name)} has no faces")


def _listed_actions(meshes: list[bpy.types.Object], options: FrameExportOptions) -> list:
    """The (action, target) pairs an Actions export samples, in ``options.actions`` order (else the default;
    actions named after Quake II's player animations in the game's order, see ``standard_rule``)."""
    imported = imported_as_actions(meshes[0], options)     # the import's order: written back as it was
    standard = "" if imported else standard_rule(meshes, options.standard_order)
    found = find_actions(meshes, standard)
    by_name = {action.name: (action, target) for action, target in found}
    return [by_name[n] for n in order_actions(list(by_name), None if imported else options.actions, standard)]


def _own_span_possible(obj: bpy.types.Object) -> bool:
    """True if the timeline frames may shrink to the object's own after sampling (:func:`_own_frames`)."""
    return bool(frame_table(obj)) and obj.data.shape_keys is not None and bool(obj.classic_model.source_format)


def _names_before_sampling(scene: bpy.types.Scene, meshes: list[bpy.types.Object], topologies: list[Topology],
                           frames: list, options: FrameExportOptions) -> list[str] | None:
    """The timeline frames' names where sampling cannot change them (no shape key, no frame table:
    names come from the markers alone), else None."""
    first = meshes[0]
    if frame_table(first) or any(m.data.shape_keys is not None for m in meshes):
        return None
    none = [None] * len(frames)
    stub = MeshPart(first, topologies[0], np.empty((0, 0, 3)), none, none)
    return exported_frames(scene, stub, frames, options).names


def _sample_actions(context, meshes: list[bpy.types.Object], topologies: list[Topology], options: FrameExportOptions,
                    kept_triangles: str, found: list) -> tuple[list[MeshPart], list[int]]:
    """Every mesh at every exported frame of every action in ``found``."""
    samples = sample_actions(context, meshes, [t.at for t in topologies], options, found)
    parts = []
    for obj, topology, positions, names, indices in zip(meshes, topologies, samples.positions, samples.key_names,
                                                        samples.key_indices):
        _refuse_faceless(obj, topology, kept_triangles)
        if options.scale != 1.0:
            positions = positions * options.scale
        if not np.all(np.isfinite(positions)):
            raise ExportError(f"object {quoted(obj.name)} has non-finite (NaN or infinite) vertex coordinates")
        parts.append(MeshPart(obj=obj, topology=topology, positions=positions, key_names=names, key_indices=indices,
                              frames_evaluated=samples.evaluated, origins=samples.origins))
    return parts, [o.frame for o in samples.origins]


def _sample(context, obj: bpy.types.Object, topology: Topology, frames: list[float], options: FrameExportOptions,
            kept_triangles: str) -> MeshPart:
    try:
        if options.frame_source == "SHAPE_KEYS":
            sampled = sample_shape_keys(context, obj, topology.num_vertices)
        else:
            sampled = sample_timeline(context, obj, frames, topology.at)
    except FormatError as exc:
        raise ExportError(str(exc)) from exc
    _refuse_faceless(obj, topology, kept_triangles)
    positions = sampled.positions
    if options.apply_transform:
        matrices = _world_matrices(context, obj, frames if options.frame_source == "TIMELINE" else None)
        if not np.array_equal(matrices, np.broadcast_to(np.eye(4), matrices.shape)):
            positions = (positions.astype(np.float64) @ np.swapaxes(matrices[:, :3, :3], 1, 2)
                         + matrices[:, None, :3, 3])
    if options.scale != 1.0:
        positions = positions.astype(np.float64) * options.scale
    if not np.all(np.isfinite(positions)):
        raise ExportError(f"object {quoted(obj.name)} has non-finite (NaN or infinite) vertex coordinates")
    return MeshPart(obj, topology, positions, sampled.key_names, sampled.key_indices, sampled.evaluated_frames)


def _transform_animated(obj: bpy.types.Object) -> bool:
    """True if the object's world matrix may change over time (its own or a parent's animation,
    drivers or constraints)."""
    while obj is not None:
        anim = obj.animation_data
        if obj.constraints or (anim is not None and (anim.action or len(anim.drivers) or len(anim.nla_tracks))):
            return True
        obj = obj.parent
    return False


def _world_matrices(context, obj: bpy.types.Object, frames: list[float] | None) -> np.ndarray:
    """(F, 4, 4) world matrices at the exported frames (one, repeated, when the transform is static)."""
    if frames is None or not _transform_animated(obj):
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


def merged(parts: list[MeshPart]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """All parts as one mesh: (positions (F, V, 3), counter-clockwise triangles (T, 3), corner UVs (T, 3, 2))."""
    offsets = np.cumsum([0] + [p.topology.num_vertices for p in parts])
    triangles = np.concatenate([p.topology.triangles + off for p, off in zip(parts, offsets)])
    positions = np.concatenate([p.positions for p in parts], axis=1)
    uvs = np.concatenate([p.topology.corner_uvs for p in parts])
    return positions, triangles, uvs


def exported_frames(scene: bpy.types.Scene, part: MeshPart, frames: list[float],
                    options: FrameExportOptions) -> ExportedFrames:
    """Each frame's file frame (by the key it is, else by its place on the timeline) and name: the
    frame table's name for a file frame, the shape key's name for a key the user added, else
    ``<marker><nn>`` from the last marker at or before it, nn counting exported frames from the
    marker (one per scene frame, or per 0.1 s at the game rate; an added end pose the next number)."""
    obj = part.obj
    frame_source = options.frame_source
    every = spacing(scene, options.frame_rate)
    table = frame_table(obj)
    offset = obj.classic_model.frame_offset if obj.classic_model.source_format else scene.frame_start
    on_timeline = frame_source == "TIMELINE" and part.origins is None and abs(every - 1.0) < 1e-9
    places = [int(whole(frame)) - offset if on_timeline else None for frame in frames[:len(part.key_indices)]]
    places += [None] * (len(part.key_indices) - len(places))
    match = match_frames(obj, table, places, part.key_indices)
    if part.origins is not None:
        return ExportedFrames(_action_frame_names(obj, part.origins, match, table), match, table)
    markers = sorted((m.frame, m.name) for m in scene.timeline_markers)
    names, previous = [], ("", 0)
    for i, (m, key_name) in enumerate(zip(match, part.key_names)):
        if m >= 0:
            names.append(table[m].name)
            continue
        if key_name:
            names.append(key_name)
            continue
        frame, step = (frames[i], every) if frame_source == "TIMELINE" else (scene.frame_start + i, 1.0)
        before = [fm for fm in markers if fm[0] <= frame + 1e-6]
        base, first = (before[-1][1], before[-1][0]) if before else ("frame", scene.frame_start)
        number = int(math.floor((frame - first) / step + 1e-6)) + 1
        if previous[0] == base and number <= previous[1]:      # an end pose closer than a step
            number = previous[1] + 1
        previous = base, number
        names.append(f"{base}{number:02d}")
    return ExportedFrames(names, match, table)


def _action_frame_names(obj: bpy.types.Object, origins: list[FrameOrigin], match: np.ndarray,
                        table: list[FrameEntry]) -> list[str]:
    """Frames sampled from actions are named after them; a file frame shown by the action the import
    made for its animation keeps its name from the frame table."""
    names = action_frame_names(obj, origins, [entry.name for entry in table])
    own = {item.action.name for item in obj.classic_model.animations if item.action is not None}
    return [table[m].name if m >= 0 and origin.action in own else name
            for name, m, origin in zip(names, match, origins)]
