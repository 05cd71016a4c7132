"""What an IQM export keeps of the file an import stored (``kept``), numpy only.

Always: the comment, the extensions and the header's flags (the text is the new text's start, in
:mod:`.build`), and the names of the meshes an import made (:func:`mesh_names`, found by index, never
by a Blender name: the object's ``IQM_MESH_INDEX``, a merged object's material slot): such a mesh is
written with its file mesh's name while the object keeps the name the import gave it (or the file's
name, Blender's ``.001`` added or not; as MD3's export does for a surface; always for a merged
object, named after the file), else with the object's new name; and with its file mesh's material
name while its material is the one the import made for it (the name's last path part, or
:data:`UNNAMED_MATERIAL` for an empty one), else with the material's name. Then each mesh an import
made that still has the import's vertices is put in the file's vertex order, with the file's triangles
where they are the same (:mod:`.file_vertices`, by index). A model of meshes no import made is matched
by value instead (:func:`file_order`: as many meshes, each with as many vertices, every vertex at the
file's very position with its texture coordinates within :data:`UV_TOLERANCE`). The file's adjacency
is kept where every mesh has the file's triangles. While every mesh has the file's vertices so (by
index: with the file's positions, texture coordinates and normals), an array the export writes is the
file's own data where it is within :data:`CLOSE` of it (the texture coordinates and normals an import
turned into Blender's UVs and custom normals, and back; blend weights within one 255th); the file's
arrays the export does not write (tangents, custom types 0x10 and up, formats other than the
export's) are kept as they are, and the arrays go in the file's order. Otherwise the file's custom
arrays are left out, and the report says how many. The frames: the file's joint records, quantisation
and rows while the scene's poses are the file's (:func:`kept_joints`, :func:`kept_encoding`), and a
frame's bounds record while its row, the joints, the quantisation and the skinned vertices are the
file's (:func:`kept_bounds`).
"""
from __future__ import annotations

import re
from pathlib import PurePosixPath

import numpy as np

from ...common.generated_names import is_made
from ...common.iqm.contract import IQM_MERGED, UNNAMED_MATERIAL
from ...common.stored_records import stored_int
from ...formats.iqm.animation import frame_channels
from ...formats.iqm.records import BLENDINDEXES, BLENDWEIGHTS, COLOR, CUSTOM, NORMAL, POSITION, TEXCOORD, IqmModel
from .file_vertices import UV_TOLERANCE, file_meshes, match_meshes, same_triangles

NORMAL_GRID = 1e-2                  # normals rounded to this to pair a vertex's copies (hard edges)
CLOSE = {TEXCOORD: 1e-5, NORMAL: 2e-4, COLOR: 1.0, BLENDWEIGHTS: 1.0, BLENDINDEXES: 0.0}


def _made_for(material: str, shader: str) -> bool:
    """Whether material name ``material`` is the one an import makes for the file's material name
    ``shader`` (its last path part, or :data:`UNNAMED_MATERIAL`; Blender may have added ``.001``)."""
    made = PurePosixPath(shader.replace("\\", "/")).name or UNNAMED_MATERIAL
    return material == made or re.fullmatch(re.escape(made) + r"\.\d{3,}", material) is not None


def _made_name(obj, name: str) -> bool:
    """Whether ``obj`` keeps the name an import gave it for the file's mesh name ``name``."""
    return is_made(obj) or obj.name == name or re.fullmatch(re.escape(name) + r"\.\d{3,}", obj.name) is not None


def mesh_names(names: list[tuple[str, str]], slots: list, kept: IqmModel) -> list[tuple[str, str]]:
    """``names`` (mesh name, material name) of the export's meshes, each read from ``slots`` (object,
    material slot), with those an import made given their file mesh's names (module docstring)."""
    out = []
    for (name, material), (obj, _), found in zip(names, slots, file_meshes(slots, kept)):
        if found is not None:
            record = kept.meshes[found[0]]
            file_name, shader = kept.text_at(int(record["name"])), kept.text_at(int(record["material"]))
            if stored_int(obj, IQM_MERGED, 0) or _made_name(obj, file_name):
                name = file_name
            material = shader if _made_for(material, shader) else material
        out.append((name, material))
    return out


