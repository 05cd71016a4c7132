"""Sampled mesh objects -> MD3 surfaces: which triangles each surface holds, its vertices, texture
coordinates, triangles in file order and shaders.

* One surface per mesh object; an object made in Blender whose faces use several materials gives one
  surface per material (``<object>_<material>``), since an MD3 surface has one shader the game draws.
  An imported surface (``MD3_SURFACE``) stays one surface with its own shader list; a mesh an import
  merged (*Merge Surfaces*: every surface's records, :mod:`...common.md3.surfaces`) gives its surfaces
  back, surface s from material slot s and its own vertex range, while every face of slot s still uses
  only that range's vertices and the mesh has the vertices its records count (else one surface per
  material, as a mesh made in Blender).
* MD3 has one texture coordinate per vertex (``md3St_t`` beside ``md3XyzNormal_t``), so a vertex whose
  corners have different UVs (a seam) becomes one vertex per UV: the first keeps its place, the others
  follow the object's vertices. With *Split Normals* the vertex copies of
  :func:`..sampling.shading.shade_model` are split the same way. A surface of a whole object keeps every
  vertex (an imported surface's unused vertices too), so vertex i of an imported surface stays vertex i.
* ``st = (u, 1 - v)`` (Quake III's t runs down the image); triangles are written clockwise seen from
  the front, Blender's counter-clockwise corners reversed (the corpus's face windings against their
  normals; docs/dev/format-facts.md), with an imported surface's degenerate triangles put back.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

import bpy

from ...common.contract import MD3_ROOT
from ...common.md3.contract import MD3_SHADER, MD3_SKIN_SET, MD3_SURFACE
from ...common.md3.surfaces import SurfaceRecords, mesh_surfaces
from ...common.skin_images import material_image
from ...formats.binary import decode_name
from ...formats.md3.records import SHADER, ST, Md3Shader
from ..sampling.kept_triangles import insert_at
from .objects import surface_name


@dataclass
class SurfaceGeometry:
    """One surface to write: ``source`` maps its vertices to the sampled model's (merged) vertices."""
    obj: bpy.types.Object
    name: str
    name_raw: bytes | None
    shaders: list[Md3Shader]
    source: np.ndarray              # (Vs,) int64 merged vertex (or copy) of each surface vertex
    st: np.ndarray                  # (Vs, 2) float32
    triangles: np.ndarray           # (Ts, 3) int32, file order (clockwise), degenerate ones put back
    whole: bool = False             # every vertex of the object, in its order (imported surfaces)
    material: bpy.types.Material | None = None   # the material it stands for (the first, for a whole object)
    records: SurfaceRecords | None = None        # the records an import kept for it (whole surfaces)
    notes: list[str] = field(default_factory=list)


def shader_name(material: bpy.types.Material | None, folder: str) -> str:
    """The shader a material stands for: the one an import recorded, else ``<folder>/<image>.tga`` (the
    TGA the export writes of its image; Quake III's ``R_FindImageFile`` also finds a .jpg or .png of that
    name), else the material's name."""
    if material is None:
        return ""
    recorded = material.get(MD3_SHADER)
    if recorded is not None:             # an empty shader name is a name too (files have them)
        return str(recorded)
    image = material_image(material)
    if image is not None:
        path = Path(bpy.path.abspath(image.filepath_raw)) if image.filepath_raw else None
        stem = path.stem if path is not None and path.stem else Path(image.name).stem or image.name
        return f"{folder}/{stem}.tga" if folder else f"{stem}.tga"
    return material.name


def _kept_shaders(kept: SurfaceRecords | None) -> list[Md3Shader] | None:
    blob = kept.shaders if kept is not None else None
    if blob is None or len(blob) % SHADER.itemsize:
        return None
    records = np.frombuffer(blob, SHADER)
    return [Md3Shader(decode_name(r["name"].tobytes()), int(r["shader_index"]), r["name"].tobytes()) for r in records]


def _skin_set_shown(obj: bpy.types.Object) -> bool:
    """True while the model root shows one of its ``.skin`` sets: the materials then stand for the skin
    file's shaders, which that file keeps, not for the ones the MD3 names."""
    while obj is not None:
        if obj.get(MD3_ROOT) is not None:
            return bool(obj.get(MD3_SKIN_SET, ""))
        obj = obj.parent
    return False


def _shaders(obj: bpy.types.Object, materials: list, folder: str, records: SurfaceRecords | None) -> list[Md3Shader]:
    """An imported surface's shader records while its materials still name them (or it has none, or they
    show a skin set), else one shader per material."""
    names = [shader_name(m, folder) for m in materials if m is not None]
    kept = _kept_shaders(records)
    wanted = set(names) - ({""} if not kept else set())     # a surface without shaders: its material names none
    if kept is not None and (wanted <= {s.name for s in kept} or _skin_set_shown(obj)):
        return kept                                                      # an import may make fewer materials
    return [Md3Shader(n) for n in dict.fromkeys(names)]


