"""Build an MD5 pair from Blender: the armature's joints in the rest pose (:mod:`.rig`), the mesh
blocks with their weights (:mod:`.blocks`), the frame plan the MD2 and MDL exports use
(:func:`..sampling.frame_plan.plan_frames`) and the poses at its frames (:mod:`.pose`), the anim
(:mod:`.anim`), one per file :mod:`.anim_files` asks for (an imported MD5's anims each back to its own file
at its own rate). Every limit the engines have (:mod:`...formats.md5.limits`) is checked on the mesh and
on each planned frame count before a single frame is sampled; an imported pair keeps its files' text
(:mod:`.write_back`). An armature without meshes (an ``.md5anim`` imported on its own skeleton) builds its
anim alone; an imported ``.md5mesh`` that nothing animates builds its mesh alone. An untouched mesh
(:func:`.untouched.mesh_held`) whose record counts its blocks (``common/md5/keys.py`` ``mesh_record``) is
checked against the limits and reported from those counts, and its rest pose is read and its blocks built
only where an anim is sampled or a frame plan looks at the rest meshes: an export that writes every file
from its kept text builds neither (``tests/md5/test_md5_untouched_blocks_blender.py``).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

import bpy

from ...common.md5.contract import MD5_MESH_INDEX, MD5_MESH_SOURCE
from ...common.stored_records import stored_bytes, stored_int
from ...formats.md5.limits import MAX_FRAMES, anim_problems, count_limits, mesh_limits, pair_problems
from ...formats.md5.records import Md5Anim, Md5Header, Md5Mesh
from ...formats.md5.scale import Md5Scale
from ...formats.message_text import quoted
from ...formats.report_lines import over_limit
from ..armature_rig import joint_parents
from ..export_error import ExportError
from ..sampling.animated_mesh import export_meshes
from ..sampling.curve_pose import KeyReads
from ..sampling.frame_plan import FramePlan, plan_frames
from ..sampling.options import FrameExportOptions
from ..sampling.planned import model_label
from ..sampling.still_frames import still_note
from .anim import anim_record, frame_bounds
from .anim_files import AnimFile, anim_files
from .blocks import BlockReport, build_blocks, influence_line, influence_note, read_rest_meshes
from .pose import SHAPE_KEYS_REFUSED, STEPPED, sample_files
from .rig import (
    bone_matrices,
    find_armature,
    joint_order,
    joint_scale_problem,
    joint_scales,
    lone_armature,
    model_poses,
    unanimated_import,
)
from .untouched import KeptText, Untouched, mesh_held
from .write_back import KEPT_NOTE, MESH_NOTE, KeptAnims, KeptMesh, KeptNotes, kept_anim, kept_pair

COMMANDLINE = "Blender Classic Models"
UNANIMATED = "nothing animates the imported mesh: only the .md5mesh is written (no .md5anim it did not have)"


@dataclass
class Md5ExportOptions(FrameExportOptions):
    per_material: bool = True          # a mesh block per material (else one per object)


@dataclass
class BuiltAnim:
    """One ``.md5anim`` built: its name beside the mesh (None: the mesh's name), the anim (or the file's own
    text, :mod:`.untouched`), its joint scales."""
    name: str | None
    anim: Md5Anim | KeptText
    scale: Md5Scale | None = None       # bones scaled uniformly: Q2PRO's .md5scale beside the anim


@dataclass
class Md5Build:
    mesh: Md5Mesh
    anims: list[BuiltAnim]              # the .md5anim files, in order (the first is x.md5anim unless named)
    armature: bpy.types.Object
    warnings: list[str] = field(default_factory=list)
    info: list[str] = field(default_factory=list)
    mesh_text: bytes | None = None      # the mesh's text, when the check against the kept file wrote it
    anim_only: bool = False             # an armature without meshes: only its .md5anim is written

    @property
    def anim(self) -> Md5Anim | None:
        """The first anim (None: no anim is written)."""
        return self.anims[0].anim if self.anims else None

    @property
    def scale(self) -> Md5Scale | None:
        return self.anims[0].scale if self.anims else None


@dataclass
class Twin:
    """What a classic export hands its MD5 twin: its plan and the frames it wrote (so anim frame k is
    classic frame k), the UVs its skin uses and the shader name of the layout."""
    plan: FramePlan
    frames: list
    corner_uvs: np.ndarray | None = None
    shader: str | None = None
    topologies: list | None = None     # the classic model's triangles (an n-gon's split may depend on the pose)


def _refuse(label: str, problems: list[str]) -> None:
    if problems:
        raise ExportError(f"{label}: cannot export as MD5: " + "; ".join(problems))


def _as_imported(armature: bpy.types.Object, mesh_text: bytes | None) -> bool:
    """Whether the mesh is written back as the file it was imported from, character for character (what
    it holds past an engine's limit is then the file's own: a note, not a warning)."""
    return mesh_text is not None and mesh_text == stored_bytes(armature, MD5_MESH_SOURCE)


def _not_finite(arrays: list, what: str) -> list[str]:
    bad = sum(int((~np.isfinite(a)).sum()) for a in arrays)
    return [f"{bad} {what} not finite (NaN or infinite)"] if bad else []


def build_md5(context: bpy.types.Context, objects: list[bpy.types.Object], options: Md5ExportOptions,
              twin: Twin | None = None) -> Md5Build:
    lone = lone_armature(objects) if twin is None else None     # an armature without meshes: its anim alone
    meshes = [] if lone is not None else export_meshes(objects)
    if twin is None:            # an imported MD5's block order (a twin keeps the classic model's mesh order)
        meshes.sort(key=lambda o: stored_int(o, MD5_MESH_INDEX, 1 << 30))
    label = model_label(meshes or [lone])
    armature = lone or find_armature(meshes)
    if options.frame_source == "SHAPE_KEYS" and twin is None:
        raise ExportError(SHAPE_KEYS_REFUSED)
    order = joint_order(armature)
    parents = joint_parents(armature, order)
    model = np.eye(4) if options.apply_transform else np.linalg.inv(np.array(armature.matrix_world, np.float64))
    bind = model @ np.array(armature.matrix_world, np.float64) @ bone_matrices(armature.data.bones, order)
    bind_pos, bind_quat = model_poses(bind, options.scale)
    held, kept = None, None             # the import's record of an untouched mesh; the imported .md5mesh
    if twin is None and lone is None:
        held = mesh_held(armature, meshes, order, options.scale, options.per_material)
        kept = KeptMesh(armature, held is not None)
        kept = kept if held is not None or kept.record() is not None else None
    built: Md5Mesh | None = None            # the blocks built from the mesh in its rest pose (:func:`_rest_blocks`)
    rests: list = []
    report = BlockReport()
    if held is None or not _counted(held) or held["loose"]:
        rests, blocks = _rest_blocks(context, meshes, armature, order, model, options, twin, kept, bind_pos, bind_quat)
        built, report = Md5Mesh(order, parents, bind_pos, bind_quat[:, :3], blocks.parts,
                                Md5Header(commandline=COMMANDLINE)), blocks.report
        limits = mesh_limits(built) if lone is None else []        # an anim alone writes no mesh
        positions = [r.positions for r in rests]
    else:   # untouched: the blocks are the file's, counted by the import; they are built only to sample a pose
        report.unweighted = held["unweighted"]
        limits = count_limits(order, *([counts[i] for counts in held["blocks"]] for i in range(3)))
        positions = []      # the import refused coordinates float32 does not hold, and the mesh digests as made
    _refuse(label, limits + _not_finite([bind_pos] + positions, "joint or vertex coordinates"))
    mesh = built if built is not None else Md5Mesh(order, parents, bind_pos, bind_quat[:, :3], [],
                                                   Md5Header(commandline=COMMANDLINE))
    block_count = len(built.meshes) if built is not None else len(held["blocks"])
    if twin is None and lone is None and unanimated_import(armature, meshes):
        mesh, kept_notes, mesh_text, influence = _kept_mesh(armature, mesh, kept, held)
        warnings, info = report.lines(), kept_notes.lines() + [UNANIMATED]
        info += report.rebuilt_lines(built.meshes if built is not None else [], [] if held is not None else mesh.meshes)
        (info if _as_imported(armature, mesh_text) else warnings).extend(influence)
        return Md5Build(mesh, [], armature, warnings, info, mesh_text=mesh_text)

    def rest_blocks() -> Md5Mesh:
        """The blocks built (once), where a pose is sampled or a plan needs the rest meshes."""
        nonlocal built, rests
        if built is None:
            rests, blocks = _rest_blocks(context, meshes, armature, order, model, options, twin, kept, bind_pos,
                                         bind_quat)
            built = Md5Mesh(order, parents, bind_pos, bind_quat[:, :3], blocks.parts, Md5Header(commandline=COMMANDLINE))
        return built

    kept_anims_read = KeptAnims()       # each anim's imported text, read once for its rate and its poses
    reads = KeyReads()              # the F-curves and the rig, read once for every anim
    found: dict = {}                # the actions that animate the model, found once for every anim's plan
    mesh, mesh_notes, mesh_text, influence = _kept_mesh(armature, mesh, kept, held)
    unchanged = mesh_text is not None and mesh_text == stored_bytes(armature, MD5_MESH_SOURCE)
    untouched = None
    if twin is None and lone is None:   # an anim nothing changed is written as its file's text, unsampled
        untouched = Untouched(context, armature, order, options.scale)
        untouched.mesh_as_imported = unchanged
    if twin is not None:
        files = [AnimFile(None, options)]
    else:
        files = anim_files(armature, meshes or [armature], options, kept_anims_read, found, untouched)
        if lone is not None:            # the anim alone goes to the chosen file's name
            files = [AnimFile(None, file.options) for file in files[:1]]
    warnings, info, anims = report.lines(), [], []
    several, kept_anims = len(files) > 1, 0
    stepped: dict[str, int] = {}    # several: each reason the timeline was stepped, with its count of anims
    warnings += [file.note for file in files if file.note]
    labels = [label if not several else f"{label}, {file.name or 'its .md5anim'}" for file in files]
    topologies = _Topologies(lambda: (rest_blocks(), rests)[1])
    plans = [_planned(context, label_of, armature, meshes, topologies, file.options, twin, found)
             for label_of, file in zip(labels, files)]
    kept_texts = [untouched(*planned) if untouched is not None else None for planned in plans]
    to_sample = [planned for planned, kept_text in zip(plans, kept_texts) if kept_text is None]
    poses = iter(sample_files(context, armature, order, meshes, to_sample, model, reads))   # in one pass
    for number, (file, label_of, (plan, frames), kept_text) in enumerate(zip(files, labels, plans, kept_texts)):
        if kept_text is not None:
            anim, sizes, lines, kept_notes = kept_text, None, plan.report(len(frames), not several), KeptNotes(
                anim=KEPT_NOTE)
        else:
            # several: each anim's rate is said once for all below, its other lines under its name
            sampled, sizes, played, lines = _sampled_anim(label_of, rest_blocks(), bind, file.options, plan, frames,
                                                          next(poses), twin, warnings, rate_line=not several)
            # the mesh's own bounds hold while it writes back as it was (an anim alone: always)
            anim, anim_note = kept_anim(armature, sampled, played, unchanged if kept is not None or number
                                        else not mesh.meshes, kept_anims_read)
            kept_notes = KeptNotes(anim=anim_note)
        for line in lines if several else []:
            if line.startswith(STEPPED):
                stepped[line] = stepped.get(line, 0) + 1
        info += lines if not several else [f"{file.name or 'md5anim'}: {line}" for line in lines
                                           if not line.startswith(STEPPED)]
        if number == 0:
            info += report.rebuilt_lines(built.meshes if built is not None else [],
                                         [] if held is not None else mesh.meshes)
            kept_notes.mesh = mesh_notes.mesh
        kept_anims += bool(kept_notes.anim)
        info += kept_notes.lines() if not several else [kept_notes.mesh] if kept_notes.mesh else []
        scale = None if sizes is None else Md5Scale(sizes, np.zeros(len(order), bool))
        if scale is not None:
            frames_scaled = int((sizes != 1.0).any(axis=1).sum())
            joints_scaled = int((sizes != 1.0).any(axis=0).sum())
            info.append(f"{joints_scaled} bone{'s scale' if joints_scaled > 1 else ' scales'} in {frames_scaled} "
                        f"frame{'s' if frames_scaled > 1 else ''}")
        if kept_text is None and anim.bounds is None:     # skinned only where the kept file's bounds do not hold
            anim.bounds = frame_bounds(sampled, rest_blocks().meshes, sizes)
        anims.append(BuiltAnim(file.name, anim, scale))
    if several:
        rates = sorted({float(built_anim.anim.frame_rate) for built_anim in anims})
        info.append(f"Frame rate: each anim's own ({', '.join(f'{r:.4g}' for r in rates)} per second): {len(anims)} "
                    "anims, each to its own file")
        info += [f"{line} ({count} of {len(anims)} anims)" for line, count in stepped.items()]
        if kept_anims:
            info.append(f"md5anim: the imported files' text kept for {kept_anims} of {len(anims)} anims "
                        "(poses unchanged)")
    (info if _as_imported(armature, mesh_text) else warnings).extend(influence)
    frames = sum(a.anim.num_frames for a in anims)
    info.append(f"{len(order)} joints, {block_count} mesh blocks, " + (f"{frames} frames" if len(anims) == 1
                else f"{len(anims)} anims ({frames} frames)"))
    if held is not None and built is not None:      # an untouched mesh's blocks built for a sampled pose
        mesh = built
    if twin is not None and twin.shader is not None:        # the layout's shader, also over a kept file's
        for part in mesh.meshes:
            part.shader = twin.shader
        mesh_text = None
    return Md5Build(mesh, anims, armature, warnings, info, mesh_text=mesh_text, anim_only=lone is not None)


def _counted(held: dict) -> bool:
    """Whether the import's record counts the blocks (a record from before it did: the blocks are built)."""
    blocks = held.get("blocks")
    return (isinstance(blocks, list) and all(isinstance(b, list) and len(b) == 3 and all(isinstance(n, int) for n in b)
                                             for b in blocks)
            and isinstance(held.get("unweighted"), int) and isinstance(held.get("loose"), int))


