"""The frame plan of a vertex-animation export: which frames are written, at which scene times, from
where (the timeline, a shape key or an action) and under which names, decided once by
:func:`plan_frames` before a single frame is sampled and handed to the samplers, the still-model and
own-span cuts, the namer and the report. Format-neutral: MD2 and MDL use it today, MD3 and MD5 next.

* *Timeline*: ``frame_start`` to ``frame_end`` every scene frame, or every 0.1 s at *Frame Rate: Game*
  (:mod:`.frame_rate`), plus the end pose where the game rate passes the last frame by and a mesh is
  in another pose there (:func:`_end_pose`, the only decision that evaluates the scene). An MD2 or
  MDL imported at the scene's rate (``importers/scene_timing``: file frame k at ``start + k * fps / 10``)
  is found back there: the game-rate steps are the times the import gave its frames.
  At a model's own rate (``own_fps``: an imported MD5 anim's ``frameRate``, ``exporters/md5/anim_files``)
  every ``scene fps / own_fps`` scene frames, written at that rate; an action's frames then end on its
  last key, a subframe where the import placed it on one.
* *Shape Keys*: one frame per shape key after Basis of the first mesh (one frame without keys).
* *Actions* (or a timeline export of a model imported with one action per animation): the listed
  actions in order, each over its own frame range (:func:`.action_sampling.action_frames`).

Names known from the plan: ``<marker><nn>`` on the timeline (the last marker at or before the frame,
nn counting exported frames from it), ``<action><nn>`` for actions (:func:`.action_sampling.action_frame_names`).
Sampling may still replace them with a frame-table or shape-key name (:func:`.animated_mesh.exported_frames`).

The imports whose frames are the file's own (never cut to one still frame) are the table's rows with
``named_frames`` (:func:`frame_formats`).
"""
from __future__ import annotations

import math
from bisect import bisect_right
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

import bpy

from ...common.frame_table import frame_table, table_owner
from ...formats import table
from ...formats.errors import FormatError
from ..export_error import ExportError
from .action_sampling import (
    action_frame_names,
    action_frames,
    ended_actions,
    find_actions,
    order_actions,
    standard_rule,
)
from .frame_rate import (
    GAME_RATE,
    end_pose_report,
    frames_between,
    own_rate_report,
    rate_report,
    scene_fps,
    spacing,
    timeline_frames,
)
from .frame_sampling import sample_timeline, world_matrices
from .mesh_topology import Topology
from .options import FrameExportOptions

_SAME_POSE = 1e-6          # Blender units: an end pose this close to the first is the same pose
TIMELINE, SHAPE_KEY, ACTION = "TIMELINE", "SHAPE_KEY", "ACTION"


def frame_formats() -> set[str]:
    """The source formats whose imports' frames are the file's own (the table's ``named_frames``): written
    back as they were, never cut to one still frame."""
    return {row.source_format for row in table.FORMATS if row.named_frames}


@dataclass(frozen=True)
class PlannedFrame:
    """One exported frame as planned."""
    source: str                  # TIMELINE, SHAPE_KEY or ACTION
    time: int | float            # the scene frame sampled (a subframe at the game rate); SHAPE_KEY: its place
    action: str = ""             # ACTION: the action's name
    index: int = 0               # ACTION: place among the action's frames; SHAPE_KEY: the key block index
    name: str = ""               # the planned name (the marker's or the action's)
    marker: str = ""             # TIMELINE/SHAPE_KEY: the marker naming it ("frame" before any)
    number: int = 0              # TIMELINE/SHAPE_KEY: its number after the marker, before end-pose renumbering


@dataclass(frozen=True)
class PlannedAction:
    action: bpy.types.Action
    target: bpy.types.ID         # the ID it plays on
    frames: list                 # the action (scene) frames sampled


