"""MD5 (``.md5mesh`` + ``.md5anim``) -> Blender, as the contract's ``# MD5`` block says (all or nothing).

What an import creates:

* An armature object named after the file (the model's root): a bone per joint at the joint's bind
  matrix (:mod:`.md5_rig`, :mod:`...common.md5.pose`), ``["md5_mesh_source"]`` the file's bytes,
  ``["md5_mesh_file"]`` its name, ``["md5_classic"]`` the paired classic model (:mod:`.classic_pair`).
* One mesh object per ``mesh`` block, parented to it with an Armature modifier: vertex i is the
  block's vertex i at its bind position (the weights skinned with the mesh's joints, Q2PRO
  ``MD5_ComputeNormals``), one vertex group per joint (named as its bone) with the vertex's biases,
  UV ``(u, 1 - v)`` (MD5's v runs down the image), polygon i triangle i with its corners reversed: MD5
  triangles are clockwise seen from the front, as the engines draw them (Q2PRO ``MD5_ComputeNormals``
  takes ``(v2 - v0) × (v1 - v0)`` as the outward normal; the corpus's closed props all face out that
  way), Blender's faces counter-clockwise. Triangles that use a vertex twice have no face and are
  kept in ``mesh["md5_degenerate"]``. ``["md5_mesh_index"]`` is the block's index.
* One action per ``.md5anim`` (:mod:`.md5_files` says which): every bone keyed at every frame, anim
  frame k at scene frame ``start + k × step`` where ``step`` is 1 at the anim's ``frameRate`` or the
  scene's rate over it (:mod:`..scene_timing`). The first anim's action is active; with several, the
  sidebar's animation list holds one entry per action (each kept with a fake user). The action keeps
  ``["md5_anim_source"]`` and ``["md5_anim_file"]``, and the ``frameRate`` and frames it holds as every
  skeletal import keeps them (``common/contract.py`` ANIM_FRAME_RATE, ANIM_FRAME_COUNT). With the paired classic model and *Animations:
  Actions* the first anim is split into one action per classic animation (:mod:`.classic_pair`), each
  from the scene's first frame, listed in the sidebar; each also keeps ``["md5_anim_frames"]``, the
  anim frames it holds, so that the split actions exported in order write the file back.
* Materials: the paired classic model's skins, else one per shader showing the image of its name beside
  the model (:mod:`..shader_images`).
* An ``.md5anim`` imported alone goes onto the mesh beside it whose joints are its own, else (or with
  *Anim Alone: Own Skeleton*) onto an armature of its own hierarchy at its base frame, named after the anim,
  with no mesh and no ``["md5_mesh_source"]`` (:mod:`.anim_mesh`).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

import numpy as np

import bpy

from ...common.actions import assign_action
from ...common.contract import ANIM_FRAME_COUNT, ANIM_FRAME_RATE, DEFAULT_FPS, DEGENERATE_MD3, MAX_FPS, MIN_FPS
from ...common.generated_names import mark_made
from ...common.md5.contract import (
    MD5_ANIM_FILE,
    MD5_ANIM_FRAMES,
    MD5_ANIM_SOURCE,
    MD5_CLASSIC,
    MD5_DEGENERATE,
    MD5_MESH_FILE,
    MD5_MESH_INDEX,
    MD5_MESH_KEYS,
    MD5_MESH_SOURCE,
)
from ...common.md5.keys import mesh_digest, mesh_record, rig_digest
from ...common.md5.pose import weight_spread
from ...formats.errors import FormatError
from ...formats.md5.anim import read_md5anim
from ...formats.md5.limits import MAX_WEIGHTS_PER_VERTEX, first_unheld_line, pair_problems
from ...formats.md5.mesh import read_md5mesh
from ...formats.md5.scale import read_md5scale
from ...formats.md5.skinning import bind_joints, frames_joints, skin_vertices
from ...formats.report_lines import Message
from ..build_mesh import build_triangle_mesh, faced_triangles
from ..file_source import FoundFile, ModelSource, as_source, loose_file, remember_source
from ..frame_animation import list_actions
from ..results import ImportResult
from ..scene_timing import apply_timing, plan_timing, timing_note
from ..shader_images import shader_materials
from .anim_mesh import AnimMesh, mesh_of_anim, skeleton_of
from .classic_pair import ClassicPair, find_pair
from .md5_files import ANIM_SUFFIX, anim_files, loose_or_member, scale_file
from .md5_rig import animate, assign_weights, build_armature, local_rests, poses_channels, vertex_weights

SPREAD_TOLERANCE = 1e-3                   # units a weight's bind position may lie off its vertex
MAX_COORDINATE = 1e30                     # beyond it float32 arithmetic (bone matrices, lengths) overflows


@dataclass
class Md5ImportOptions:
    scene_timing: str = "AUTO"            # 'AUTO', 'SET' or 'KEEP' (scene_timing.py)
    find_anims: str = "STEM"              # 'STEM', 'FOLDER' or 'NONE' (md5_files.py)
    anim_files: tuple[str, ...] = ()      # .md5anim files chosen with the mesh (taken whatever find_anims says)
    anim_mesh: str = "MESH"               # an anim alone: 'MESH' onto the mesh beside it, 'SKELETON' its own
    load_skins: bool = True               # the paired classic model's skins (classic_pair.py)
    animations: str = "TIMELINE"          # 'ACTIONS': the anim split into the classic model's animations
    exclude: tuple[str, ...] = field(default=())


def _read(found, reader) -> tuple[bytes, object]:
    """The file's bytes and what ``reader`` makes of them; a refusal names the file."""
    data = found.read()
    try:
        return data, reader(data)
    except FormatError as exc:
        raise exc.with_filename(found.where)