def _vertices(corner_vertex: np.ndarray, corner_uv: np.ndarray, base: np.ndarray | None) -> tuple:
    """Surface vertices from corners: one per (vertex, UV). ``base``: vertices the surface holds in this
    order whatever their corners (None: the vertices the corners use, in index order). Returns
    (source (Vs,), uv (Vs, 2) or NaN for a base vertex no corner uses, corner -> surface vertex (C,))."""
    uv32 = corner_uv.astype(np.float32)
    keys = np.concatenate([corner_vertex[:, None].astype(np.float64), uv32.astype(np.float64)], axis=1)
    keys = np.where(keys == 0, 0.0, keys)                                   # -0.0 and 0.0 are one UV
    if len(keys):
        _, first, inverse = np.unique(keys, axis=0, return_index=True, return_inverse=True)
        inverse = inverse.ravel()
    else:
        first = inverse = np.zeros(0, np.int64)
    key_vertex = corner_vertex[first]
    order = np.lexsort((first, key_vertex))
    leading = np.ones(len(order), bool)
    leading[1:] = key_vertex[order][1:] != key_vertex[order][:-1]
    lead_keys = order[leading]
    if base is None:
        base = np.unique(corner_vertex)
    base = np.asarray(base, np.int64)                      # sorted: a range or np.unique
    index = np.empty(len(first), np.int64)
    index[lead_keys] = np.searchsorted(base, key_vertex[lead_keys])
    extra = order[~leading]
    extra = extra[np.argsort(first[extra], kind="stable")]
    index[extra] = len(base) + np.arange(len(extra))
    source = np.concatenate([np.asarray(base, np.int64), key_vertex[extra].astype(np.int64)])
    uv = np.full((len(source), 2), np.nan, np.float32)
    uv[index] = uv32[first]
    return source, uv, index[inverse] if len(inverse) else np.zeros(0, np.int64)


def _st(records: SurfaceRecords | None, uv: np.ndarray) -> np.ndarray:
    """(Vs, 2) float32 st: an imported surface's records while every UV still is what they gave, else
    ``(u, 1 - v)``; vertices no corner uses keep their record (else 0, 0)."""
    blob = records.st if records is not None else None
    kept = np.frombuffer(blob, ST)["st"] if blob is not None and len(blob) % ST.itemsize == 0 else None
    used = np.all(np.isfinite(uv), axis=1)
    if kept is not None and len(kept) == len(uv):
        shown = np.stack([kept[:, 0], np.float32(1.0) - kept[:, 1]], axis=1).astype(np.float32)
        if np.array_equal(shown[used], uv[used]):
            return kept.copy()
    st = np.zeros_like(uv)
    st[used, 0] = uv[used, 0]
    st[used, 1] = np.float32(1.0) - uv[used, 1]
    if kept is not None and len(kept) == len(uv):
        st[~used] = kept[~used]
    return st


def _degenerate(records: SurfaceRecords | None, triangles: np.ndarray, num_vertices: int) -> np.ndarray:
    rows = records.degenerate if records is not None else None
    if rows is None or not len(rows) or rows["indexes"].min() < 0 or rows["indexes"].max() >= num_vertices:
        return triangles
    return insert_at(triangles, rows["indexes"].astype(np.int32), rows["index"])


def shader_images(surfaces: list[SurfaceGeometry], folder: str) -> dict[str, bpy.types.Image]:
    """Shader name -> the image it names, for the shaders made from a material's image (not an imported
    surface's own, nor a shader an import recorded): the textures the export writes."""
    out = {}
    for surface in surfaces:
        material = surface.material
        image = material_image(material) if material is not None and material.get(MD3_SHADER) is None else None
        if image is not None and image.size[0] > 0:
            name = shader_name(material, folder)
            if any(sh.name == name and sh.name_raw is None for sh in surface.shaders):
                out.setdefault(name, image)
    return out