class _Topologies:
    """The rest meshes' topologies for the frame plans, read only where a plan looks at them."""

    def __init__(self, read):
        self._read = read

    def __iter__(self):
        return iter([rest.topology for rest in self._read()])


def _rest_blocks(context, meshes, armature, order, model, options: Md5ExportOptions, twin: Twin | None, kept,
                 bind_pos, bind_quat):
    """(the meshes in their rest pose, :mod:`.blocks`'s blocks built from them)."""
    rests = read_rest_meshes(context, meshes, armature, order, model, options.scale, kept)
    if twin is not None and twin.topologies is not None:
        for rest, topology in zip(rests, twin.topologies):
            if topology.num_vertices != len(rest.positions):
                raise ExportError(f"object {quoted(rest.obj.name)}: its vertex count in the rest pose differs from the "
                                  "classic model's (a modifier that depends on the pose); MD5 needs one topology")
            rest.topology = topology
    shader = None if twin is None or twin.shader is None else (lambda rest, material: twin.shader)
    return rests, build_blocks(rests, bind_pos, bind_quat, options.per_material and twin is None,
                               None if twin is None else twin.corner_uvs, shader)


def _kept_mesh(armature: bpy.types.Object, mesh: Md5Mesh, kept: KeptMesh | None, held: dict | None):
    """(mesh, :class:`KeptNotes`, mesh text, influence note) as :func:`.write_back.kept_pair` gives them, the
    note on the written blocks' weights; where the mesh is untouched (``held``, :func:`.untouched.mesh_held`)
    the kept text as it is, unread, and the note on the file's weights the import counted."""
    if held is not None:
        return mesh, KeptNotes(mesh=MESH_NOTE), stored_bytes(armature, MD5_MESH_SOURCE), influence_line(
            held["over"], held["most"])
    mesh, _, notes, text = kept_pair(armature, mesh, None, None, kept.record() if kept is not None else None)
    return mesh, notes, text, influence_note(mesh.meshes)


