"""What MD2 and MDL need to light a model as Blender shades it: polygons, custom normals, mirroring,
split normals, and the normal index of every written vertex at every frame.

* Normals are Blender's vertex normals (:mod:`.vertex_normals`) of the mesh's vertices, taken
  before MDL splits vertices at UV seams, so every copy of a vertex carries the same index; the
  index is the nearest of the 162 anorms (``formats/anorms.py``) and a vertex whose normal did not
  change since the previous frame keeps its index.
* A mirrored object (the transform written has a negative determinant) has its triangles reversed
  so every face keeps facing as in Blender, and its normals follow (they point out).
* *Split Normals*: corners of a vertex whose Blender corner normals differ (flat faces, sharp
  edges, custom normals) become copies of the vertex, each lit by its own corners.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

import bpy

from ...formats.anorms import steady_normal_indices
from .custom_normals import merged_edges, vertex_edges
from .vertex_normals import PolygonCorners, custom_coefficients, grouped_normals, polygon_corners


@dataclass
class Shading:
    """A mesh's polygons by corner, its loop triangles by corner and its corner normals."""
    corners: PolygonCorners
    triangle_corners: np.ndarray       # (T, 3) corners of each loop triangle, as Topology.triangles
    corner_normals: np.ndarray         # (C, 3) float32 Blender's corner normals of the mesh read
    copies: VertexCopies | None = None   # Split Normals: the vertex copies written
    vertex_part: np.ndarray | None = None  # (V,) which object (of ``linears``) each vertex belongs to
    linears: np.ndarray | None = None      # (objects, 3, 3) each object's linear map, local -> file


def read_shading(mesh: bpy.types.Mesh, triangle_loops: np.ndarray) -> Shading:
    """Polygons, corner normals and custom normals of ``mesh`` (loop triangles already computed)."""
    num_loops, num_polygons = len(mesh.loops), len(mesh.polygons)
    corner_vertex = np.empty(num_loops, dtype=np.int32)
    mesh.loops.foreach_get("vertex_index", corner_vertex)
    start = np.empty(num_polygons, dtype=np.int32)
    size = np.empty(num_polygons, dtype=np.int32)
    mesh.polygons.foreach_get("loop_start", start)
    mesh.polygons.foreach_get("loop_total", size)
    corners = polygon_corners(corner_vertex, start, size)
    normals = np.empty(num_loops * 3, dtype=np.float32)
    mesh.corner_normals.foreach_get("vector", normals)
    normals = normals.reshape(-1, 3)
    if mesh.has_custom_normals and num_loops:
        positions = np.empty(len(mesh.vertices) * 3, dtype=np.float32)
        mesh.vertices.foreach_get("co", positions)
        corners.custom = custom_coefficients(positions.reshape(-1, 3), corners, normals)
    return Shading(corners, np.asarray(triangle_loops, dtype=np.int64).reshape(-1, 3), normals)


def merged_shading(shadings: list[Shading], vertex_counts: list[int]) -> Shading:
    """Several meshes' shading as one mesh's (vertices and corners numbered on, in order)."""
    if len(shadings) == 1:
        return shadings[0]
    vertex_offsets = np.cumsum([0] + vertex_counts)
    corner_offsets = np.cumsum([0] + [len(s.corners.corner_vertex) for s in shadings])
    polygon_offsets = np.cumsum([0] + [len(s.corners.polygon_first) for s in shadings])
    parts = [s.corners for s in shadings]

    def joined(name, offsets):
        return np.concatenate([getattr(p, name) + off for p, off in zip(parts, offsets)])
    custom = edges = None
    if any(p.custom is not None for p in parts):
        custom = np.concatenate([p.custom if p.custom is not None else np.full((len(p.corner_vertex), 2), np.nan)
                                 for p in parts])
        edges = merged_edges([p.edges if p.edges is not None else
                              vertex_edges(p.corner_vertex, p.corner_next, p.corner_prev, count)
                              for p, count in zip(parts, vertex_counts)], vertex_counts)
    corners = PolygonCorners(joined("corner_vertex", vertex_offsets), joined("corner_polygon", polygon_offsets),
                             joined("corner_next", corner_offsets), joined("corner_prev", corner_offsets),
                             joined("polygon_first", corner_offsets), custom, edges)
    return Shading(corners, np.concatenate([s.triangle_corners + off for s, off in zip(shadings, corner_offsets)]),
                   np.concatenate([s.corner_normals for s in shadings]))


def written_linear(obj: bpy.types.Object, apply_transform: bool, scale: float = 1.0) -> np.ndarray:
    """The 3x3 linear map from ``obj``'s coordinates to the file's: its world matrix (with Apply
    Transform; now, for an animated transform) times ``scale``. A negative determinant mirrors."""
    linear = np.array(obj.matrix_world, dtype=np.float64)[:3, :3] if apply_transform else np.eye(3)
    return linear * scale


def orient_topology(topology, flip: bool):
    """``topology`` (a :class:`.mesh_topology.Topology`) with every triangle's corners in reverse
    order when ``flip``: triangles, corner UVs, corner attributes and the shading's triangles."""
    if not flip:
        return topology
    shading = topology.shading
    if shading is not None:
        shading = replace(shading, triangle_corners=shading.triangle_corners[:, ::-1].copy())
    attributes = {name: (values[:, ::-1].copy() if np.ndim(values) == 2 else values)
                  for name, values in topology.int_attributes.items()}
    uvs = topology.corner_uvs[:, ::-1].copy() if topology.corner_uvs is not None else None
    return replace(topology, triangles=topology.triangles[:, ::-1].copy(), corner_uvs=uvs,
                   int_attributes=attributes, shading=shading)


