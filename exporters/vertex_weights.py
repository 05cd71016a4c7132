"""Skin weights read from a Blender mesh for the skeletal exports (MS3D, MD5): one row per vertex-group
membership whose group stands for an exported joint."""
from __future__ import annotations

import numpy as np

import bpy


def vertex_weights(mesh: bpy.types.Mesh, obj: bpy.types.Object, joint_index: dict[str, int]
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rows (vertex, joint, weight) of the vertex groups named in ``joint_index`` (group name -> joint),
    weights above 0 only. Blender has no bulk read of memberships, so this walks ``Vertex.groups`` once."""
    group_joint = np.array([joint_index.get(g.name, -1) for g in obj.vertex_groups] + [-1], dtype=np.int64)
    if not np.any(group_joint >= 0):
        return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.float64)
    entries = [(i, e.group, e.weight) for i, v in enumerate(mesh.vertices) for e in v.groups]
    if not entries:
        return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.float64)
    table = np.array(entries, dtype=np.float64)
    rows, groups, weights = table[:, 0].astype(np.int64), table[:, 1].astype(np.int64), table[:, 2]
    joints = group_joint[np.minimum(groups, len(group_joint) - 1)]
    keep = (joints >= 0) & (weights > 0)
    return rows[keep], joints[keep], weights[keep]
