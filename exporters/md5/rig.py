"""The armature an MD5 export reads its joints from, the joints' order and their model-space poses.

A joint is a bone of the one armature that deforms the exported meshes (an Armature modifier's object,
else an armature parent with Armature deform, or a bone parent: a rigid part moving with its bone). Joints come parents first (FTE and Q2PRO's anim refuse a
parent after its child, :func:`...formats.md5.limits.pair_problems`): by the joint index an MD5 import
left on each bone (:data:`...common.contract.MD5_JOINT_INDEX`), else in the armature's bone order, each
bone after its parent. A joint's pose is the bone's matrix in the model's space (world space with
*Apply Transform*, else the armature's), times *Scale* for positions; MD5 joints hold no scale, so the
rotation is the matrix's with its columns normalised (a uniform scale cancels out between the bind pose
and a frame) and the quaternion is stored with w <= 0, the sign the engines derive (``Quat_ComputeW``).
A bone scaled uniformly in a frame relative to its rest pose (:func:`joint_scales`) goes to Q2PRO's
``.md5scale``, the only place an engine reads a joint's scale from.
"""
from __future__ import annotations

import numpy as np

import bpy

from ...common.md5.contract import MD5_JOINT_INDEX, MD5_MESH_SOURCE
from ...common.stored_records import stored_bytes, stored_int
from ...formats.message_text import quoted
from ..armature_rig import deforming_armature, parents_first
from ..export_error import ExportError
from ..sampling.action_sampling import find_actions
from ..sampling.frame_plan import carries_animation

NO_ARMATURE = ("MD5 is skeletal: it needs an armature deforming the mesh (an Armature modifier); add one "
               "and weight the vertices to its bones, or export vertex animation as MD3, MD2 or MDL")


def parent_bone(obj: bpy.types.Object) -> str:
    """The bone a rigid part follows (parented to a bone, no Armature modifier), else ''."""
    rigid = obj.parent_type == "BONE" and not any(m.type == "ARMATURE" and m.show_viewport for m in obj.modifiers)
    return obj.parent_bone if rigid else ""


def find_armature(meshes: list[bpy.types.Object]) -> bpy.types.Object:
    """The one armature deforming ``meshes``; refused without one or with several."""
    found = [deforming_armature(m) for m in meshes]
    missing = [m.name for m, a in zip(meshes, found) if a is None]
    if missing:
        raise ExportError(f"object {quoted(missing[0])}" + (f" and {len(missing) - 1} more" if len(missing) > 1 else "")
                          + f" has no armature: {NO_ARMATURE}")
    names = sorted({a.name for a in found})
    if len(names) > 1:
        raise ExportError(f"the meshes are deformed by {len(names)} armatures ({', '.join(map(quoted, names))}): "
                          "an MD5 model has one skeleton; export each armature's meshes on their own")
    if not len(found[0].data.bones):
        raise ExportError(f"armature {quoted(found[0].name)} has no bones")
    return found[0]


def lone_armature(objects: list[bpy.types.Object]) -> bpy.types.Object | None:
    """The one armature (with bones) of ``objects`` when they hold no mesh: its anim is exported alone (an
    ``.md5anim`` imported on its own skeleton); else None."""
    if any(o.type == "MESH" for o in objects):
        return None
    armatures = [o for o in objects if o.type == "ARMATURE" and len(o.data.bones)]
    return armatures[0] if len(armatures) == 1 else None


def unanimated_import(armature: bpy.types.Object, meshes: list[bpy.types.Object]) -> bool:
    """True for an imported ``.md5mesh`` (its text kept on the armature) that nothing animates: no action,
    NLA track or driver on it or its meshes, and no action of its bones in the file."""
    if stored_bytes(armature, MD5_MESH_SOURCE) is None:
        return False
    return not any(carries_animation(o) for o in [armature, *meshes]) and not find_actions([armature, *meshes])


def joint_order(armature: bpy.types.Object) -> list[str]:
    """Bone names in joint order, parents first."""
    bones = list(armature.data.bones)
    if all(stored_int(b, MD5_JOINT_INDEX, None) is not None for b in bones):
        bones.sort(key=lambda b: stored_int(b, MD5_JOINT_INDEX, 0))
    return parents_first(bones)


def bone_matrices(collection, order: list[str]) -> np.ndarray:
    """(J, 4, 4) ``matrix`` (pose bones) or ``matrix_local`` (bones) in joint order, armature space."""
    if isinstance(collection[0], bpy.types.Bone):     # foreach_get does not give matrix_local
        return np.array([collection[n].matrix_local for n in order], np.float64)
    flat = np.empty(len(collection) * 16, np.float32)
    collection.foreach_get("matrix", flat)
    return pose_matrices(flat, pose_order(collection, order))


def pose_order(pose_bones, order: list[str]) -> list[int]:
    """Where each joint of ``order`` is in ``pose_bones``."""
    by_name = {item.name: i for i, item in enumerate(pose_bones)}
    return [by_name[n] for n in order]


