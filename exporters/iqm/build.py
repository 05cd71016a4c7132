"""Build an :class:`~...formats.iqm.records.IqmModel` from a Blender scene: an armature and its meshes,
or meshes alone (a static model), and the anims chosen, for :func:`...formats.iqm.write.write_iqm`.

- Joints (:mod:`.skeleton`): every bone, parents first, the bind pose from the rest pose; one pose per
  joint (the SDK writes ``num_poses == num_joints``; FTE and Warsow refuse other counts), its parent the
  joint's.
- Frames: each anim's frames sampled as Blender evaluates the armature (:func:`.skeleton.sample_anims`),
  every joint relative to its parent as ten channels (:mod:`.pose_math`), quantised by
  :func:`...formats.iqm.animation.encode_channels` over every frame of every anim: per pose and channel
  ``offset`` the minimum, ``scale`` the range / 65535, a frame's value ``round((v - offset) / scale)``,
  so a channel comes back within half a step of Blender's. Anims follow one another in the frames, in
  the order given, each ``{name, first_frame, num_frames, framerate, flags (1 loop)}``.
- Bounds: one ``{bbmin[3], bbmax[3], xyradius, radius}`` a frame, of the vertices skinned by the
  decoded frame (what an engine draws), as the SDK's Blender exporter computes them (``frameBoundsData``);
  an import's frame keeps the file's record while nothing that decides it changed
  (:func:`.imported_parts.kept_bounds`).
- Meshes (:mod:`.geometry`).
- ``kept`` (the model an import stored): its text is kept as the start of the new text (every name it
  holds keeps its offset); what else stays (the names of the file's meshes an import made, the
  comment, extensions, the file's vertex order, triangles and arrays while the scene still has them,
  its joint records, its poses' quantisation while every frame fits it, each unchanged frame's row and
  bounds) is in :mod:`.imported_parts`.

What the export had to change or leave out is in the model's ``warnings``, one line per kind with a count.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

import bpy

from ...common.iqm.contract import IQM_ANIM_FRAMES
from ...formats.iqm.animation import encode_channels, frame_poses
from ...formats.iqm.records import (
    ANIM,
    BLENDINDEXES,
    BLENDWEIGHTS,
    BOUNDS,
    COLOR,
    FLOAT,
    JOINT,
    LOOP,
    MESH,
    NORMAL,
    POSE,
    POSITION,
    TEXCOORD,
    UBYTE,
    IqmModel,
    IqmVertexArray,
)
from ...formats.message_text import quoted
from ..armature_rig import joint_parents
from ..export_error import ExportError
from .geometry import Geometry, read_geometry, tie_unweighted
from .imported_parts import keep_imported, kept_bounds, kept_encoding, kept_joints, mesh_names
from .kept_layout import GroupLayout
from .pose_math import channels, local_matrices, relative, sheared, skinned_bounds, world_matrices
from .skeleton import Anim, bind_matrices, joint_order, sample_anims


@dataclass
class IqmExportOptions:
    apply_transform: bool = True        # world space; else the armature's (the first mesh's, static) space
    scale: float = 1.0                  # positions and translations times this
    colours: bool = True                # the active colour attribute as a colour array, when a mesh has one


class TextTable:
    """The text block: NUL-ended strings, a name is its offset. Starts with ``kept`` (its offsets stay) or
    with one NUL (offset 0 is the empty name, as the SDK writes)."""

    def __init__(self, kept: bytes = b"") -> None:
        self.data = bytearray(kept if kept else b"\0")
        if not self.data.endswith(b"\0"):
            self.data += b"\0"
        self.offsets: dict[bytes, int] = {}
        start = 0
        for piece in bytes(self.data).split(b"\0")[:-1]:
            self.offsets.setdefault(piece, start)
            start += len(piece) + 1

    def add(self, name: str) -> int:
        raw = name.encode("latin-1", "replace")
        if raw not in self.offsets:
            self.offsets[raw] = len(self.data)
            self.data += raw + b"\0"
        return self.offsets[raw]


def _model_matrix(options: IqmExportOptions, root: bpy.types.Object | None) -> np.ndarray:
    if options.apply_transform or root is None:
        return np.eye(4)
    return np.linalg.inv(np.array(root.matrix_world, np.float64))


def _vertex_arrays(geometry: Geometry, armature: bool, colours: bool) -> list[IqmVertexArray]:
    arrays = [IqmVertexArray(POSITION, FLOAT, geometry.joined("positions", 3, np.float32)),
              IqmVertexArray(TEXCOORD, FLOAT, geometry.joined("texcoords", 2, np.float32)),
              IqmVertexArray(NORMAL, FLOAT, geometry.joined("normals", 3, np.float32))]
    if armature:
        arrays += [IqmVertexArray(BLENDINDEXES, UBYTE, geometry.joined("indexes", 4, np.uint8)),
                   IqmVertexArray(BLENDWEIGHTS, UBYTE, geometry.joined("weights", 4, np.uint8))]
    if colours and any(c is not None for c in geometry.colours):
        arrays.append(IqmVertexArray(COLOR, UBYTE, geometry.joined("colours", 4, np.uint8, 255)))
    return arrays


def _meshes(geometry: Geometry, text: TextTable) -> tuple[np.ndarray, np.ndarray]:
    meshes = np.zeros(len(geometry.names), MESH)
    vertex = triangle = 0
    triangles = []
    for i, ((name, material), nv, nt, tris) in enumerate(zip(geometry.names, geometry.vertex_counts,
                                                             geometry.triangle_counts, geometry.triangles)):
        meshes[i] = (text.add(name), text.add(material), vertex, nv, triangle, nt)
        triangles.append(np.asarray(tris, np.int64) + vertex)
        vertex += nv
        triangle += nt
    return meshes, (np.concatenate(triangles) if triangles else np.zeros((0, 3))).astype(np.uint32)


def _anims(anims: list[Anim], counts: list[int], text: TextTable) -> np.ndarray:
    records = np.zeros(len(anims), ANIM)
    first = 0
    for i, (anim, count) in enumerate(zip(anims, counts)):
        records[i] = (text.add(anim.name), first, count, anim.fps, LOOP if anim.loop else 0)
        first += count
    return records


def _shear_note(skew: np.ndarray, names: list[str]) -> str:
    shown = ", ".join(quoted(n) for n in names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
    frames = int(skew.any(axis=1).sum())
    return (f"{len(names)} bone{'s' if len(names) > 1 else ''} ({shown}) sheared in {frames} frame{'s' if frames > 1 else ''} "
            "(a bone rotated under a parent scaled unevenly): an IQM joint holds a translation, a rotation and a "
            "scale along its own axes, so those poses are written without the shear")


def _bounds(model: IqmModel, parents: np.ndarray, inverse_bind: np.ndarray, kept: IqmModel | None = None,
            files: np.ndarray | None = None) -> np.ndarray:
    """Each frame's bounds, of the vertices skinned by the decoded frame; ``kept``'s record of frame
    ``files[f]`` where that is not -1 (:func:`.imported_parts.kept_bounds`)."""
    bounds = np.zeros(model.num_frames, BOUNDS)
    todo = np.arange(model.num_frames) if files is None else np.flatnonzero(files < 0)
    taken = np.zeros(0, np.int64) if files is None else np.flatnonzero(files >= 0)
    if len(taken):
        bounds[taken] = kept.bounds[files[taken]]
    if not len(todo):
        return bounds
    positions = model.array(POSITION).data.astype(np.float64)
    indexes, weights = model.array(BLENDINDEXES).data, model.array(BLENDWEIGHTS).data
    local = local_matrices(np.concatenate(frame_poses(model), -1)[todo])
    values = skinned_bounds(positions, indexes, weights, world_matrices(parents, local) @ inverse_bind)
    bounds["bbmin"][todo], bounds["bbmax"][todo] = values[:, 0:3], values[:, 3:6]
    bounds["xyradius"][todo], bounds["radius"][todo] = values[:, 6], values[:, 7]
    return bounds
    positions = model.array(POSITION).data.astype(np.float64)
    indexes, weights = model.array(BLENDINDEXES).data, model.array(BLENDWEIGHTS).data
    pose = np.concatenate(frame_poses(model), -1)
    local = local_matrices(pose if todo is None else pose[todo])
    values = skinned_bounds(positions, indexes, weights, world_matrices(parents, local) @ inverse_bind)
    computed = np.zeros(len(values), BOUNDS)
    computed["bbmin"], computed["bbmax"], computed["xyradius"], computed["radius"] = \
        values[:, 0:3], values[:, 3:6], values[:, 6], values[:, 7]
    if todo is None:
        return computed
    bounds[todo] = computed
    return bounds


def _kept_rows(chosen: list[Anim], counts: list[int], kept: IqmModel) -> np.ndarray | None:
    """The file's frame each sampled frame stands for (-1: none): an imported anim's action names its
    frames in the file (``IQM_ANIM_FRAMES``: first, count) where it has as many; None where no action
    does (frame k stands for frame k when the counts are equal)."""
    rows, found = [], False
    for anim, count in zip(chosen, counts):
        stored = anim.action.get(IQM_ANIM_FRAMES) if anim.action is not None else None
        first = int(stored[0]) if stored is not None and len(stored) == 2 and int(stored[1]) == count else -1
        found |= first >= 0 and first + count <= kept.num_frames
        rows.append(first + np.arange(count) if first >= 0 and first + count <= kept.num_frames
                    else np.full(count, -1))
    return np.concatenate(rows).astype(np.int64) if found else None


def _check_anims(context, chosen: list[Anim]) -> None:
    slow = [a for a in chosen if not a.fps > 0]
    if slow:
        raise ExportError(f"anim {quoted(slow[0].name)} has a frame rate of {slow[0].fps:g}: it needs one above 0")
    scene_fps = context.scene.render.fps / context.scene.render.fps_base
    empty = [a for a in chosen if a.times(scene_fps).size == 0]
    if empty:
        raise ExportError(f"anim {quoted(empty[0].name)} has no frame: its last frame is before its first")


def build_iqm(context: bpy.types.Context, armature: bpy.types.Object | None, meshes: list[bpy.types.Object],
              anims: list[tuple], kept: IqmModel | None = None, options: IqmExportOptions | None = None,
              layout: GroupLayout | None = None) -> IqmModel:
    """The IQM model of ``armature`` (or None: a static model) and ``meshes`` with ``anims``, each
    ``(action, name, first_frame, last_frame, fps, loop)`` in the file's order; with ``layout`` (``anims``
    are the import's frame groups of ``kept``: :mod:`.kept_layout`) in the file's anims, frame by frame,
    where the joints are the file's."""
    options = options or IqmExportOptions()
    if armature is not None and not len(armature.data.bones):
        raise ExportError(f"armature {quoted(armature.name)} has no bones")
    if not meshes and armature is None:
        raise ExportError("nothing to export: select at least one mesh object")
    chosen = [Anim(*a) for a in anims] if armature is not None else []
    _check_anims(context, chosen)
    model_matrix = _model_matrix(options, armature if armature is not None else (meshes[0] if meshes else None))
    text = TextTable(kept.text if kept is not None else b"")
    order = joint_order(armature) if armature is not None else []
    geometry = read_geometry(context, meshes, armature, order, model_matrix, options.scale)
    if kept is not None:
        geometry.names = mesh_names(geometry.names, geometry.slots, kept)
    mesh_records, triangles = _meshes(geometry, text)
    notes = geometry.report.lines()
    if armature is None and anims:
        notes.append(f"{len(anims)} anim{'s' if len(anims) > 1 else ''} left out: a model without an armature has "
                     "no joints to animate")
    arrays = _vertex_arrays(geometry, armature is not None, options.colours)
    joints, poses = np.zeros(0, JOINT), np.zeros(0, POSE)
    frames, anim_records = np.zeros((0, 0), np.uint16), np.zeros(0, ANIM)
    bind = parents = files = None
    if armature is not None:
        parents = joint_parents(armature, order)
        bind = bind_matrices(armature, order, model_matrix)
        bind[:, :3, 3] *= options.scale
        rest = channels(relative(parents, bind))
        joints = np.zeros(len(order), JOINT)
        joints["name"] = [text.add(n) for n in order]
        joints["parent"] = parents
        joints["translate"], joints["rotate"], joints["scale"] = rest[:, 0:3], rest[:, 3:7], rest[:, 7:10]
        if kept is not None:
            joints = kept_joints(joints, kept)
        if chosen:
            matrices, counts = sample_anims(context, armature, order, chosen, model_matrix, meshes)
            matrices[..., :3, 3] *= options.scale
            local = relative(parents, matrices)
            values = channels(local)
            skew = sheared(local)
            if skew.any():
                notes.append(_shear_note(skew, [order[j] for j in np.flatnonzero(skew.any(axis=0))]))
            if not np.isfinite(values).all():
                raise ExportError(f"armature {quoted(armature.name)}: a bone's pose is not finite (a bone scaled to 0?)")
            placed = None if layout is None else layout.place(values, kept, joints["name"], parents)
            if placed is not None:                # the file's anims, each frame from the group covering it
                values, layout_notes = placed
                notes += layout_notes
                rows, anim_records = np.arange(kept.num_frames), np.array(kept.anims)
            else:
                rows = None if kept is None else _kept_rows(chosen, counts, kept)
                anim_records = _anims(chosen, counts, text)
            kept_frames = None if kept is None else kept_encoding(values, kept, joints["name"], parents, rows)
            if kept_frames is not None:
                poses, frames, files = kept_frames
            else:
                poses, frames = encode_channels(values)
        else:
            poses = np.zeros(len(order), POSE)
            poses["channeloffset"] = rest
        poses["parent"] = parents
    model = IqmModel(text=b"", meshes=mesh_records, num_vertexes=int(arrays[0].data.shape[0]), vertex_arrays=arrays,
                     triangles=triangles, adjacency=None, joints=joints, poses=poses, anims=anim_records,
                     frames=frames, bounds=None)
    if kept is not None:
        keep_imported(model, kept, notes, geometry.slots, geometry.sources, options.scale)
    weights = model.array(BLENDWEIGHTS)
    if weights is not None and (kept is None or weights is not kept.array(BLENDWEIGHTS)):   # not the file's own 0s
        tied = tie_unweighted(model.array(BLENDINDEXES).data, weights.data)
        notes += [tied] if tied else []
    if model.num_frames and model.num_vertexes:          # a file of anims alone: no bounds (nothing to bound)
        files = None if files is None else kept_bounds(model, kept, files)
        model.bounds = _bounds(model, parents, np.linalg.inv(bind), kept, files)
    model.text = bytes(text.data)
    model.warnings = notes
    return model


def _token(name: str) -> str:
    """``name`` as one token of DarkPlaces' ``COM_ParseToken_Simple``: bare unless it holds a space, a
    quote or a comment mark; then quoted (its quotes left out: a quoted token cannot hold one)."""
    if name and not any(c.isspace() or c == '"' for c in name) and "//" not in name and "/*" not in name:
        return name
    return '"' + name.replace('"', "") + '"'


def framegroups_text(model: IqmModel) -> str:
    """The model's anims as DarkPlaces' ``.iqm.framegroups`` lines, ``first count fps loop name``:
    ``Mod_FrameGroupify_ParseGroups`` (DarkPlaces ``model_shared.c``) reads a start, a length, then
    optionally a rate, a loop flag and a name, one group a line (``Mod_Decompile_f`` writes the same
    numbers with the name after ``//``, which the parser skips as a comment and names the group
    ``groupified_N_anim``)."""
    lines = []
    for anim, name in zip(model.anims, model.anim_names):
        lines.append(f"{int(anim['first_frame'])} {int(anim['num_frames'])} {float(anim['framerate']):g} "
                     f"{1 if int(anim['flags']) & LOOP else 0} {_token(name)}\n")
    return "".join(lines)
