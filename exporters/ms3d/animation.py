"""An armature's animation -> MS3D joint keys: the action's keys plus the fewest added, or every frame.

A key is relative to the joint's rest pose: ``L(t) = L · T(position) · R(rotation)``, rotation as
Euler 'XYZ' (converted from any rotation mode), time = frame / fps, 16 bytes ``<f time, 3f value>``.

* *Keyframes*: the action's keys where a bone's rotation or location channels are keyed (keys of
  Blender's 'Generated' type are skipped: the import adds them to reproduce MilkShape's slerp), plus
  keys where MilkShape would otherwise stray: the evaluated pose (constraints, NLA, any
  interpolation) is sampled at every scene frame and :mod:`..formats.ms3d.key_reduction` adds keys
  per joint and channel until the posed mesh, played by MilkShape's rules, stays within the
  tolerance of it. Tolerance 0 bakes.
* *Bake*: a rotation and a position key per joint at every scene frame from the evaluated pose.
"""
from __future__ import annotations

import numpy as np

import bpy

from mathutils import Euler, Quaternion

from ...common.ms3d.contract import GENERATED_KEY
from ...formats.ms3d.key_reduction import continuous_euler, joint_reach, mesh_deviation, reduce_keys, tangents
from ...formats.ms3d.rig import (
    euler_xyz_from_matrices,
    global_matrices,
    influences_from_raw,
    local_matrices,
    nearest_euler,
    rigid_inverse,
)
from ..export_error import ExportError
from ..sampling.curve_pose import KeyReads, action_fcurves, curve_poses

MAX_POSES = 2_000_000        # frames x joints sampled (about 1 GB while sampling)


def _keyed(fcurve: bpy.types.FCurve, reads: KeyReads) -> tuple[np.ndarray, np.ndarray]:
    """Frames and values of an F-curve's keys, without those of the 'Generated' type."""
    co = reads(fcurve, "co")[reads(fcurve, "type") != GENERATED_KEY]
    return co[:, 0].astype(np.float64), co[:, 1].astype(np.float64)


def _channel_values(curves: list, defaults, reads: KeyReads) -> tuple[np.ndarray, np.ndarray] | None:
    """Frames keyed on any of ``curves`` and every channel's value there (key values where keyed)."""
    keyed = [_keyed(c, reads) if c is not None else None for c in curves]
    present = [k[0] for k in keyed if k is not None and len(k[0])]
    if not present:
        return None
    if all(len(f) == len(present[0]) and np.array_equal(f, present[0]) for f in present[1:]) \
            and np.all(np.diff(present[0]) >= 0):
        frames = present[0]
    else:
        frames = np.unique(np.concatenate(present))
    values = np.empty((len(frames), len(curves)))
    for i, (curve, key) in enumerate(zip(curves, keyed)):
        if curve is None:
            values[:, i] = defaults[i]
        elif len(key[0]) == len(frames) and np.array_equal(key[0], frames):   # keys where every channel has them
            values[:, i] = key[1]
        else:
            values[:, i] = [curve.evaluate(float(f)) for f in frames]
    return frames, values


def _rotation_keys(pose_bone: bpy.types.PoseBone, by_path: dict, reads: KeyReads) -> tuple | None:
    mode = pose_bone.rotation_mode
    path = f'pose.bones["{bpy.utils.escape_identifier(pose_bone.name)}"]'
    if mode == "QUATERNION":
        keyed = _channel_values([by_path.get((f"{path}.rotation_quaternion", i)) for i in range(4)],
                                list(pose_bone.rotation_quaternion), reads)
        to_matrix = lambda v: Quaternion(v).normalized().to_matrix()
    elif mode == "AXIS_ANGLE":
        keyed = _channel_values([by_path.get((f"{path}.rotation_axis_angle", i)) for i in range(4)],
                                list(pose_bone.rotation_axis_angle), reads)
        to_matrix = lambda v: Quaternion(v[1:], v[0]).to_matrix()
    else:
        keyed = _channel_values([by_path.get((f"{path}.rotation_euler", i)) for i in range(3)],
                                list(pose_bone.rotation_euler), reads)
        if mode == "XYZ" or keyed is None:
            return keyed
        to_matrix = lambda v: Euler(v, mode).to_matrix()
    if keyed is None:
        return None
    frames, values = keyed
    rotations = np.array([np.array(to_matrix(v)) for v in values])
    angles = euler_xyz_from_matrices(rotations)
    for k in range(1, len(angles)):
        angles[k] = nearest_euler(rotations[k:k + 1], angles[k - 1:k])[0]
    return frames, angles