def _ranges(model: IqmModel) -> list[tuple[int, int]]:
    return [(int(m["first_vertex"]), int(m["num_vertexes"])) for m in model.meshes]


def _keys(positions: np.ndarray, texcoords: np.ndarray, normals: np.ndarray | None) -> np.ndarray:
    """Rows to sort vertices by: the positions' float32 bits, the UVs and the normals (which tell apart
    the copies of a vertex on a hard edge) rounded."""
    bits = np.ascontiguousarray(positions, np.float32).view(np.int32).astype(np.int64)
    rows = [bits, np.rint(np.asarray(texcoords, np.float64) / UV_TOLERANCE).astype(np.int64)]
    if normals is not None:
        rows.append(np.rint(np.asarray(normals, np.float64) / NORMAL_GRID).astype(np.int64))
    return np.concatenate(rows, 1)


def file_order(model: IqmModel, kept: IqmModel) -> np.ndarray | None:
    """``order`` with ``model``'s vertex ``order[i]`` standing for ``kept``'s vertex i, or None when the
    scene's vertices are not the file's."""
    ours = [model.array(POSITION), model.array(TEXCOORD)]
    theirs = [kept.array(POSITION), kept.array(TEXCOORD)]
    if any(a is None for a in ours + theirs) or _ranges(model) != _ranges(kept) or \
            any(a.data.shape[1] != b.data.shape[1] for a, b in zip(ours, theirs)):
        return None
    normals = [model.array(NORMAL), kept.array(NORMAL)]
    if any(a is None for a in normals) or normals[0].data.shape != normals[1].data.shape:
        normals = [None, None]
    order = np.arange(model.num_vertexes)
    for first, count in _ranges(model):
        part = slice(first, first + count)
        mine = _keys(*(a.data[part] for a in ours), None if normals[0] is None else normals[0].data[part])
        file = _keys(*(a.data[part] for a in theirs), None if normals[1] is None else normals[1].data[part])
        sort_mine, sort_file = np.lexsort(mine.T[::-1]), np.lexsort(file.T[::-1])
        if not np.array_equal(mine[sort_mine], file[sort_file]):
            return None
        order[first + sort_file] = first + sort_mine
    return order


def _by_value(model: IqmModel, kept: IqmModel) -> bool:
    """Put ``model``'s vertices in the file's order where :func:`file_order` finds them, with the file's
    triangles where they are the same; whether it found them."""
    order = file_order(model, kept)
    if order is None:
        return False
    back = np.empty_like(order)
    back[order] = np.arange(len(order))
    for array in model.vertex_arrays:
        array.data = array.data[order]
    model.triangles = back[model.triangles.astype(np.int64)].astype(np.uint32)
    if _triangle_ranges(model) == _triangle_ranges(kept) and all(
            same_triangles(model.triangles[f:f + n], kept.triangles[f:f + n]) for f, n in _triangle_ranges(model)):
        model.triangles, model.adjacency = np.array(kept.triangles, np.uint32), kept.adjacency
    return True


def _triangle_ranges(model: IqmModel) -> list[tuple[int, int]]:
    return [(int(m["first_triangle"]), int(m["num_triangles"])) for m in model.meshes]


