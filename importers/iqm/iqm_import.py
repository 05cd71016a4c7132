"""IQM -> Blender, as the contract's ``# IQM`` block says (all or nothing).

What an import creates:

* An armature object named after the file (the model's root): a bone per joint at its bind pose, parented
  as the joints are (:mod:`.iqm_rig`); a file of anims alone (poses and frames, no joints: Red Eclipse
  keeps its player's anims so) gets a bone per pose at its first frame, named ``pose<n>``. The root keeps
  the file's bytes, its name, the ``.iqm.framegroups`` used and a digest of what the import built
  (``common/iqm/digest.py``) for the export's write-back.
* One mesh object per IQM mesh (:mod:`.iqm_meshes`), parented to the root with an Armature modifier,
  named after the mesh (with *Merge Meshes*, one object ``<file>_meshes`` for all of them, mesh s in
  material slot s, as MD3's *Merge Surfaces*), with the material of the mesh's material name showing
  the image of that name found beside the model (``importers/shader_images.py``: its extensions in
  FTE's then ioquake3's order; in an archive, under the model's folder), else the name as a game path
  or under ``textures/`` of the game folder (and its archives).
* One action per anim (its name, loop flag, and rate and frames as every skeletal import keeps them:
  ``common/contract.py`` ANIM_FRAME_RATE, ANIM_FRAME_COUNT), every bone keyed at every frame, anim
  frame k at scene frame ``start + k × step`` (``step`` 1 at the anim's rate, else the scene's rate
  over it: :mod:`..scene_timing`); with *Frame Groups* and a ``<file>.framegroups`` beside the model,
  one per group instead, as DarkPlaces plays them (``formats/iqm/framegroups.py``). The first is active;
  with several, the sidebar's animation list switches between them (each kept with a fake user). An
  anim rate Blender's scene cannot play (Red Eclipse writes 0: the game's own) is played at 24 fps.
"""
from __future__ import annotations

import math
import uuid
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

import numpy as np

import bpy

from ...common.actions import assign_action
from ...common.contract import ANIM_FRAME_COUNT, ANIM_FRAME_RATE, DEFAULT_FPS, MAX_FPS, MIN_FPS
from ...common.iqm.contract import (
    IQM_ANIM_FRAMES,
    IQM_ANIM_INDEX,
    IQM_ANIM_LOOP,
    IQM_DIGEST,
    IQM_FILE,
    IQM_FRAMEGROUPS,
    IQM_IMPORT_ID,
    IQM_SOURCE,
    UNNAMED_MATERIAL,
)
from ...common.iqm.digest import scene_digest
from ...common.quaternions import continuous
from ...formats.errors import FormatError
from ...formats.iqm.animation import bind_pose, frame_poses
from ...formats.iqm.codec import read_iqm
from ...formats.iqm.framegroups import SUFFIX, parse_framegroups
from ...formats.iqm.records import LOOP, POSITION, IqmModel
from ..armature_bones import local_rests
from ..file_source import ModelSource, as_source, remember_source
from ..frame_animation import list_actions
from ..results import ImportResult
from ..scene_timing import apply_timing, plan_timing, timing_note
from ..shader_images import shader_materials
from .iqm_meshes import decoded_arrays, mesh_object
from .iqm_rig import animate, build_armature, local_matrices, pose_channels, without_scale, world_matrices

MAX_COORDINATE = 1e30                     # beyond it float32 arithmetic (bone matrices, lengths) overflows
MAX_POSES = 1 << 20                       # frames x poses keyed at most (100 joints over 10000 frames); the
                                          # codec takes 4 times more, which Blender would key for minutes
BLOCK = 4096                              # frames worked out at once (memory: about 1 KB a pose)


@dataclass
class IqmImportOptions:
    scene_timing: str = "AUTO"            # 'AUTO', 'SET' or 'KEEP' (scene_timing.py)
    framegroups: bool = True              # the .iqm.framegroups beside the model names the actions
    merge_meshes: bool = False            # one mesh object for all the file's meshes (a material slot each)
    exclude: tuple[str, ...] = field(default=())


@dataclass
class Clip:
    """One action to make: ``count`` file frames from ``first``, its name, rate, loop flag and anim index."""
    name: str
    first: int
    count: int
    rate: float
    loop: bool
    anim: int                             # -1: a frame group


def _read(source: ModelSource) -> tuple[bytes, IqmModel]:
    data = source.read()
    try:
        return data, read_iqm(data)
    except FormatError as exc:
        raise exc.with_filename(source.where) from None