def pose_matrices(flat: np.ndarray, where: list[int]) -> np.ndarray:
    """(J, 4, 4) float64 of the pose bones' ``matrix`` as ``foreach_get`` reads it (float32, stored column by
    column), the joints at ``where`` (:func:`pose_order`)."""
    return flat.reshape(-1, 4, 4).transpose(0, 2, 1).astype(np.float64)[where]


def matrix_quaternions(rotation: np.ndarray) -> np.ndarray:
    """(..., 4) x y z w unit quaternions of (..., 3, 3) rotations (columns normalised first), w <= 0."""
    m = rotation / np.linalg.norm(rotation, axis=-2, keepdims=True)
    t = m[..., 0, 0] + m[..., 1, 1] + m[..., 2, 2]
    cases = np.stack([t, m[..., 0, 0], m[..., 1, 1], m[..., 2, 2]], -1).argmax(-1)
    q = np.empty(m.shape[:-2] + (4,))
    with np.errstate(invalid="ignore", divide="ignore"):
        s = np.sqrt(np.maximum(1.0 + t, 1e-30)) * 2
        q0 = np.stack([(m[..., 2, 1] - m[..., 1, 2]) / s, (m[..., 0, 2] - m[..., 2, 0]) / s,
                       (m[..., 1, 0] - m[..., 0, 1]) / s, 0.25 * s], -1)
        s = np.sqrt(np.maximum(1.0 + m[..., 0, 0] - m[..., 1, 1] - m[..., 2, 2], 1e-30)) * 2
        q1 = np.stack([0.25 * s, (m[..., 0, 1] + m[..., 1, 0]) / s, (m[..., 0, 2] + m[..., 2, 0]) / s,
                       (m[..., 2, 1] - m[..., 1, 2]) / s], -1)
        s = np.sqrt(np.maximum(1.0 + m[..., 1, 1] - m[..., 0, 0] - m[..., 2, 2], 1e-30)) * 2
        q2 = np.stack([(m[..., 0, 1] + m[..., 1, 0]) / s, 0.25 * s, (m[..., 1, 2] + m[..., 2, 1]) / s,
                       (m[..., 0, 2] - m[..., 2, 0]) / s], -1)
        s = np.sqrt(np.maximum(1.0 + m[..., 2, 2] - m[..., 0, 0] - m[..., 1, 1], 1e-30)) * 2
        q3 = np.stack([(m[..., 0, 2] + m[..., 2, 0]) / s, (m[..., 1, 2] + m[..., 2, 1]) / s, 0.25 * s,
                       (m[..., 1, 0] - m[..., 0, 1]) / s], -1)
    for case, value in enumerate((q0, q1, q2, q3)):
        q[cases == case] = value[cases == case]
    q /= np.linalg.norm(q, axis=-1, keepdims=True)
    return np.where(q[..., 3:] > 0, -q, q)


def model_poses(matrices: np.ndarray, scale: float) -> tuple[np.ndarray, np.ndarray]:
    """(..., J, 3) positions and (..., J, 4) quaternions of model-space joint ``matrices``."""
    return matrices[..., :3, 3] * scale, matrix_quaternions(matrices[..., :3, :3])


SCALE_TOLERANCE = 1e-5


def joint_scales(bind: np.ndarray, matrices: np.ndarray) -> np.ndarray | None:
    """(F, J) each joint's uniform scale in each frame relative to its bind pose (the mean length of its
    matrix's columns over the bind's; 1 where within :data:`SCALE_TOLERANCE` of 1), or None where every one is 1 or a
    joint scales unevenly (:func:`joint_scale_problem` reports that). Q2PRO's ``.md5scale`` holds it."""
    if joint_scale_problem(np.concatenate([bind[None], matrices])):
        return None
    size = np.linalg.norm(matrices[..., :3, :3], axis=-2).mean(axis=-1)
    sizes = size / np.linalg.norm(bind[..., :3, :3], axis=-2).mean(axis=-1)[None]
    scaled = np.abs(sizes - 1.0) > SCALE_TOLERANCE
    return np.where(scaled, sizes, 1.0) if scaled.any() else None       # a joint that never scales stays out


def joint_scale_problem(matrices: np.ndarray) -> str:
    """A note when the joints' matrices scale unevenly or shear (MD5 joints cannot hold that)."""
    m = matrices[..., :3, :3]
    lengths = np.linalg.norm(m, axis=-2)
    unit = m / lengths[..., None, :]
    gram = np.swapaxes(unit, -1, -2) @ unit
    uneven = np.abs(lengths - lengths[..., :1]).max(initial=0.0) > 1e-4 * max(1.0, float(lengths.max(initial=1.0)))
    shear = np.abs(gram - np.eye(3)).max(initial=0.0) > 1e-4
    if not (uneven or shear):
        return ""
    return ("bones scaled unevenly or sheared (bone scale keys, or an armature scaled unevenly): MD5 joints hold "
            "a position and a rotation only, so the game draws those poses without the scale")