@dataclass
class FramePlan:
    """Every decision about the exported frames (see the module docstring)."""
    source: str                  # "TIMELINE", "SHAPE_KEYS" or "ACTIONS" (as sampled)
    requested: str               # the Frames option as set (an imported model's timeline may play actions)
    rate: str                    # "GAME" or "SCENE"
    step: int
    scene_fps: float
    every: float                 # scene frames between two exported frames
    start: int                   # the scene range
    end: int
    offset: int                  # scene frame of the first object's file frame 0 (frame_start if made in Blender)
    frames: list[PlannedFrame]
    actions: list[PlannedAction] | None = None
    end_pose: list[str] = field(default_factory=list)   # the animations that gained their end pose as a frame
    may_be_still: bool = False   # a model that does not move may be written as one frame (:mod:`.still_frames`)
    own_span: bool = False       # the frames may shrink to an imported model's own (a player's weapons)
    names_known: bool = False    # the planned names are final (no frame table, no shape key to rename them)
    name_problem: str = ""       # ACTIONS: names over the limit, refused once the frames are sampled
    own_fps: float | None = None  # the model's own rate the frames were sampled at (options.own_fps), else None

    @property
    def times(self) -> list:
        return [f.time for f in self.frames]

    @property
    def model_fps(self) -> float:
        """Model frames per second of game time: the model's own rate where sampled at it, the scene's rate
        when every scene frame is a model frame."""
        if self.own_fps is not None and self.source != "SHAPE_KEYS":
            return self.own_fps
        return model_rate(self.scene_fps, self.source, self.rate)

    @property
    def names(self) -> list[str] | None:
        """The frame names, where known before sampling."""
        return [f.name for f in self.frames] if self.names_known else None

    def rate_lines(self, sampled: int) -> list[str]:
        """The report's line on the rate ``sampled`` frames were taken at (none for shape keys)."""
        if self.source == "SHAPE_KEYS":
            return []
        if self.own_fps is not None:
            return [own_rate_report(self.own_fps, self.scene_fps, sampled)]
        return [rate_report(self.scene_fps, self.rate, sampled)]

    def report(self, sampled: int, rate: bool = True) -> list[str]:
        """The report lines on the rate (``sampled`` frames; without it when not ``rate``) and the end poses."""
        return (self.rate_lines(sampled) if rate else []) + ([end_pose_report(self.end_pose)] if self.end_pose else [])


def model_rate(fps: float, source: str, rate: str) -> float:
    """Model frames per second: 10 at the game's rate (and for shape keys), else the scene's ``fps``."""
    return fps if source != "SHAPE_KEYS" and rate == "SCENE" else GAME_RATE


def imported_as_actions(obj: bpy.types.Object, options: FrameExportOptions) -> bool:
    """True for a timeline export of a model imported with one action per animation: its frames are
    the actions' frames (the import's list order), so an untouched model writes the file it came from."""
    return options.frame_source == "TIMELINE" and obj.classic_model.animation_mode == "ACTIONS"


def plan_frames(context: bpy.types.Context, meshes: list[bpy.types.Object], topologies: list[Topology],
                options: FrameExportOptions, check: Callable[[FramePlan], None] | None = None,
                found: dict | None = None) -> FramePlan:
    """The frame plan of exporting ``meshes`` (with their ``topologies``) with ``options``. ``check``
    sees the plan before any frame is evaluated (and again when the timeline's end pose, which takes
    three evaluated frames to decide, adds a frame) and raises to refuse it. ``found``: see
    :func:`export_actions` (several plans of one export)."""
    check = check or (lambda plan: None)
    scene = context.scene
    first = meshes[0]
    owner = table_owner(first).classic_model          # an MD3 surface's import settings are on its model root
    by_actions = options.frame_source == "ACTIONS" or imported_as_actions(first, options)
    source = "ACTIONS" if by_actions else options.frame_source
    own = options.own_fps
    every = scene_fps(scene) / own if own else spacing(scene, options.frame_rate)
    start = scene.frame_start
    plan = FramePlan(source, options.frame_source, options.frame_rate, options.step, scene_fps(scene), every,
                     start, scene.frame_end, owner.frame_offset if owner.source_format
                     else start, [], own_fps=own or None)
    if by_actions:
        plan.actions = [PlannedAction(a, t, action_frames(a, options.step, every, t, bool(own)))
                        for a, t in export_actions(meshes, options, found)]
        plan.end_pose = ended_actions([(a.action, a.target) for a in plan.actions], options.step, every, bool(own))
        plan.frames, plan.name_problem = _action_frames(first, plan.actions)
        check(plan)
        return plan
    markers = sorted((m.frame, m.name) for m in scene.timeline_markers)
    if source == "SHAPE_KEYS":
        key = first.data.shape_keys
        count = max(1, len(key.key_blocks) - 1) if key is not None else 1
        plan.frames = _named(markers, start, [(SHAPE_KEY, start + i, i + 1) for i in range(count)], 1.0)
        check(plan)
        return plan
    has_table = bool(frame_table(first))
    plan.names_known = not has_table and all(getattr(m.data, "shape_keys", None) is None for m in meshes)
    plan.own_span = has_table and first.data.shape_keys is not None and bool(owner.source_format)
    times = frames_between(start, scene.frame_end, every) if own else timeline_frames(scene, options.frame_rate)
    plan.frames = _named(markers, start, [(TIMELINE, t, 0) for t in times], every)
    check(plan)
    times, plan.end_pose = _end_pose(context, meshes, topologies, times, options.apply_transform)
    if plan.end_pose:
        plan.frames = _named(markers, start, [(TIMELINE, t, 0) for t in times], every)
        check(plan)
    plan.may_be_still = (not options.keep_still_frames and len(times) >= 2
                         and not any(m.classic_model.source_format in frame_formats() for m in meshes)
                         and not any(carries_animation(m) for m in meshes))
    return plan