def keep_imported(model: IqmModel, kept: IqmModel, notes: list[str], slots: list | None = None,
                  sources: list[np.ndarray] | None = None, scale: float = 1.0) -> None:
    """Put what stays of ``kept`` (the imported file) in ``model`` (built from the scene, *Scale*
    ``scale``; ``slots`` the (object, material slot) and ``sources`` the object's vertex of each vertex
    of each mesh, :class:`.geometry.Geometry`)."""
    model.comment, model.extensions, model.flags = kept.comment, list(kept.extensions), kept.flags
    found = file_meshes(slots or [], kept)
    if any(f is not None for f in found) and len(found) == len(sources or []) == len(model.meshes):
        matched, triangles, values = match_meshes(model, kept, found, sources or [], scale)
        whole = matched == list(range(len(kept.meshes))) and _ranges(model) == _ranges(kept)
        if whole and all(triangles) and _triangle_ranges(model) == _triangle_ranges(kept):
            model.adjacency = kept.adjacency
        same = whole and all(values)
    else:
        same = _by_value(model, kept)
    custom = [a for a in kept.vertex_arrays if a.type >= CUSTOM]
    if not same:
        if custom:
            notes.append(f"{len(custom)} custom vertex array{'s' if len(custom) > 1 else ''} of the imported file "
                         "left out: the vertices changed")
        return
    ours = {a.type: a for a in model.vertex_arrays}
    same_blend = _same_blend(ours, kept)
    arrays = []
    for array in kept.vertex_arrays:
        mine = ours.get(array.type)
        if mine is not None and mine.format == array.format and mine.data.shape == array.data.shape:
            if array.type in (BLENDINDEXES, BLENDWEIGHTS):
                close = same_blend
            else:                               # positions: the file's already (times Scale)
                gap = np.abs(mine.data.astype(np.float64) - array.data.astype(np.float64)).max(initial=0.0)
                close = gap <= CLOSE.get(array.type, 0.0)
            arrays.append(array if close else mine)     # close: the file's own values, the scene still has them
            ours.pop(array.type)
        elif mine is None and array.type not in (POSITION, TEXCOORD, NORMAL, BLENDINDEXES, BLENDWEIGHTS, COLOR):
            arrays.append(array)                # tangents, custom arrays: kept as the file had them
    model.vertex_arrays = arrays + list(ours.values())


def _same_blend(ours: dict, kept: IqmModel) -> bool:
    """Whether the file's blend indexes and weights are the scene's: the same joint for every weight above
    0, each weight within one 255th (the indexes of weights of 0 are the writer's padding)."""
    index, weight = ours.get(BLENDINDEXES), ours.get(BLENDWEIGHTS)
    their_index, their_weight = kept.array(BLENDINDEXES), kept.array(BLENDWEIGHTS)
    if any(a is None for a in (index, weight, their_index, their_weight)) or \
            len({a.data.shape for a in (index, weight, their_index, their_weight)}) != 1:
        return False
    mine_w, file_w = weight.data.astype(np.int64), their_weight.data.astype(np.int64)
    used = file_w > 0
    return bool(np.abs(mine_w - file_w).max(initial=0) <= CLOSE[BLENDWEIGHTS] and
                np.array_equal(np.where(used, index.data, 0), np.where(used, their_index.data, 0)) and
                not (mine_w[~used] > CLOSE[BLENDWEIGHTS]).any())


STILL = 1e-5                        # a channel the file holds no bit for may move this much (float noise)


def kept_joints(joints: np.ndarray, kept: IqmModel) -> np.ndarray:
    """The file's joint records where the scene's bind pose is the file's (names, parents, and every
    value within :data:`STILL`, a quaternion or its negative), else ``joints``."""
    if len(joints) != len(kept.joints) or not np.array_equal(joints["name"], kept.joints["name"]) or \
            not np.array_equal(joints["parent"], kept.joints["parent"]):
        return joints
    rotate, theirs = joints["rotate"].astype(np.float64), kept.joints["rotate"].astype(np.float64)
    turned = np.minimum(np.abs(rotate - theirs).max(axis=1), np.abs(rotate + theirs).max(axis=1))
    near = all(np.abs(joints[f].astype(np.float64) - kept.joints[f]).max(initial=0.0) <= STILL
               for f in ("translate", "scale"))
    return np.array(kept.joints) if near and turned.max(initial=0.0) <= STILL else joints