def split_surfaces(sampled, shading, folder: str) -> list[SurfaceGeometry]:
    """The surfaces of a :class:`..sampling.pipeline.SampledModel` prepared by ``shade_model``."""
    parts = sampled.parts
    tri_counts = [len(p.topology.triangles) for p in parts]
    tri_offsets = np.cumsum([0] + tri_counts)
    vertex_offsets = np.cumsum([0] + [p.topology.num_vertices for p in parts])
    triangles = np.asarray(sampled.triangles, np.int64)
    uvs = np.asarray(sampled.uvs)
    out: list[SurfaceGeometry] = []
    for k, part in enumerate(parts):
        obj = part.obj
        rows = slice(tri_offsets[k], tri_offsets[k + 1])
        tris, corner_uv = triangles[rows], uvs[rows]
        slots = part.topology.material_index
        slots = np.zeros(len(tris), np.int32) if slots is None else np.asarray(slots)
        materials = [s.material for s in obj.material_slots]
        kept = mesh_surfaces(obj.data)
        merged = _merged_surfaces(kept, tris - vertex_offsets[k], slots, part.topology.num_vertices)
        if merged is not None:
            for records, chosen in merged:
                first = vertex_offsets[k] + records.first_vertex
                out.append(_whole_surface(obj, records, tris[chosen], corner_uv[chosen],
                                          np.arange(first, first + records.num_verts),
                                          materials[records.index:records.index + 1], folder))
            continue
        used = list(dict.fromkeys(materials[i] if 0 <= i < len(materials) else materials[-1]
                                  for i in np.unique(slots))) if len(materials) > 1 else materials
        if len(kept) == 1 or len(materials) <= 1 or len(used) == 1:
            out.append(_whole_surface(obj, kept[0] if len(kept) == 1 else None, tris, corner_uv,
                                      np.arange(vertex_offsets[k], vertex_offsets[k + 1]),
                                      materials if len(kept) == 1 or len(materials) <= 1 else used, folder))
            continue
        name = surface_name(obj)[0]
        slot_material = [materials[i] if 0 <= i < len(materials) else None for i in range(max(len(materials), 1))]
        slots = np.clip(slots, 0, len(slot_material) - 1)
        for material in used:
            chosen = np.array([m == material for m in slot_material], bool)[slots]
            source, uv, corner_index = _vertices(tris[chosen].reshape(-1), corner_uv[chosen].reshape(-1, 2), None)
            file_tris = corner_index.reshape(-1, 3)[:, ::-1].astype(np.int32)
            out.append(SurfaceGeometry(obj, f"{name}_{material.name if material is not None else 'none'}", None,
                                       _shaders(obj, [material], folder, None), source, _st(None, uv), file_tris,
                                       False, material))
    return out


def with_empty_surfaces(meshes: list[bpy.types.Object], surfaces: list[SurfaceGeometry],
                        folder: str) -> list[SurfaceGeometry]:
    """``surfaces`` with the imported surfaces that have no vertices put back in their place among
    ``meshes``: the sampling leaves a mesh without faces out, but an MD3 may hold such a surface (OpenArena's
    tony: ``l_belt``, no vertices or triangles) and an untouched import writes it back."""
    by_object = {s.obj.name: [] for s in surfaces}
    for surface in surfaces:
        by_object[surface.obj.name].append(surface)
    out = []
    for obj in meshes:
        if obj.name in by_object:
            out += by_object.pop(obj.name)
        elif len(obj.data.vertices) == 0 and obj.data.get(MD3_SURFACE) is not None:
            kept = mesh_surfaces(obj.data)
            records = kept[0] if len(kept) == 1 else None
            name, raw = surface_name(obj, records)
            materials = [slot.material for slot in obj.material_slots]
            out.append(SurfaceGeometry(obj, name, raw, _shaders(obj, materials, folder, records), np.zeros(0, np.int64),
                                       _st(records, np.zeros((0, 2), np.float32)), np.zeros((0, 3), np.int32),
                                       True, next((m for m in materials if m is not None), None), records))
    return out

def _whole_surface(obj: bpy.types.Object, records: SurfaceRecords | None, tris: np.ndarray, corner_uv: np.ndarray,
                   base: np.ndarray, materials: list, folder: str) -> SurfaceGeometry:
    """A surface of every vertex of ``base`` in its order (an imported surface, or a whole object)."""
    source, uv, corner_index = _vertices(tris.reshape(-1), corner_uv.reshape(-1, 2), base)
    file_tris = _degenerate(records, corner_index.reshape(-1, 3)[:, ::-1].astype(np.int32), len(source))
    name, raw = surface_name(obj, records)
    return SurfaceGeometry(obj, name, raw, _shaders(obj, materials, folder, records), source, _st(records, uv),
                           file_tris, True, next((m for m in materials if m is not None), None), records)


def _merged_surfaces(kept: list[SurfaceRecords], tris: np.ndarray, slots: np.ndarray,
                     num_vertices: int) -> list[tuple[SurfaceRecords, np.ndarray]] | None:
    """For a mesh holding several surfaces' records: each surface and which of the mesh's triangles
    (``tris`` in mesh vertex numbers, ``slots`` their material slots) are its own; None when the mesh
    is not one (any longer): vertices added or removed, or a face of slot s using another's vertex."""
    if len(kept) < 2 or sum(r.num_verts for r in kept) != num_vertices:
        return None
    owner = np.repeat(np.arange(len(kept)), [r.num_verts for r in kept])
    if len(tris) and (slots.min() < 0 or slots.max() >= len(kept) or (owner[tris] != slots[:, None]).any()):
        return None
    return [(records, slots == records.index) for records in kept]