def _planned(context, label: str, armature, meshes, topologies, options: Md5ExportOptions, twin: Twin | None,
             found: dict) -> tuple[FramePlan, list]:
    """The plan of one ``.md5anim`` and its frames (a twin's: the classic model's), the frame limit checked."""
    if twin is None:
        def check(plan: FramePlan) -> None:
            _refuse(label, over_limit(len(plan.frames), "frames", MAX_FRAMES, "Q2PRO MD5_MAX_FRAMES"))
        plan = plan_frames(context, meshes or [armature], topologies, options, check, found)
        frames = plan.frames
    else:
        plan, frames = twin.plan, twin.frames
        _refuse(label, over_limit(len(frames), "frames", MAX_FRAMES, "Q2PRO MD5_MAX_FRAMES"))
    if not frames:
        raise ExportError(f"{label}: no frames to export: no action animates the armature (Frames: Actions), or "
                          "the frame range is empty")
    return plan, frames


def _sampled_anim(label: str, mesh: Md5Mesh, bind: np.ndarray, options: Md5ExportOptions, plan: FramePlan,
                  frames: list, sampled: tuple[np.ndarray, list[str]], twin: Twin | None, warnings: list[str],
                  rate_line: bool = True):
    """(anim, joint sizes or None, the actions played or None, report lines) of one ``.md5anim``: its
    ``frames`` of ``plan`` as ``sampled`` (:func:`.pose.sample_files`: the matrices and the lines on
    stepping), its limits checked; a joint-scale problem is added to ``warnings``; the plan's rate line is
    among the report lines while ``rate_line``."""
    order, parents = mesh.joint_names, mesh.joint_parents
    matrices, stepped = sampled
    still = ""
    if twin is None and plan.may_be_still and np.array_equal(matrices, np.broadcast_to(matrices[:1], matrices.shape)):
        still, matrices, frames = still_note(len(frames)), matrices[:1], frames[:1]
    pos, quat = model_poses(matrices, options.scale)
    _refuse(label, _not_finite([pos, quat], "pose values"))
    sizes = joint_scales(bind, matrices)
    anim = anim_record(order, parents, pos, quat, plan.model_fps, mesh.meshes, Md5Header(commandline=COMMANDLINE),
                       sizes, bounds=False)
    _refuse(label, anim_problems(anim) + pair_problems(mesh, anim))
    scale_note = joint_scale_problem(np.concatenate([bind[None], matrices]))
    if scale_note and scale_note not in warnings:
        warnings.append(scale_note)
    played = None if plan.actions is None else [a.action for a in plan.actions if any(f.action == a.action.name
                                                                                      for f in frames)]
    return anim, sizes, played, plan.report(len(frames), rate_line) + stepped + ([still] if still else [])