def anim_rate(anim, label: str, warnings: list[str]) -> float:
    """The anim's ``frameRate`` where Blender's scene can play it, else 24 with a warning."""
    rate = float(anim.frame_rate)
    if math.isfinite(rate) and MIN_FPS <= rate <= MAX_FPS:
        return rate
    warnings.append(f"{label}: frameRate is {rate:g}: played at {DEFAULT_FPS:g} fps")
    return DEFAULT_FPS


@dataclass
class LoadedAnim:
    """An anim read for the import: its file and bytes, the anim, its ``.md5scale`` (None without one or
    when it scales nothing) and its joints' world poses of every frame (``frame_joints``: checked, then keyed)."""
    file: FoundFile
    data: bytes
    anim: object
    scale: object
    joints: tuple[np.ndarray, np.ndarray] | None     # None until every anim is posed (_posed)


def _anims(source: ModelSource, mesh, options: Md5ImportOptions, result: ImportResult,
           alone: FoundFile | None = None) -> list[LoadedAnim]:
    """The anims to import, read, each paired with the mesh (a pair the engines refuse is left out)."""
    found = [alone] if alone is not None else anim_files(source, options.find_anims)
    seen = {f.where for f in found}
    for name in options.anim_files:
        extra = loose_file(Path(name))
        if extra.where not in seen:
            found.append(extra)
            seen.add(extra.where)
    out, listings = [], {}
    for file in found:
        try:
            data, anim = _read(file, read_md5anim)
        except Exception:
            _posed(out)                          # an earlier anim's poses refused first, as one by one
            raise
        result.warnings += [f"{file.where}: {w}" for w in anim.warnings]
        problems = pair_problems(mesh, anim)
        if problems:
            result.warnings += [Message(f"{file.where}: not imported with {source.label}: {p}",
                                        f"{source.label}: {{n}} anim{{s}} not imported: their joints are not the "
                                        "mesh's", file.name) for p in problems]
            continue
        try:
            scale = _scale(source, file, anim, result, listings)
        except Exception:
            _posed(out)
            raise
        out.append(LoadedAnim(file, data, anim, scale, None))
    return _posed(out)


def _posed(loaded: list[LoadedAnim]) -> list[LoadedAnim]:
    """Every anim's joint poses (``frames_joints``: all anims' frames together), checked one anim after another."""
    with np.errstate(all="ignore"):
        for item, joints in zip(loaded, frames_joints([i.anim for i in loaded], [i.scale for i in loaded])):
            _refuse_unheld(item.file.where, "joint poses", list(joints), item.anim.source)       # checked here, keyed by _animate
            if item.scale is not None:
                _refuse_unheld(item.file.where, "joint scales", [item.scale.scales])
            item.joints = joints
    return loaded


