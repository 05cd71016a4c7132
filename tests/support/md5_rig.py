"""A small rigged model built in Blender for the MD5 export tests, and an MD5 skinning written here
from the format's description (not formats.md5.skinning): w = -sqrt(1 - x² - y² - z²), a frame's
components taken by flag bit from startIndex, parents first, vertex = Σ bias (q·p·q⁻¹ + joint)."""
from __future__ import annotations

import numpy as np

from .blender_helpers import evaluated_positions, rest_pose, stored_action


def rigged(bpy, name: str = "thing", with_actions: bool = True):
    """A 2 x 1 x 3 column of quads, 3 bones (root -> mid -> top), two materials (lower / upper half),
    a UV seam down one side; each vertex weighted over 2 bones. Actions ``idle`` (1-4), ``swing`` (10-16)."""
    mesh = bpy.data.meshes.new(name)
    rows = 7
    ring = [(-1, -0.5), (1, -0.5), (1, 0.5), (-1, 0.5)]
    verts = [(x, y, 3.0 * r / (rows - 1)) for r in range(rows) for x, y in ring]
    faces = [(r * 4 + i, r * 4 + (i + 1) % 4, (r + 1) * 4 + (i + 1) % 4, (r + 1) * 4 + i)
             for r in range(rows - 1) for i in range(4)]
    mesh.from_pydata(verts, [], faces)
    mesh.polygons.foreach_set("material_index", [0 if f // 4 < 3 else 1 for f in range(len(faces))])
    for m in ("skin_low", "skin_high"):
        mesh.materials.append(bpy.data.materials.new(f"{name}_{m}"))
    uv = mesh.uv_layers.new(name="UVMap")
    loops_vertex = np.empty(len(mesh.loops), np.int32)
    mesh.loops.foreach_get("vertex_index", loops_vertex)
    loop_face = np.repeat(np.arange(len(faces)), 4)
    side = (np.array([f[0] for f in faces]) % 4)[loop_face]           # 0..3 around the column
    corner = np.tile([0, 1, 1, 0], len(faces))
    height = np.array(verts)[loops_vertex, 2] / 3.0
    u = (side + corner) / 4.0 * 0.9 + 0.05                              # side 3's right edge: u=0.95, seam with 0.05
    uv.uv.foreach_set("vector", np.stack([u, 0.05 + 0.9 * height], 1).ravel())
    obj = bpy.data.objects.new(name, mesh)
    bpy.context.scene.collection.objects.link(obj)
    obj.location = (0.5, -0.25, 0.0)
    arm = bpy.data.armatures.new(f"{name}_rig")
    rig = bpy.data.objects.new(f"{name}_rig", arm)
    bpy.context.scene.collection.objects.link(rig)
    rig.location = (0.5, -0.25, 0.0)
    rig.rotation_euler = (0.0, 0.0, 0.3)
    obj.parent = rig
    obj.matrix_parent_inverse = rig.matrix_world.inverted()
    for other in bpy.context.view_layer.objects:
        other.select_set(False)
    bpy.context.view_layer.objects.active = rig
    rig.select_set(True)
    bpy.ops.object.mode_set(mode="EDIT")
    names = ("root", "mid", "top")
    parent = None
    for i, bone_name in enumerate(names):
        bone = arm.edit_bones.new(bone_name)
        bone.head, bone.tail = (0, 0, i * 1.0), (0.1 * i, 0.2, i * 1.0 + 1.0)
        bone.roll = 0.2 * i
        bone.parent = parent
        parent = bone
    bpy.ops.object.mode_set(mode="OBJECT")
    groups = [obj.vertex_groups.new(name=n) for n in names]
    z = np.array(verts)[:, 2]
    for i, height in enumerate(z):
        low = min(int(height), 1)
        weight = float(np.clip(height - low, 0, 1))
        groups[low].add([i], 1.0 - weight * 0.7, "REPLACE")
        groups[low + 1].add([i], weight * 0.7 + 0.05, "REPLACE")
    obj.modifiers.new("rig", "ARMATURE").object = rig
    actions = {}
    if with_actions:
        for action_name, frames, sign in (("idle", range(1, 5), 1), ("swing", range(10, 17), -1)):
            if rig.animation_data is not None:
                rig.animation_data.action = None
            for f in frames:
                t = (f - frames[0]) / (len(frames) - 1)
                for k, bone in enumerate(rig.pose.bones):
                    bone.rotation_mode = "XYZ"
                    bone.rotation_euler = (0.4 * sign * np.sin(3 * t) * (k + 1) / 3, 0.3 * t * k, 0.2 * t)
                    bone.location = (0.1 * t * k, 0, 0.05 * t)
                    bone.keyframe_insert("rotation_euler", frame=f)
                    bone.keyframe_insert("location", frame=f)
            actions[action_name] = stored_action(rig, action_name)
        rest_pose(rig)
    return obj, rig, actions


def _w(xyz):
    term = 1.0 - (xyz ** 2).sum(-1)
    return -np.sqrt(np.clip(term, 0, None))


def _mul(a, b):
    """Quaternion products, arrays (..., 4) as w x y z."""
    w1, x1, y1, z1 = np.moveaxis(a, -1, 0)
    w2, x2, y2, z2 = np.moveaxis(b, -1, 0)
    return np.stack([w1 * w2 - x1 * x2 - y1 * y2 - z1 * z2, w1 * x2 + x1 * w2 + y1 * z2 - z1 * y2,
                     w1 * y2 - x1 * z2 + y1 * w2 + z1 * x2, w1 * z2 + x1 * y2 - y1 * x2 + z1 * w2], -1)


def _rotate(q, p):
    qp = np.concatenate([np.zeros(p.shape[:-1] + (1,)), p], -1)
    conj = q * np.array([1, -1, -1, -1])
    return _mul(_mul(q, qp), conj)[..., 1:]


def _wxyz(xyz):
    return np.concatenate([_w(xyz)[..., None], xyz], -1)


def frame_skeleton(anim, k: int):
    """World joint positions and w x y z quaternions of frame k."""
    positions, quats = [], []
    row = anim.frames[k]
    for j in range(anim.num_joints):
        values = list(anim.base_pos[j]) + list(anim.base_orient[j])
        n = 0
        for bit in range(6):
            if anim.joint_flags[j] & (1 << bit):
                values[bit] = row[anim.joint_start[j] + n]
                n += 1
        pos, q = np.array(values[:3]), _wxyz(np.array(values[3:]))
        parent = anim.joint_parents[j]
        if parent >= 0:
            pos = _rotate(quats[parent], pos) + positions[parent]
            q = _mul(quats[parent], q)
            q = q / np.linalg.norm(q)
        positions.append(pos)
        quats.append(q)
    return np.array(positions), np.array(quats)


def skinned(part, positions, quats, scales=None) -> np.ndarray:
    """Vertices of a block; ``scales`` (J,): each joint's scale multiplies its weights' offsets (Q2PRO)."""
    out = np.zeros((part.num_verts, 3))
    for v in range(part.num_verts):
        for w in range(part.weight_start[v], part.weight_start[v] + part.weight_count[v]):
            j = part.weight_joint[w]
            size = 1.0 if scales is None else scales[j]
            out[v] += part.weight_bias[w] * (size * _rotate(quats[j], part.weight_pos[w]) + positions[j])
    return out


TOLERANCE = 1e-4


def world_mesh(bpy, obj) -> np.ndarray:
    co = evaluated_positions(bpy, obj).astype(np.float64)
    matrix = np.array(obj.matrix_world)
    return co @ matrix[:3, :3].T + matrix[:3, 3]


def decoded(path):
    from formats.md5.anim import read_md5anim
    from formats.md5.mesh import read_md5mesh
    return read_md5mesh(path.read_bytes()), read_md5anim(path.with_suffix(".md5anim").read_bytes())


def bind_pose(mesh, parts=None) -> np.ndarray:
    """Every vertex of the md5mesh's blocks skinned with its joints (w x y z quaternions, w made here)."""
    quat = np.concatenate([-np.sqrt(np.clip(1 - (mesh.joint_orient ** 2).sum(1), 0, None))[:, None],
                           mesh.joint_orient], 1)
    return np.concatenate([skinned(p, np.asarray(mesh.joint_pos), quat) for p in parts or mesh.meshes])


def bind_map(bpy, obj, mesh) -> np.ndarray:
    """The Blender vertex of each md5 vertex (all blocks in order), by the bind pose skinned here."""
    rest = np.array([v.co for v in obj.data.vertices]) @ np.array(obj.matrix_world)[:3, :3].T \
        + np.array(obj.matrix_world)[:3, 3]
    bind = bind_pose(mesh)
    distance = np.linalg.norm(bind[:, None] - rest[None], axis=-1)
    assert distance.min(axis=1).max() < TOLERANCE
    return distance.argmin(axis=1)