def _is_hermite(curves: list, reads: KeyReads) -> bool:
    """True when the location F-curves are MilkShape's own Hermite curves of their keys (handles at
    the thirds of :func:`..formats.ms3d.rig.hermite_tangents`, as the import makes them): the file's
    keys then reproduce the action by MilkShape's rule."""
    if any(c is None for c in curves) or len({len(c.keyframe_points) for c in curves}) != 1:
        return False
    count = len(curves[0].keyframe_points)
    if count < 2:
        return False
    co, left, right = (np.array([reads(c, name) for c in curves], dtype=np.float64)
                       for name in ("co", "handle_left", "handle_right"))
    f, v = co[0, :, 0], co[:, :, 1].T
    if np.any(co[:, :, 0] != f):
        return False
    t_in, t_out = tangents(f, v)
    off = max(np.abs(right[:, :-1, 1].T - (v + t_out / 3)[:-1]).max(),
              np.abs(left[:, 1:, 1].T - (v - t_in / 3)[1:]).max())
    thirds = np.abs(right[:, :-1, 0] - f[:-1] - np.diff(f) / 3).max()
    return bool(off <= max(float(np.abs(v).max()), 1.0) * 1e-5 and thirds <= 1e-3)


def action_keys(armature: bpy.types.Object, bone_names: list[str], warnings: list[str],
                reads: KeyReads) -> tuple[list, list, list]:
    """Per joint the action's rotation keys and location keys ``(frames, values)`` (None if unkeyed),
    and whether its location curves are MilkShape's Hermite curves (:func:`_is_hermite`)."""
    by_path = {(fc.data_path, fc.array_index): fc for fc in action_fcurves(armature) if not fc.mute}
    scaled, rotations, locations, hermite = [], [], [], []
    for name in bone_names:
        pose_bone = armature.pose.bones[name]
        path = f'pose.bones["{bpy.utils.escape_identifier(name)}"]'
        rotations.append(_rotation_keys(pose_bone, by_path, reads))
        curves = [by_path.get((f"{path}.location", i)) for i in range(3)]
        locations.append(_channel_values(curves, list(pose_bone.location), reads))
        hermite.append(locations[-1] is not None and _is_hermite(curves, reads))
        scale = _channel_values([by_path.get((f"{path}.scale", i)) for i in range(3)], list(pose_bone.scale), reads)
        if scale is not None and not np.allclose(scale[1], 1.0):
            scaled.append(name)
    if scaled:
        warnings.append(f"MS3D joints cannot scale: the scale keys of {', '.join(map(repr, scaled[:5]))} "
                        f"{'and others ' if len(scaled) > 5 else ''}are not exported")
    return rotations, locations, hermite


def keys_array(frames: np.ndarray, values: np.ndarray, key_fps: float) -> np.ndarray:
    """(K, 4) float32 rows ``time, value[3]`` with time = frame / fps."""
    times = (np.asarray(frames, dtype=np.float64) / key_fps).astype(np.float32)
    return np.column_stack([times, np.asarray(values, dtype=np.float32).reshape(-1, 3)]).astype(np.float32)


def _stepped_pose(scene: bpy.types.Scene, armature: bpy.types.Object, frames: np.ndarray,
                  meshes: list[bpy.types.Object]) -> np.ndarray:
    """(F, P, 16) every pose bone's ``matrix`` at each frame, read by stepping the timeline. The exported
    meshes are disabled in viewports meanwhile (only the bones are read: a mesh the armature deforms
    cannot drive its bones without a dependency cycle)."""
    pose_bones = armature.pose.bones
    out = np.empty((len(frames), len(pose_bones) * 16), dtype=np.float32)
    saved = scene.frame_current, scene.frame_subframe
    layer = bpy.context.view_layer.objects
    switched = [obj for obj in meshes if not obj.hide_viewport and obj.mode != "EDIT" and obj.name in layer]
    selected = [obj.select_get() for obj in switched]            # hiding deselects
    try:
        for obj in switched:
            obj.hide_viewport = True
        for f, frame in enumerate(frames.tolist()):
            scene.frame_set(frame)
            pose_bones.foreach_get("matrix", out[f])
    finally:
        for obj, was_selected in zip(switched, selected):
            obj.hide_viewport = False
            obj.select_set(was_selected)
        scene.frame_set(saved[0], subframe=saved[1])
    return out.reshape(len(frames), len(pose_bones), 16)


def sample_pose(context: bpy.types.Context, armature: bpy.types.Object, bone_names: list[str], parents: list[int],
                rest_local: np.ndarray, to_ms: np.ndarray, meshes: list[bpy.types.Object],
                reads: KeyReads | None = None):
    """Every scene frame's evaluated pose as keys: frames (F,), rotations (F, J, 3, 3), positions
    (F, J, 3), the posed joints' global matrices (F, J, 4, 4), in MilkShape space, and why the
    timeline had to be stepped (None: the poses were computed from the action's F-curves,
    :mod:`..sampling.curve_pose`, the same bits as stepping)."""
    scene = context.scene
    frames = np.arange(scene.frame_start, scene.frame_end + 1)
    matrices, stepped = curve_poses(context, armature, frames, reads)
    if matrices is None:
        matrices = _stepped_pose(scene, armature, frames, meshes)
    order = np.array([armature.pose.bones.find(n) for n in bone_names])
    pose = np.swapaxes(matrices.reshape(len(frames), -1, 4, 4), 2, 3)[:, order].astype(np.float64)
    from_blender = np.eye(4)
    from_blender[:3, :3] = to_ms
    globals_ms = from_blender @ pose
    local = globals_ms.copy()
    for j, parent in enumerate(parents):
        if parent != -1:
            local[:, j] = rigid_inverse(globals_ms[:, parent]) @ globals_ms[:, j]
    key = rigid_inverse(rest_local)[None] @ local
    return frames.astype(np.float64), key[..., :3, :3].copy(), key[..., :3, 3].copy(), globals_ms, stepped