def _scale(source: ModelSource, file: FoundFile, anim, result: ImportResult,
           listings: dict[str, dict[str, FoundFile]] | None = None):
    """The anim's ``.md5scale`` read (None without one, or when it scales nothing); ``listings``: as
    :func:`.md5_files.scale_file`."""
    found = scale_file(source, file, listings)
    if found is None:
        return None
    try:
        data = found.read()
    except OSError as exc:
        result.warnings.append(f"{found.where}: could not be read ({exc}): the anim plays without its scales")
        return None
    scale = read_md5scale(data, list(anim.joint_names), anim.num_frames)
    result.warnings += [f"{found.where}: {w}" for w in scale.warnings]
    if scale.is_identity:
        return None
    result.infos.append(f"{file.where}: joint scales from {found.name} applied as Q2PRO applies them")
    return scale


def _refuse_unheld(where: str, what: str, arrays: list[np.ndarray], source=None) -> None:
    """Refuse numbers Blender cannot hold (not a number, or past float32's range) before anything is built,
    with the line of the first such number in the file (``source``, the text read) when one is there."""
    bad = sum(int((~np.isfinite(np.asarray(a, np.float64)) | (np.abs(np.nan_to_num(a)) > MAX_COORDINATE)).sum())
              for a in arrays)
    if bad:
        line = first_unheld_line(source, MAX_COORDINATE)
        numbers = f"{bad} numbers of its {what} are" if bad > 1 else f"a number of its {what} is"
        at = f" (the first from line {line})" if line is not None else ""
        raise FormatError(f"{numbers} not finite (nan or inf) or beyond {MAX_COORDINATE:.0e}, more than Blender can "
                          f"hold{at}: nothing was imported; write smaller numbers there", filename=where)


def _model_size(points: list[np.ndarray]) -> float:
    points = np.concatenate([p.reshape(-1, 3) for p in points] + [np.zeros((1, 3))])
    return float(np.linalg.norm(points.max(axis=0) - points.min(axis=0))) or 1.0


def _block_object(source: ModelSource, mesh, m: int, positions: np.ndarray, materials: list, result: ImportResult
                  ) -> bpy.types.Object:
    part = mesh.meshes[m]
    label = f"{source.label} mesh {m}"
    keep = faced_triangles(label, part.triangles, result.warnings)
    corners = part.triangles[keep][:, ::-1]
    uv = np.column_stack([part.uv[:, 0], 1.0 - part.uv[:, 1]])
    shader = PurePosixPath((part.shader or "").replace("\\", "/")).name
    name = shader or f"{source.stem}_{m}"
    data = build_triangle_mesh(name, positions, corners, uv[corners.ravel()])
    if not keep.all():
        kept = np.zeros(int((~keep).sum()), DEGENERATE_MD3)
        kept["index"], kept["indexes"] = np.flatnonzero(~keep), part.triangles[~keep]
        data[MD5_DEGENERATE] = kept.tobytes()
    for material in materials:               # the first is the one the faces show (material index 0)
        if material is not None:
            data.materials.append(material)
    obj = bpy.data.objects.new(name, data)
    mark_made(obj)
    obj[MD5_MESH_INDEX] = m
    return obj


def _materials(source: ModelSource, mesh, pair: ClassicPair | None, result: ImportResult) -> list[list]:
    """The materials of each block: the paired model's skins where the layout gives them, else one per
    shader showing the image of its name beside the model (:mod:`..shader_images`)."""
    if pair is not None and pair.materials:
        return [pair.materials[min(m, len(pair.materials) - 1)] for m in range(len(mesh.meshes))]
    materials = shader_materials(source, [part.shader for part in mesh.meshes], source.label, result.warnings,
                                 result.infos, unnamed="md5")
    return [[material] for material in materials]