@dataclass
class VertexCopies:
    """Split Normals: each corner's vertex copy and each copy's source vertex. A vertex's first copy
    keeps its index; further copies are appended after the mesh's vertices."""
    corner_copy: np.ndarray     # (C,) int64
    source_vertex: np.ndarray   # (N,) int64, N >= V
    added: int


def split_copies(shading: Shading, num_vertices: int) -> VertexCopies:
    """One copy per vertex and distinct corner normal (as Blender shades the mesh read)."""
    vertex = shading.corners.corner_vertex
    if not len(vertex):
        return VertexCopies(vertex.copy(), np.arange(num_vertices, dtype=np.int64), 0)
    normals = np.ascontiguousarray(shading.corner_normals, dtype=np.float32)
    keys = np.concatenate([vertex[:, None].astype(np.float64), normals.astype(np.float64)], axis=1)
    keys = np.where(keys == 0, 0.0, keys)                          # -0.0 and 0.0 are one normal
    _, first, inverse = np.unique(keys, axis=0, return_index=True, return_inverse=True)
    inverse = inverse.ravel()
    group_vertex = vertex[first]
    order = np.lexsort((first, group_vertex))                      # by vertex, then first corner
    leading = np.ones(len(order), dtype=bool)
    leading[1:] = group_vertex[order][1:] != group_vertex[order][:-1]
    index = np.empty(len(first), dtype=np.int64)
    index[order[leading]] = group_vertex[order[leading]]
    extra = order[~leading]
    extra = extra[np.argsort(first[extra], kind="stable")]          # appended in corner order
    index[extra] = num_vertices + np.arange(len(extra))
    source = np.concatenate([np.arange(num_vertices, dtype=np.int64), group_vertex[extra].astype(np.int64)])
    return VertexCopies(index[inverse], source, len(extra))


def shade_model(sampled, apply_transform: bool, scale: float, split_normals: bool) -> Shading:
    """Prepare a :class:`.pipeline.SampledModel` for lighting and return its shading: mirrored parts
    get their triangles reversed (``sampled.triangles``, ``sampled.uvs`` and the parts' topology);
    with ``split_normals`` vertices are split into copies (``sampled.positions``, ``sampled.triangles``)
    and ``sampled.info`` says how many were added."""
    parts = sampled.parts
    linears = np.array([written_linear(p.obj, apply_transform, scale) for p in parts])
    flips = np.linalg.det(linears) < 0
    for part, flip in zip(parts, flips):
        part.topology = orient_topology(part.topology, flip)
    if any(flips):
        offsets = np.cumsum([0] + [p.topology.num_vertices for p in parts])
        sampled.triangles = np.concatenate([p.topology.triangles + off for p, off in zip(parts, offsets)])
        sampled.uvs = np.concatenate([p.topology.corner_uvs for p in parts])
    counts = [p.topology.num_vertices for p in parts]
    shading = merged_shading([p.topology.shading for p in parts], counts)
    shading = replace(shading, linears=linears, vertex_part=np.repeat(np.arange(len(parts)), counts))
    if split_normals:
        copies = split_copies(shading, sampled.positions.shape[1])
        sampled.positions = sampled.positions[:, copies.source_vertex]
        sampled.triangles = copies.corner_copy[shading.triangle_corners]
        shading = replace(shading, copies=copies)
        sampled.info.append(split_report(copies))
    return shading


def normal_indices(positions: np.ndarray, shading: Shading) -> np.ndarray:
    """(F, V) uint8 anorm indices of (F, V, 3) positions of the mesh's vertices (or of its copies
    with Split Normals)."""
    return steady_normal_indices(shaded_normals(positions, shading))


def shaded_normals(positions: np.ndarray, shading: Shading) -> np.ndarray:
    """(F, V, 3) unit normals of the written vertices (or copies) as Blender shades the objects: taken
    on each object's own coordinates (the file's through the inverse of its linear map) and carried
    to the file's by the inverse transpose, as Blender draws a scaled, sheared or mirrored object."""
    copies = shading.copies
    groups = copies.corner_copy if copies is not None else None
    part = shading.vertex_part
    if part is not None and copies is not None:
        part = part[copies.source_vertex]
    inverse = _inverses(shading.linears)
    if inverse is None or part is None:
        return grouped_normals(positions, shading.corners, groups, positions.shape[1] if groups is not None else None)
    local = np.einsum("fvk,vjk->fvj", np.asarray(positions, dtype=np.float64), inverse[part])
    normals = grouped_normals(local, shading.corners, groups, positions.shape[1] if groups is not None else None)
    normals = np.einsum("fvk,vkj->fvj", normals.astype(np.float64), inverse[part])
    return (normals / np.maximum(np.linalg.norm(normals, axis=-1, keepdims=True), 1e-300)).astype(np.float32)


def _inverses(linears: np.ndarray | None) -> np.ndarray | None:
    """Each object's inverse linear map, or None when there is nothing to undo: every map a rotation
    times a uniform positive scale (normals are the same either way) or one cannot be inverted."""
    if linears is None:
        return None
    gram = np.einsum("pki,pkj->pij", linears, linears)
    size = np.einsum("pii->p", gram)[:, None, None] / 3.0
    similar = np.allclose(gram, size * np.eye(3), rtol=0.0, atol=1e-9 * size.max()) and np.all(np.linalg.det(linears) > 0)
    if similar:
        return None
    if np.any(np.abs(np.linalg.det(linears)) <= 1e-12 * np.maximum(size[:, 0, 0], 1e-300) ** 1.5):
        return None
    return np.linalg.inv(linears)


def split_report(copies: VertexCopies) -> str:
    """What Split Normals did, for the export report."""
    return (f"Split Normals: {copies.added} vertices added for flat faces, sharp edges and split custom "
            f"normals ({len(copies.source_vertex)} in all)")