def kept_encoding(values: np.ndarray, kept: IqmModel, names: np.ndarray, parents: np.ndarray,
                  rows: np.ndarray | None = None):
    """(poses, frames) of (F, P, 10) channel ``values`` quantised with the file's own poses (offset,
    scale and mask per channel), or None where they cannot hold them: other joints, a channel outside
    the file's range, or one the file holds no bit for that moves (past :data:`STILL`, float noise).
    A frame's values come back within half the file's step (or that noise), as a new quantisation's
    would; a frame whose pose is the file's frame it stands for (``rows``: the file's frame of each
    frame, -1 none; None: frame k for frame k when the counts are equal) within :data:`STILL`,
    quaternions made unit, is that row as it was (anims left out or reordered keep their rows). Returns
    (poses, frames, the file's frame whose row each frame is, -1 where it is not the file's row)."""
    poses = kept.poses
    if len(poses) != values.shape[1] or not np.array_equal(poses["parent"], parents) or \
            len(kept.joints) != len(names) or not np.array_equal(kept.joints["name"], names):
        return None
    bits = ((poses["mask"].astype(np.uint32)[:, None] >> np.arange(10, dtype=np.uint32)) & 1).astype(bool)
    offset = poses["channeloffset"].astype(np.float64)
    scale = poses["channelscale"].astype(np.float64)
    values = values.astype(np.float32).astype(np.float64)      # as encode_channels takes them
    still = np.abs(values - offset)[:, ~bits]
    if (still > STILL * np.maximum(1.0, np.abs(offset[~bits]))).any():
        return None
    safe = np.where(bits, np.where(scale > 0, scale, 1.0), 1.0)
    steps = ((values - offset) / safe)[:, bits]
    # past the range by half a step, or by float noise (a channel a file masked for a range of noise)
    slack = np.maximum(0.5, STILL * np.maximum(1.0, np.abs(offset)) / safe)[bits]
    if not len(values) or (steps < -slack).any() or (steps > 0xFFFF + slack).any():
        return None
    frames = np.clip(np.rint(steps), 0, 0xFFFF).astype(np.uint16)
    if rows is None:
        rows = np.arange(len(frames)) if kept.frames.shape == frames.shape else np.full(len(frames), -1)
    mapped = np.flatnonzero((rows >= 0) & (rows < len(kept.frames)))
    files = np.full(len(frames), -1, np.int64)
    if len(mapped):                                   # the scene's pose is the file's: the file's very row
        source = rows[mapped]
        same = np.abs(values[mapped] - decoded_channels(kept)[source]).max(axis=(1, 2)) <= STILL
        frames[mapped[same]] = kept.frames[source[same]]
        whole = (frames[mapped] == kept.frames[source]).all(axis=1)
        files[mapped[whole]] = source[whole]
    return np.array(poses), frames, files


def kept_bounds(model: IqmModel, kept: IqmModel, files: np.ndarray) -> np.ndarray:
    """The file's frame whose bounds record each frame of ``model`` keeps (-1: computed): ``files`` (the
    file's frame whose row each frame is, :func:`kept_encoding`) while everything else that decides a
    frame's bounds is the file's, byte for byte: the joints (the bind pose) and poses (the quantisation),
    and the skinned vertices (positions, blend indexes and weights as written); none where the file has
    no bounds, so those are computed (as for a model made in Blender)."""
    none = np.full(model.num_frames, -1, np.int64)
    if kept.bounds is None or len(files) != model.num_frames or \
            not all(_same_bytes(a, b) for a, b in ((model.joints, kept.joints), (model.poses, kept.poses))):
        return none
    for kind in (POSITION, BLENDINDEXES, BLENDWEIGHTS):
        ours, theirs = model.array(kind), kept.array(kind)
        if ours is None or theirs is None or ours.format != theirs.format or not _same_bytes(ours.data, theirs.data):
            return none
    return np.asarray(files, np.int64)


def _same_bytes(a: np.ndarray, b: np.ndarray) -> bool:
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


def decoded_channels(kept: IqmModel) -> np.ndarray:
    """(F, P, 10) the file's channels as an import poses Blender's bones with them: each quaternion made
    unit, w <= 0 (the export reads them back so; a quantised quaternion is off unit by a few steps)."""
    values = frame_channels(kept).astype(np.float64)
    quaternion = values[..., 3:7]
    quaternion /= np.maximum(np.linalg.norm(quaternion, axis=-1, keepdims=True), 1e-30)
    quaternion *= np.where(quaternion[..., 3:] > 0, -1.0, 1.0)
    return values