def _refuse_unheld(where: str, what: str, arrays: list[np.ndarray]) -> None:
    """Refuse numbers Blender cannot hold (past float32's range once multiplied) before anything is built."""
    bad = sum(int((~np.isfinite(np.asarray(a, np.float64)) | (np.abs(np.nan_to_num(a)) > MAX_COORDINATE)).sum())
              for a in arrays)
    if bad:
        raise FormatError(f"{bad} number(s) of its {what} are beyond {MAX_COORDINATE:.0e} (or not finite), more than "
                          "Blender can hold: nothing was imported", filename=where)


def _skeleton(model: IqmModel) -> tuple[list[str], np.ndarray, np.ndarray]:
    """Bone names, parents and bind matrices (J, 4, 4): the joints', else (anims alone) the poses' at
    their first frame."""
    if len(model.joints):
        parents, translate, rotate, scale = bind_pose(model)
        return model.joint_names, parents, world_matrices(local_matrices(translate, rotate, scale), parents)
    parents = model.poses["parent"].astype(np.int64)
    if model.num_frames:
        translate, rotate, scale = (values[0] for values in frame_poses(model))
        bind = world_matrices(local_matrices(translate, rotate, scale), parents)
    else:
        bind = np.repeat(np.eye(4)[None], len(parents), axis=0)
    return [f"pose{p}" for p in range(len(parents))], parents, bind


def _clips(source: ModelSource, model: IqmModel, options: IqmImportOptions, result: ImportResult,
           root: bpy.types.Object | None = None) -> tuple[list[Clip], bytes | None]:
    """The actions to make: the framegroups' groups when asked and found, else the file's anims."""
    groups_data = None
    if options.framegroups and model.num_frames:
        found = source.texture(source.name + SUFFIX)
        if found is not None:
            try:
                groups_data = found.read()
            except OSError as exc:
                result.warnings.append(f"{found.where}: could not be read ({exc.strerror or exc}): the anims are "
                                       "imported instead")
    if groups_data is not None:
        groups, warnings = parse_framegroups(groups_data, model.num_frames)
        result.warnings += [f"{source.label}{SUFFIX}: {w}" for w in warnings]
        if groups:
            result.infos.append(f"{source.label}: {len(groups)} animation(s) from {source.name}{SUFFIX}, as DarkPlaces "
                                "plays them")
            return [Clip(g.name, g.first, g.count, g.fps, g.loop, -1) for g in groups], groups_data
    clips = []
    for index, anim in enumerate(model.anims):
        name = model.text_at(int(anim["name"])) or f"anim{index}"
        clips.append(Clip(name, int(anim["first_frame"]), int(anim["num_frames"]), float(anim["framerate"]),
                          bool(int(anim["flags"]) & LOOP), index))
    return [c for c in clips if c.count], None


def _rate(clip: Clip, label: str, warnings: list[str]) -> float:
    if math.isfinite(clip.rate) and MIN_FPS <= clip.rate <= MAX_FPS:
        return clip.rate
    warnings.append(f"{label}: anim {clip.name} has frame rate {clip.rate:g}: played at {DEFAULT_FPS:g} fps")
    return DEFAULT_FPS