def import_md5(context: bpy.types.Context, path: Path | ModelSource, options: Md5ImportOptions) -> ImportResult:
    """Read ``path`` (an ``.md5mesh``, loose or an archive member) and its anims; build them in the active
    collection (module docstring)."""
    source = as_source(path)
    alone, notes, data = None, [], None
    if source.name.lower().endswith(ANIM_SUFFIX):         # an anim dropped or ticked alone (anim_mesh.py)
        alone = loose_or_member(source)
        _, anim = _read(alone, read_md5anim)
        found = mesh_of_anim(source, anim, options.exclude) if options.anim_mesh == "MESH" else AnimMesh()
        if found.taken:
            return ImportResult(files=0)                 # its mesh is imported too and takes it (Same Name)
        notes = [f"{source.label}: {n}" for n in found.notes]
        if found.mesh is None:
            mesh = skeleton_of(anim)
            notes.append(f"{source.label}: imported on its own skeleton (its hierarchy at its base frame), no mesh")
        else:
            source, data, mesh = found.source, found.data, found.mesh
    else:
        data, mesh = _read(source, read_md5mesh)
    result = ImportResult(warnings=[f"{source.label}: {w}" for w in mesh.warnings], infos=notes)
    anims = _anims(source, mesh, options, result, alone)
    scene = context.scene
    collection = context.view_layer.active_layer_collection.collection
    timing = plan_timing(scene, options.scene_timing)
    if context.mode != "OBJECT" and bpy.ops.object.mode_set.poll():
        bpy.ops.object.mode_set(mode="OBJECT")
    pair = find_pair(source, mesh, anims[0].anim if anims else None, options, result) if data is not None else None
    joint_pos, joint_quat = bind_joints(mesh)
    with np.errstate(all="ignore"):
        positions = [skin_vertices(part, joint_pos, joint_quat) for part in mesh.meshes]
    _refuse_unheld(source.where, "joints, vertices or texture coordinates",
                   [joint_pos, joint_quat, *positions, *(p.uv for p in mesh.meshes)], mesh.source)
    spread = sum(int((weight_spread(p, joint_pos, joint_quat, v) > SPREAD_TOLERANCE).sum())
                 for p, v in zip(mesh.meshes, positions))
    if spread:
        result.warnings.append(f"{source.label}: {spread} vertices have weights that place them apart in the bind "
                               "pose: Blender's Armature deform moves them differently from the engines")
    root, bone_names = build_armature(context, source.stem, mesh, collection, _model_size(positions + [joint_pos]))
    materials = _materials(source, mesh, pair, result)
    blocks = []
    for m in range(len(mesh.meshes)):
        obj = _block_object(source, mesh, m, positions[m], materials[m], result)
        collection.objects.link(obj)
        obj.parent = root
        assign_weights(obj, bone_names, mesh.meshes[m])
        obj.modifiers.new("Armature", "ARMATURE").object = root
        blocks.append(obj)
    if data is not None:                                 # else an anim's own skeleton: no mesh file
        root[MD5_MESH_SOURCE] = data
        root[MD5_MESH_FILE] = source.member or source.name
    root[MD5_CLASSIC] = pair.name if pair is not None else ""
    settings = root.classic_model
    settings.source_format = "MD5"
    _animate(context, root, bone_names, anims, timing, source, pair, options.animations == "ACTIONS", result)
    if data is not None:                                 # what an untouched export writes back unread
        counts = [np.asarray(part.weight_count) for part in mesh.meshes]
        root[MD5_MESH_KEYS] = mesh_record(data, mesh_digest(root, bone_names, blocks, MD5_MESH_INDEX, MD5_DEGENERATE),
                                          sum(int((c > MAX_WEIGHTS_PER_VERTEX).sum()) for c in counts),
                                          max((int(c.max()) for c in counts if len(c)), default=0),
                                          [[p.num_verts, len(p.triangles), len(p.weight_bias)] for p in mesh.meshes],
                                          _unweighted(mesh), _unused(mesh))
    for obj in [root, *blocks]:
        remember_source(obj, source)
    result.objects.extend(blocks + [root])
    return result


def _unweighted(mesh) -> int:
    """How many of the file's vertices hold no weight above 0 in their vertex groups (an export ties them to
    the first joint and says how many)."""
    count = 0
    for part in mesh.meshes:
        vertex, _, weight = vertex_weights(part, mesh.num_joints)
        count += part.num_verts - len(np.unique(vertex[weight > 0]))
    return count