def vertex_radii(xyz: np.ndarray, bone: np.ndarray, ids: np.ndarray, weights: np.ndarray,
                 rest_global: np.ndarray) -> np.ndarray:
    """Per joint the farthest bind-pose vertex it moves, measured from the joint's rest origin."""
    joints, percent = influences_from_raw(bone, ids, weights, len(rest_global))
    radii = np.zeros(len(rest_global))
    rows, slots = np.nonzero((joints >= 0) & (percent > 0))
    if len(rows):
        j = joints[rows, slots]
        distance = np.linalg.norm(np.asarray(xyz, dtype=np.float64)[rows] - rest_global[j, :3, 3], axis=1)
        np.maximum.at(radii, j, distance)
    return radii


def animate_joints(context: bpy.types.Context, armature: bpy.types.Object, joints: list, bone_names: list[str],
                   parents: list[int], to_ms: np.ndarray, key_fps: float, mode: str, tolerance: float,
                   vertices: np.ndarray, meshes: list[bpy.types.Object], warnings: list[str]) -> list[str]:
    """Set every joint's ``rot_keys`` / ``pos_keys``; returns the report lines.

    ``tolerance`` in model units (0 = bake); ``vertices`` the exported VERTEX_RECORD table."""
    if not joints:
        return []
    rest_local = local_matrices(np.array([j.rotation for j in joints]), np.array([j.position for j in joints]))
    reads = KeyReads()                # the F-curves' keys, read once for the action's keys and the poses
    if mode != "BAKE" and tolerance > 0:
        rotations, locations, hermite = action_keys(armature, bone_names, warnings, reads)
    scene = context.scene
    poses = (scene.frame_end - scene.frame_start + 1) * len(joints)
    if poses > MAX_POSES:
        too_long = (f"the scene range ({scene.frame_end - scene.frame_start + 1} frames x {len(joints)} joints) "
                    f"is over {MAX_POSES} poses")
        if mode == "BAKE" or tolerance <= 0:
            raise ExportError(f"cannot bake: {too_long}; shorten the scene range")
        warnings.append(f"{too_long}: the action's keys are written as they are, without checking every frame")
        for joint, rotation, location in zip(joints, rotations, locations):
            joint.rot_keys = keys_array(*rotation, key_fps) if rotation is not None else joint.rot_keys
            joint.pos_keys = keys_array(*location, key_fps) if location is not None else joint.pos_keys
        return []
    frames, sampled, positions, posed, stepped = sample_pose(context, armature, bone_names, parents, rest_local,
                                                             to_ms, meshes, reads)
    info = [] if stepped is None else [f"poses read by stepping the timeline: {stepped}"]
    if mode == "BAKE" or tolerance <= 0:
        angles = continuous_euler(sampled)
        for j, joint in enumerate(joints):
            joint.rot_keys = keys_array(frames, angles[:, j], key_fps)
            joint.pos_keys = keys_array(frames, positions[:, j], key_fps)
        return info + [f"{2 * len(frames) * len(joints)} keys baked ({len(frames)} frames x {len(joints)} joints)"]
    rest_global = global_matrices(rest_local, parents)
    radii = vertex_radii(vertices["xyz"], vertices["bone"], vertices["ids"], vertices["weights"], rest_global)
    reach = joint_reach(posed[..., :3, 3], parents, radii)
    linear = [not h for h in hermite]
    skin = influences_from_raw(vertices["bone"], vertices["ids"], vertices["weights"], len(joints))
    verify = lambda r: mesh_deviation(r, frames, rest_local, parents, posed, vertices["xyz"], *skin, linear)
    reduction = reduce_keys(frames, sampled, positions, rotations, locations, parents, reach, tolerance,
                            linear=linear, verify=verify)
    for joint, rotation, location in zip(joints, reduction.rotations, reduction.positions):
        joint.rot_keys = keys_array(rotation.frames, rotation.values, key_fps)
        joint.pos_keys = keys_array(location.frames, location.values, key_fps)
    measured = "" if reduction.deviation is not None and reduction.deviation <= reduction.bound else "at most "
    return info + [f"{reduction.written} keys written, {reduction.added} added so that MilkShape plays the animation "
            f"as Blender does; largest deviation {measured}{reduction.largest:.3g} (tolerance {tolerance:.3g})"]
