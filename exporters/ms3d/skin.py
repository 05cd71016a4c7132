"""MS3D skin weights and smoothing groups read from a Blender mesh (vertex groups -> the four
strongest joints with whole percentages; sharp edges -> smoothing groups)."""
from __future__ import annotations

import numpy as np

import bpy

from ..vertex_weights import vertex_weights as skin_rows

MAX_SMOOTHING_GROUP = 32


def vertex_weights(mesh: bpy.types.Mesh, obj: bpy.types.Object, joint_index: dict[str, int]
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rows (vertex, joint, weight) of the vertex groups named after exported joints (weights as float32,
    as MilkShape stores them)."""
    rows, joints, weights = skin_rows(mesh, obj, joint_index)
    return rows, joints, weights.astype(np.float32)


def dense_weights(rows: np.ndarray, joints: np.ndarray, weights: np.ndarray, count: int, num_joints: int) -> np.ndarray:
    width = max(num_joints, 1)
    flat = np.bincount(rows * width + joints, weights=weights, minlength=count * width)
    return flat.astype(np.float32).reshape(count, width)


def skin_from_weights(rows: np.ndarray, joints: np.ndarray, weights: np.ndarray, count: int
                      ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Own joint (V,), bone_ids (V, 3), weights (V, 3) from weight rows: the strongest four joints,
    percentages summing to 100 by largest remainder, the strongest as the vertex's own joint."""
    bone = np.full(count, -1, dtype=np.int64)
    ids = np.full((count, 3), -1, dtype=np.int64)
    percent = np.zeros((count, 3), dtype=np.int64)
    if not len(rows):
        return bone, ids, percent
    width = max(int(joints.max()) + 1, 4)
    dense = np.bincount(rows * width + joints, weights=weights.astype(np.float64),
                        minlength=count * width).reshape(count, width)
    order = np.argsort(-dense, axis=1, kind="stable")[:, :4]
    top = np.take_along_axis(dense, order, axis=1)
    total = top.sum(axis=1, keepdims=True)
    share = np.divide(top * 100.0, total, out=np.zeros_like(top), where=total > 0)
    whole = np.floor(share + 1e-9)
    missing = np.where(total[:, 0] > 0, 100 - whole.sum(axis=1), 0).astype(np.int64)
    by_fraction = np.argsort(-(share - whole), axis=1, kind="stable")
    bonus = (np.arange(4)[None, :] < missing[:, None]).astype(np.float64)
    np.put_along_axis(whole, by_fraction, np.take_along_axis(whole, by_fraction, axis=1) + bonus, axis=1)
    rank = np.argsort(-whole, axis=1, kind="stable")
    whole = np.take_along_axis(whole, rank, axis=1).astype(np.int64)
    order = np.take_along_axis(order, rank, axis=1)
    order[whole <= 0] = -1
    bone[:] = order[:, 0]
    ids[:] = order[:, 1:]
    percent[:] = np.where(order[:, :3] >= 0, whole[:, :3], 0)
    return bone, ids, percent


def smoothing_from_edges(mesh: bpy.types.Mesh) -> np.ndarray:
    """A smoothing group (1-32) per polygon: regions joined by smooth edges, neighbouring regions
    different; flat polygons get 0."""
    polygons = len(mesh.polygons)
    loop_edge = np.empty(len(mesh.loops), dtype=np.int32)
    mesh.loops.foreach_get("edge_index", loop_edge)
    loop_total = np.empty(polygons, dtype=np.int32)
    mesh.polygons.foreach_get("loop_total", loop_total)
    loop_poly = np.repeat(np.arange(polygons), loop_total)
    sharp = np.empty(len(mesh.edges), dtype=bool)
    mesh.edges.foreach_get("use_edge_sharp", sharp)
    smooth = np.empty(polygons, dtype=bool)
    mesh.polygons.foreach_get("use_smooth", smooth)
    parent = list(range(polygons))

    def find(a: int) -> int:
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a
    order = np.argsort(loop_edge, kind="stable")
    edges, polys = loop_edge[order], loop_poly[order]
    same = np.flatnonzero(edges[1:] == edges[:-1])
    pairs = [(int(polys[i]), int(polys[i + 1]), bool(sharp[edges[i]])) for i in same]
    for a, b, is_sharp in pairs:
        if not is_sharp and smooth[a] and smooth[b]:
            parent[find(a)] = find(b)
    region = np.array([find(p) for p in range(polygons)], dtype=np.int64)
    neighbours: dict[int, set[int]] = {}
    for a, b, _ in pairs:
        ra, rb = region[a], region[b]
        if ra != rb:
            neighbours.setdefault(ra, set()).add(rb)
            neighbours.setdefault(rb, set()).add(ra)
    color: dict[int, int] = {}
    for r in dict.fromkeys(region.tolist()):
        taken = {color.get(n) for n in neighbours.get(r, ())}
        color[r] = next((c for c in range(1, MAX_SMOOTHING_GROUP + 1) if c not in taken), 1)
    groups = np.array([color[r] for r in region.tolist()], dtype=np.int64)
    return np.where(smooth, groups, 0)


def stored_smoothing_holds(mesh: bpy.types.Mesh, stored: np.ndarray) -> bool:
    """True when every edge between polygons of different stored groups is sharp."""
    loop_edge = np.empty(len(mesh.loops), dtype=np.int32)
    mesh.loops.foreach_get("edge_index", loop_edge)
    loop_total = np.empty(len(mesh.polygons), dtype=np.int32)
    mesh.polygons.foreach_get("loop_total", loop_total)
    groups = np.repeat(stored.astype(np.int64), loop_total)
    sharp = np.empty(len(mesh.edges), dtype=bool)
    mesh.edges.foreach_get("use_edge_sharp", sharp)
    return bool(np.all(sharp[edges_between_groups(loop_edge, groups)]))


def edges_between_groups(loop_edge: np.ndarray, loop_group: np.ndarray) -> np.ndarray:
    """Edges whose corners carry more than one group value (the faces around them differ)."""
    order = np.argsort(loop_edge, kind="stable")
    edges, groups = loop_edge[order], loop_group[order]
    differ = (edges[1:] == edges[:-1]) & (groups[1:] != groups[:-1])
    return np.unique(edges[1:][differ])