def _unused(mesh) -> int:
    """How many of the file's vertices no face of the import uses (a triangle that repeats a vertex makes none)."""
    count = 0
    for part in mesh.meshes:
        triangles = np.asarray(part.triangles, np.int64).reshape(-1, 3)
        faced = triangles[(triangles[:, 0] != triangles[:, 1]) & (triangles[:, 1] != triangles[:, 2])
                          & (triangles[:, 0] != triangles[:, 2])]
        count += part.num_verts - len(np.unique(faced))
    return count


def _bone_parents(root, bone_names: list[str]) -> np.ndarray:
    """Each bone's parent's index in ``bone_names`` (-1: none)."""
    index = {name: j for j, name in enumerate(bone_names)}
    bones = root.data.bones
    return np.array([index.get(bones[n].parent.name, -2) if bones[n].parent is not None else -1 for n in bone_names])


def _as_rig(bone_names: list[str], parents: np.ndarray, loaded: LoadedAnim) -> bool:
    """Whether an untouched export may write ``loaded``'s kept text unsampled (MD5_ANIM_KEYS): no
    ``.md5scale``, and its joints the armature's bones (names and parents), as the export's anim has them."""
    return (loaded.scale is None and list(loaded.anim.joint_names) == bone_names
            and np.array_equal(np.asarray(loaded.anim.joint_parents), parents))


def _animate(context, root, bone_names: list[str], anims, timing, source: ModelSource,
             pair: ClassicPair | None, split: bool, result: ImportResult) -> None:
    """One action per anim (the first active), or with ``split`` the first anim's frames as one action per
    animation of the paired classic model; the scene's rate and range, the animation list."""
    if not anims:
        return
    scene = context.scene
    start = scene.frame_start
    rates = [anim_rate(loaded.anim, loaded.file.where, result.warnings) for loaded in anims]
    scene_rate = timing.fps(rates[0])
    settings = root.classic_model
    settings.frame_offset = start
    split = split and pair is not None and bool(pair.animations)
    actions = []
    rests = local_rests(root, bone_names)
    whole = [loaded for index, loaded in enumerate(anims) if loaded.scale is None and not (split and index == 0)]
    channels = dict(zip(map(id, whole), poses_channels(rests, [i.anim for i in whole], [i.joints for i in whole])))
    rig, parents = rig_digest(root, bone_names), _bone_parents(root, bone_names)
    for index, (loaded, rate) in enumerate(zip(anims, rates)):
        file, anim = loaded.file, loaded.anim
        step = scene_rate / rate
        parts = pair.animations if split and index == 0 else [None]
        for part in parts:
            frames = np.arange(anim.num_frames) if part is None else np.arange(part.first, part.last + 1)
            record = (loaded.data, float(anim.frame_rate), rig) if part is None and _as_rig(bone_names, parents, loaded) \
                else None
            action = animate(root, bone_names, anim, PurePosixPath(file.name).stem if part is None else part.name,
                             start + np.arange(len(frames)) * step, loaded.scale, None if part is None else frames,
                             loaded.joints, rests, channels.get(id(loaded)), record)
            action[MD5_ANIM_SOURCE] = loaded.data
            action[ANIM_FRAME_RATE] = float(anim.frame_rate)
            action[ANIM_FRAME_COUNT] = len(frames)
            action[MD5_ANIM_FILE] = file.member or file.name
            if part is not None:
                action[MD5_ANIM_FRAMES] = (part.first, part.last)
            actions.append((action, len(frames), step))
    for action, _, _ in actions:
        action.use_fake_user = len(actions) > 1  # each kept in the file while another one plays
    first_action, first_frames, first_step = actions[0]
    assign_action(root, first_action)
    apply_timing(scene, timing, start, start + (max(first_frames, 1) - 1) * first_step, rates[0])
    if note := timing_note(source.label, timing, rates[0]):
        result.infos.append(note)
    if pair is not None and pair.frame_names:
        pair.record_frames(root)
        if not split:
            pair.place(scene, root, start, first_step)
            return
    list_actions(settings, actions, start)