def _animates(id_block) -> bool:
    anim = getattr(id_block, "animation_data", None) if id_block is not None else None
    return anim is not None and bool(anim.action or len(anim.drivers) or len(anim.nla_tracks))


def carries_animation(obj: bpy.types.Object) -> bool:
    """True if anything may move ``obj`` over time: an action, NLA track or driver on the object, its
    parents, its mesh or shape keys, or an object a modifier follows (the armature); or a constraint."""
    chain = []
    parent = obj
    while parent is not None:
        chain.append(parent)
        parent = parent.parent
    followed = [getattr(m, "object", None) for m in obj.modifiers]
    data = obj.data
    keys = getattr(data, "shape_keys", None)
    return any(_animates(x) for x in chain + followed + [data, keys]) or bool(obj.constraints)


def export_actions(meshes: list[bpy.types.Object], options: FrameExportOptions, found: dict | None = None) -> list:
    """The (action, target) pairs an Actions export samples, in ``options.actions`` order (else the default;
    actions named after Quake II's player animations in the game's order, see ``standard_rule``).
    ``found``: the actions found already for these meshes (an export of several files fills it once)."""
    imported = imported_as_actions(meshes[0], options)     # the import's order: written back as it was
    standard = "" if imported else standard_rule(meshes, options.standard_order)
    if found is None or standard not in found:
        pairs = find_actions(meshes, standard)
        if found is not None:
            found[standard] = pairs
    by_name = {action.name: (action, target) for action, target in (pairs if found is None else found[standard])}
    return [by_name[n] for n in order_actions(list(by_name), None if imported else options.actions, standard)]


def _action_frames(obj: bpy.types.Object, actions: list[PlannedAction]) -> tuple[list[PlannedFrame], str]:
    """Every action's frames in order, named after the action (:func:`.action_sampling.action_frame_names`),
    and the refusal of names over the limit ('' if none)."""
    frames = [PlannedFrame(ACTION, time, a.action.name, j) for a in actions for j, time in enumerate(a.frames)]
    names, problem = action_frame_names(obj, frames, [entry.name for entry in frame_table(obj)])
    return [PlannedFrame(ACTION, f.time, f.action, f.index, name) for f, name in zip(frames, names)], problem


def _named(markers: list[tuple[int, str]], start: int, frames: list[tuple], step: float) -> list[PlannedFrame]:
    """Timeline or shape-key frames named ``<marker><nn>``: the last marker at or before the frame, nn
    counting ``step`` scene frames from the marker; an end pose closer than a step gets the next number."""
    out, previous = [], ("", 0)
    marker_frames = [frame for frame, _ in markers]     # sorted: the markers at or before a time are a prefix
    for source, time, index in frames:
        before = bisect_right(marker_frames, time + 1e-6)
        base, first = (markers[before - 1][1], markers[before - 1][0]) if before else ("frame", start)
        number = int(math.floor((time - first) / step + 1e-6)) + 1
        shown = previous[1] + 1 if previous[0] == base and number <= previous[1] else number
        previous = base, shown
        out.append(PlannedFrame(source, time, "", index, f"{base}{shown:02d}", base, number))
    return out


def _end_pose(context, meshes: list[bpy.types.Object], topologies: list[Topology], frames: list,
              world: bool) -> tuple[list, list[str]]:
    """The timeline ``frames`` plus the range's last frame where the game rate passes it by and a mesh
    is in another pose there than at the first frame (a cycle that ends where it starts keeps its
    frames) and than at the last frame sampled (a model whose last key the steps reached, as one
    imported into a 24 fps scene, ends there); with the animation that gained it (the last marker's
    name, else the frame range)."""
    scene = context.scene
    first, last = scene.frame_start, scene.frame_end
    if abs(frames[-1] - last) < 1e-6:
        return frames, []
    if not any(_moved(context, obj, topology, [first, frames[-1], last], world)
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
        matrices = world_matrices(context, obj, frames)
        positions = positions @ np.swapaxes(matrices[:, :3, :3], 1, 2) + matrices[:, None, :3, 3]
    return not any(np.allclose(positions[i], positions[-1], rtol=0.0, atol=_SAME_POSE)
                   for i in range(len(frames) - 1))
