"""Blender -> :class:`Md2Model`: frames, quantisation, normals, ST, skins, GL commands, limits.

Frames come from the timeline (one MD2 frame per scene frame) or one per shape key. A frame the
import created and the user did not change is written back with its original grid, bytes and
normal indices; other frames get a grid from their bounds and normals from the mesh.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np
import bpy

from ..formats.anorms import nearest_normal_index
from ..formats.errors import FormatError
from ..formats.md2 import FRAME_NAME_SIZE, LIMITS, SKIN_NAME_SIZE, Md2Model, frame_dtype
from ..formats.md2_glcmds import build_glcmds, glcmd_triangles
from ..formats.quantize import dequantize, frames_on_grid, quantize, quantize_frames
from .export_error import ExportError
from ..common.contract import (FRAME_NAMES, MD2_FRAMES, MD2_GLCMDS, MD2_SKIN, MD2_SKIN_FIELDS, MD2_SKIN_FOUND,
                               MD2_SKINS, MD2_ST, ST_INDEX_ATTRIBUTE)
from ..common.skin_images import material_image
from .animated_mesh import FrameExportOptions, MeshPart, frame_names, merged, sample_parts
from .md2_skins import new_skin_name
from .vertex_normals import vertex_normals

DEFAULT_SKIN_SIZE = 256


@dataclass
class Md2ExportOptions(FrameExportOptions):
    """Frame source, scale and transform; skins: 'PCX', 'PNG', 'TGA' or 'NAMES' (names only),
    ``skin_folder`` the folder part of new skin names (see :mod:`.md2_skins`), ``dither`` for PCX."""
    skins: str = "PCX"
    skin_path: str = ""
    skin_folder: str = ""
    dither: bool = False


@dataclass
class BuildResult:
    model: Md2Model
    warnings: list[str] = field(default_factory=list)
    frames_kept: int = 0
    frames_evaluated: int = 0
    skin_images: dict = field(default_factory=dict)   # skin name -> bpy image


def build_md2(context: bpy.types.Context, objects: list[bpy.types.Object], options: Md2ExportOptions,
              progress: Callable[[float], None] | None = None) -> BuildResult:
    parts, frames = sample_parts(context, objects, options, "MD2", (ST_INDEX_ATTRIBUTE,))
    if progress:
        progress(0.5)
    scene = context.scene
    first = parts[0].obj
    num_frames = len(parts[0].positions)
    skin_width, skin_height = _skin_size(first, [p.obj for p in parts], options.skins != "NAMES")
    names = frame_names(scene, first, frames, parts[0].key_names, options.frame_source)
    positions, tris_ccw, _ = merged(parts)
    tri_xyz = tris_ccw[:, ::-1].astype(np.uint16)
    st_table, tri_st = _st(parts, skin_width, skin_height)
    skins, skin_images = _skins(first, [p.obj for p in parts], options.skin_folder)
    _check_limits(first.name, positions.shape[1], len(tri_xyz), num_frames, names, skins)

    result = BuildResult(model=None, skin_images=skin_images)  # type: ignore[arg-type]
    stored = _stored_frames(first, positions.shape[1]) if len(parts) == 1 else None
    scale, translate, verts, normals, kept = _quantize(positions, names, stored)
    if not kept.all():
        recompute = np.flatnonzero(~kept)
        normals[recompute] = nearest_normal_index(vertex_normals(
            dequantize(verts[recompute], scale[recompute], translate[recompute]), tris_ccw))
    result.frames_kept = int(kept.sum())
    result.frames_evaluated = sum(p.frames_evaluated for p in parts)
    glcmds = _glcmds(first, len(parts), tri_xyz, tri_st, st_table, skin_width, skin_height)
    result.model = Md2Model(skin_width=skin_width, skin_height=skin_height, skins=skins, st=st_table,
                            tri_xyz=tri_xyz, tri_st=tri_st, frame_names=names, frame_scale=scale,
                            frame_translate=translate, frame_verts=verts, frame_normals=normals,
                            glcmds=glcmds, skin_name_raw=_stored_skin_fields(first, skins),
                            frame_name_raw=[stored.name_field(n) or b"" for n in names] if stored else None)
    if progress:
        progress(1.0)
    return result


def _skin_size(obj: bpy.types.Object, objects: list[bpy.types.Object], one_size: bool) -> tuple[int, int]:
    """The imported skin size, else the images' size; with ``one_size`` images of different sizes
    (which one header size cannot describe) are refused."""
    settings = obj.classic_model
    if settings.skin_width > 0 and settings.skin_height > 0:
        return settings.skin_width, settings.skin_height
    sizes: dict[tuple[int, int], str] = {}
    for each in objects:
        for slot in each.material_slots:
            image = material_image(slot.material)
            if image is not None and image.size[0] > 0:
                sizes.setdefault((int(image.size[0]), int(image.size[1])), image.name)
    if one_size and len(sizes) > 1:
        listed = ", ".join(f"{name!r} {w}x{h}" for (w, h), name in sizes.items())
        raise ExportError(f"{obj.name}: the skin images differ in size ({listed}); an MD2 has one skin size, "
                          "so scale them to one size or export with Skins: Names")
    return next(iter(sizes), (DEFAULT_SKIN_SIZE, DEFAULT_SKIN_SIZE))


def _st(parts: list[MeshPart], width: int, height: int) -> tuple[np.ndarray, np.ndarray]:
    """ST table and per-triangle ST indices in file corner order (the inverse of the import's UVs)."""
    uvs = np.concatenate([p.topology.corner_uvs for p in parts])[:, ::-1]
    s = np.rint(uvs[..., 0] * width - 0.5)
    t = np.rint((1.0 - uvs[..., 1]) * height - 0.5)
    if not (np.all(np.isfinite(s)) and np.all(np.isfinite(t))):
        raise ExportError(f"object {parts[0].obj.name!r} has non-finite UV coordinates")
    if s.min() < -32768 or s.max() > 32767 or t.min() < -32768 or t.max() > 32767:
        raise ExportError(f"object {parts[0].obj.name!r} has UVs too far outside the skin for 16-bit ST")
    corner_st = np.stack([s, t], axis=-1).astype(np.int16)
    if len(parts) == 1:
        kept = _stored_st(parts[0], corner_st)
        if kept is not None:
            return kept
    flat = corner_st.reshape(-1, 2)
    unique, first, inverse = np.unique(flat, axis=0, return_index=True, return_inverse=True)
    order = np.argsort(first)
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    return unique[order].astype(np.int16), rank[inverse.ravel()].reshape(-1, 3).astype(np.uint16)


def _stored_st(part: MeshPart, corner_st: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """The imported ST table and indices, if they still give exactly these corner STs."""
    blob = part.obj.data.get(MD2_ST)
    index = part.topology.int_attributes.get(ST_INDEX_ATTRIBUTE)
    if blob is None or index is None:
        return None
    table = np.frombuffer(bytes(blob), dtype="<i2").reshape(-1, 2)
    index = index[:, ::-1]
    if index.min(initial=0) < 0 or index.max(initial=-1) >= len(table):
        return None
    if not np.array_equal(table[index], corner_st):
        return None
    return table.astype(np.int16), index.astype(np.uint16)


@dataclass
class _StoredFrames:
    """The frames the import kept on the mesh, by frame name."""
    index: dict[str, int]
    scale: np.ndarray       # (N, 3) float32
    translate: np.ndarray   # (N, 3) float32
    verts: np.ndarray       # (N, V, 3) uint8
    normals: np.ndarray     # (N, V) uint8
    name_fields: list[bytes]  # the 16-byte name fields as the file had them

    def name_field(self, name: str) -> bytes | None:
        i = self.index.get(name)
        return self.name_fields[i] if i is not None else None


def _stored_frames(obj: bpy.types.Object, num_vertices: int) -> _StoredFrames | None:
    mesh = obj.data
    blob, names = mesh.get(MD2_FRAMES), mesh.get(FRAME_NAMES)
    if blob is None or names is None or not len(names):
        return None
    blob = bytes(blob)
    if len(blob) != len(names) * frame_dtype(num_vertices).itemsize:
        return None
    records = np.frombuffer(blob, dtype=frame_dtype(num_vertices))
    return _StoredFrames({str(n): i for i, n in enumerate(names)}, records["head"]["scale"],
                         records["head"]["translate"], records["verts"]["v"], records["verts"]["normal_index"],
                         [bytes(n).ljust(FRAME_NAME_SIZE, b"\0") for n in records["head"]["name"]])


def _quantize(positions: np.ndarray, names: list[str], stored: _StoredFrames | None):
    """Grids, bytes and normals per frame; ``kept`` marks frames written back exactly as imported.

    A frame the import created keeps its grid while every vertex still lies on it; a frame whose
    bytes are also unchanged keeps its normal indices. Other frames get a grid from their bounds.
    """
    count = len(names)
    match = np.array([stored.index.get(n, -1) for n in names] if stored else [-1] * count, dtype=np.int64)
    has = match >= 0
    scale = np.empty((count, 3), np.float32)
    translate = np.empty((count, 3), np.float32)
    verts = np.empty(positions.shape, np.uint8)
    normals = np.zeros(positions.shape[:2], np.uint8)
    kept = np.zeros(count, dtype=bool)
    if has.any():
        scale[has], translate[has] = stored.scale[match[has]], stored.translate[match[has]]
        verts[has] = stored.verts[match[has]]
        decoded = dequantize(verts[has], scale[has], translate[has])
        kept[has] = np.all(decoded == positions[has], axis=(1, 2))
        moved = has & ~kept
        if moved.any():
            verts[moved] = quantize(positions[moved], scale[moved], translate[moved])
            has[moved] = frames_on_grid(positions[moved], verts[moved], scale[moved], translate[moved])
            kept[moved] = has[moved] & np.all(verts[moved] == stored.verts[match[moved]], axis=(1, 2))
        normals[kept] = stored.normals[match[kept]]
    if not has.all():
        scale[~has], translate[~has], verts[~has] = quantize_frames(positions[~has])
    return scale, translate, verts, normals, kept


def _skins(first: bpy.types.Object, objects: list[bpy.types.Object], folder: str) -> tuple[list[str], dict]:
    """Skin paths from the materials (the imported path, else ``<folder>/<image or material>.pcx``)
    and the image of each; materials the import added for images the file does not name are left out."""
    names: list[str] = []
    images: dict = {}
    for obj in objects:
        for slot in obj.material_slots:
            mat = slot.material
            if mat is None or mat.get(MD2_SKIN_FOUND):
                continue
            skin = str(mat.get(MD2_SKIN, ""))
            if not skin:
                image = material_image(mat)
                stem = Path(image.filepath_raw or image.name).stem if image is not None else mat.name
                skin = new_skin_name(folder, stem)
            if skin not in names:
                names.append(skin)
                images[skin] = material_image(mat)
    stored = [str(s) for s in first.data.get(MD2_SKINS, [])]
    if stored and set(stored) == set(names):
        return stored, images
    return names, images


def _stored_skin_fields(obj: bpy.types.Object, skins: list[str]) -> list[bytes] | None:
    """The imported 64-byte skin fields, when the skins are still the imported ones in order."""
    blob = obj.data.get(MD2_SKIN_FIELDS)
    if blob is None or [str(s) for s in obj.data.get(MD2_SKINS, [])] != skins:
        return None
    blob = bytes(blob)
    return [blob[i:i + SKIN_NAME_SIZE] for i in range(0, len(blob), SKIN_NAME_SIZE)]


def _check_limits(name: str, vertices: int, triangles: int, frames: int, frame_names: list[str],
                  skins: list[str]) -> None:
    problems = []
    for what, count, limit in (("vertices", vertices, LIMITS.vertices), ("triangles", triangles, LIMITS.triangles),
                               ("frames", frames, LIMITS.frames), ("skins", len(skins), LIMITS.skins)):
        if count > limit:
            problems.append(f"{count} {what}, {count - limit} over the limit of {limit}")
    for frame_name in frame_names:
        size = len(frame_name.encode("latin-1", "replace"))
        if size >= FRAME_NAME_SIZE:
            problems.append(f"frame name {frame_name!r} is {size} characters, "
                            f"{size - LIMITS.frame_name} over the limit of {LIMITS.frame_name}")
    for skin in skins:
        size = len(skin.encode("latin-1", "replace"))
        if size >= SKIN_NAME_SIZE:
            problems.append(f"skin name {skin!r} is {size} characters, "
                            f"{size - LIMITS.skin_name} over the limit of {LIMITS.skin_name}")
    for text in frame_names + skins:
        try:
            text.encode("latin-1")
        except UnicodeEncodeError:
            problems.append(f"name {text!r} has characters that cannot be stored (Latin-1 only)")
    if problems:
        raise ExportError(f"{name}: cannot export as MD2: " + "; ".join(problems[:5])
                          + (f" (and {len(problems) - 5} more)" if len(problems) > 5 else ""))


def _glcmds(first: bpy.types.Object, num_parts: int, tri_xyz: np.ndarray, tri_st: np.ndarray,
            st: np.ndarray, width: int, height: int) -> np.ndarray:
    """The imported GL commands if they still draw these triangles with these texels, else new ones."""
    blob = first.data.get(MD2_GLCMDS) if num_parts == 1 else None
    if blob:
        old = np.frombuffer(bytes(blob), dtype="<i4")
        try:
            drawn = glcmd_triangles(old, int(tri_xyz.max(initial=0)) + 1)
        except FormatError:
            drawn = None
        if drawn is not None and _draws_same(drawn, tri_xyz, st[tri_st], width, height):
            return old.copy()
    return build_glcmds(tri_xyz, tri_st, st, width, height)


def _canonical_order(verts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rotate each triangle so its smallest vertex comes first (winding kept); sort the triangles."""
    verts = np.asarray(verts, dtype=np.int64)
    shift = np.argmin(verts, axis=1)
    cols = (shift[:, None] + np.arange(3)[None, :]) % 3
    rotated = np.take_along_axis(verts, cols, axis=1)
    order = np.lexsort(rotated.T[::-1])
    return rotated[order], (order, cols[order])


def _draws_same(drawn, tri_xyz: np.ndarray, corner_st: np.ndarray, width: int, height: int) -> bool:
    """Same triangles with the same winding, each corner's GL texel within the same skin texel."""
    verts, s, t = drawn
    if len(verts) != len(tri_xyz):
        return False
    a, (a_order, a_cols) = _canonical_order(verts)
    b, (b_order, b_cols) = _canonical_order(tri_xyz)
    if not np.array_equal(a, b):
        return False
    gl = np.stack([np.take_along_axis(np.asarray(s)[a_order], a_cols, 1) * width,
                   np.take_along_axis(np.asarray(t)[a_order], a_cols, 1) * height], axis=-1)
    texel = np.take_along_axis(corner_st[b_order], b_cols[..., None], 1).astype(np.float64) + 0.5
    return bool(np.all(np.abs(gl - texel) <= 0.5 + 1e-3))