def import_iqm(context: bpy.types.Context, path: Path | ModelSource, options: IqmImportOptions) -> ImportResult:
    """Read ``path`` (an ``.iqm``, loose or an archive member) and build it in the active collection
    (module docstring)."""
    source = as_source(path)
    data, model = _read(source)
    if model.num_frames * max(len(model.poses), 1) > MAX_POSES:
        raise FormatError(f"{model.num_frames} frames of {len(model.poses)} poses are more than the {MAX_POSES} poses "
                          "this import keys (Blender would take minutes): nothing was imported", filename=source.where)
    result = ImportResult(warnings=[f"{source.label}: {w}" for w in model.warnings])
    names, parents, bind = _skeleton(model)
    clips, groups_data = _clips(source, model, options, result)
    animated = bool(clips) and len(model.poses) == len(names)
    if clips and not animated:
        result.warnings.append(f"{source.label}: {len(model.poses)} poses for {len(names)} joints: the anims are not "
                               "imported")
        clips = []
    channels = frame_poses(model) if animated else None
    if channels is not None:
        for first in range(0, model.num_frames, BLOCK):
            _refuse_unheld(source.where, "frames", [_world(channels, parents, first, BLOCK)])
    arrays = decoded_arrays(model)
    positions = arrays[POSITION]
    _refuse_unheld(source.where, "joints or vertices", [bind] + ([positions] if positions is not None else []))
    scene = context.scene
    collection = context.view_layer.active_layer_collection.collection
    timing = plan_timing(scene, options.scene_timing)
    if context.mode != "OBJECT" and bpy.ops.object.mode_set.poll():
        bpy.ops.object.mode_set(mode="OBJECT")
    rests = without_scale(bind)
    points = [rests[:, :3, 3]] + ([positions[:, :3]] if positions is not None and positions.size else [])
    extent = np.concatenate([p.reshape(-1, 3).astype(np.float64) for p in points] + [np.zeros((1, 3))])
    size = float(np.linalg.norm(extent.max(axis=0) - extent.min(axis=0))) or 1.0
    stem = PurePosixPath(source.name).stem
    root, bone_names = build_armature(context, stem, names, parents, rests, collection, size)
    materials = shader_materials(source, [model.text_at(int(m["material"])) for m in model.meshes], source.label,
                                 result.warnings, result.infos, unnamed=UNNAMED_MATERIAL,
                                 game_folder=True)
    blocks = []
    groups = [list(range(len(model.meshes)))] if options.merge_meshes and len(model.meshes) > 1 \
        else [[index] for index in range(len(model.meshes))]
    for group in groups:
        name = f"{stem}_meshes" if len(group) > 1 else model.text_at(int(model.meshes[group[0]]["name"])) or \
            f"{stem}_{group[0]}"
        obj = mesh_object(model, arrays, group, [f"{source.label} mesh {index}" for index in group], name,
                          [materials[index] for index in group], bone_names, result.warnings)
        collection.objects.link(obj)
        obj.parent = root
        obj.modifiers.new("Armature", "ARMATURE").object = root
        blocks.append(obj)
    root[IQM_SOURCE] = data
    root[IQM_FILE] = source.member or source.name
    root[IQM_IMPORT_ID] = uuid.uuid4().hex
    if groups_data is not None:
        root[IQM_FRAMEGROUPS] = groups_data
    root.classic_model.source_format = "IQM"
    if clips and channels is not None:
        _animate(context, root, bone_names, clips, channels, bind, rests, parents, timing, source, result)
    for obj in [root, *blocks]:
        remember_source(obj, source)
    root[IQM_DIGEST] = scene_digest(root)
    result.objects.extend(blocks + [root])
    return result


def _world(channels: tuple[np.ndarray, np.ndarray, np.ndarray], parents: np.ndarray, first: int, count: int
           ) -> np.ndarray:
    """(F, J, 4, 4) the poses' world matrices of ``count`` frames from ``first`` (:func:`.iqm_rig.world_matrices`)."""
    with np.errstate(all="ignore"):
        return world_matrices(local_matrices(*(c[first:first + count] for c in channels)), parents)


def _clip_channels(channels, clip: Clip, bind: np.ndarray, rests: np.ndarray, local_rest: np.ndarray,
                   parents: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`.iqm_rig.pose_channels` of the clip's frames, worked out :data:`BLOCK` frames at a time."""
    parts = []
    for first in range(clip.first, clip.first + clip.count, BLOCK):
        count = min(BLOCK, clip.first + clip.count - first)
        parts.append(pose_channels(_world(channels, parents, first, count), bind, rests, local_rest, parents))
    locations, quaternions, sizes = (np.concatenate(values) for values in zip(*parts))
    return locations, continuous(quaternions), sizes


def _animate(context, root, bone_names: list[str], clips: list[Clip], channels, bind: np.ndarray,
             rests: np.ndarray, parents: np.ndarray, timing, source: ModelSource, result: ImportResult) -> None:
    """One action per clip (the first active); the scene's rate and range; the animation list."""
    scene = context.scene
    start = scene.frame_start
    rates = [_rate(clip, source.label, result.warnings) for clip in clips]
    scene_rate = timing.fps(rates[0])
    settings = root.classic_model
    settings.frame_offset = start
    local_rest = local_rests(root, bone_names)
    actions = []
    for clip, rate in zip(clips, rates):
        step = scene_rate / rate
        keyed = _clip_channels(channels, clip, bind, rests, local_rest, parents)
        action = animate(root, bone_names, clip.name, start + np.arange(clip.count) * step, keyed)
        action[IQM_ANIM_INDEX] = clip.anim
        action[IQM_ANIM_FRAMES] = (clip.first, clip.count)
        action[ANIM_FRAME_RATE] = clip.rate
        action[ANIM_FRAME_COUNT] = clip.count
        action[IQM_ANIM_LOOP] = int(clip.loop)
        action[IQM_IMPORT_ID] = root[IQM_IMPORT_ID]
        actions.append((action, clip.count, step))
    for action, _, _ in actions:
        action.use_fake_user = len(actions) > 1
    first_action, first_frames, first_step = actions[0]
    assign_action(root, first_action)
    apply_timing(scene, timing, start, start + (max(first_frames, 1) - 1) * first_step, rates[0])
    if note := timing_note(source.label, timing, rates[0]):
        result.infos.append(note)
    list_actions(settings, actions, start)
