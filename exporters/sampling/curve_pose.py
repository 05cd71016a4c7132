"""An armature's pose at many scene frames straight from its action's F-curves, without stepping the timeline.

Where the pose is fully determined by the action (no bone constraints, no drivers, the action alone:
no NLA tracks, full influence, Replace; bones inheriting rotation, scale and local location; Euler
or quaternion rotation; F-curves with constant, linear or Bezier keys, constant extrapolation and
no modifiers), :func:`curve_poses` computes every bone's pose matrix at every frame with
:mod:`.blender_eval`, equal to ``PoseBone.matrix`` after ``scene.frame_set`` bit for bit. Otherwise
it names the first reason it cannot, and the caller steps the timeline. Not detected: a script's
frame-change handler that poses bones (stepping the timeline would run it).
"""
from __future__ import annotations

import numpy as np
import bpy

from ...formats.shown import quoted
from . import blender_eval as be


def action_fcurves(obj: bpy.types.Object) -> list[bpy.types.FCurve]:
    """The F-curves of the action ``obj`` plays (its assigned slot's channels from 4.4 on)."""
    anim = obj.animation_data
    if anim is None or anim.action is None:
        return []
    if hasattr(anim, "action_slot"):
        from bpy_extras import anim_utils
        if anim.action_slot is None:
            return []
        bag = anim_utils.action_get_channelbag_for_slot(anim.action, anim.action_slot)
        return list(bag.fcurves) if bag is not None else []
    return list(anim.action.fcurves)


class KeyReads:
    """Keyframe arrays of F-curves (``co`` and handles as (K, 2) float32, ``interpolation`` and ``type``
    as int32), each read once with ``foreach_get`` however many parts of the export need it."""

    SIZES = {"co": 2, "handle_left": 2, "handle_right": 2, "interpolation": 1, "type": 1}

    def __init__(self) -> None:
        self._read: dict[tuple[int, str], np.ndarray] = {}

    def __call__(self, fcurve: bpy.types.FCurve, name: str) -> np.ndarray:
        key = (fcurve.as_pointer(), name)
        if key not in self._read:
            points = fcurve.keyframe_points
            size = self.SIZES[name]
            out = np.empty(len(points) * size, dtype=np.float32 if size == 2 else np.int32)
            points.foreach_get(name, out)
            self._read[key] = out.reshape(-1, 2) if size == 2 else out
        return self._read[key]


def _why_not(context: bpy.types.Context, armature: bpy.types.Object) -> str | None:
    """Why the pose is not the action's F-curves alone (None: it is)."""
    if armature.name not in context.view_layer.objects or armature.hide_viewport \
            or any(c.hide_viewport for c in armature.users_collection):
        return f"the armature {quoted(armature.name)} is not evaluated in this view layer"
    render = context.scene.render
    if render.frame_map_old != render.frame_map_new:
        return "the scene remaps time (Time Stretching)"
    if armature.data.pose_position != "POSE":
        return f"the armature {quoted(armature.name)} shows its rest position"
    constrained = [b.name for b in armature.pose.bones if len(b.constraints)]
    if constrained:
        return f"{len(constrained)} bone(s) have constraints ({quoted(constrained[0])} ...)"
    for owner in (armature, armature.data):
        anim = owner.animation_data
        if anim is not None and len(anim.drivers):
            return f"{quoted(owner.name)} has drivers"
    if armature.data.animation_data is not None and armature.data.animation_data.action is not None:
        return f"the armature data {quoted(armature.data.name)} has its own action"
    anim = armature.animation_data
    if anim is not None and (len(anim.nla_tracks) or anim.use_tweak_mode):
        return "the armature's animation uses NLA tracks"
    if anim is not None and anim.action is not None and (anim.action_influence != 1.0
                                                         or anim.action_blend_type != "REPLACE"):
        return "the action plays with partial influence or a blend mode other than Replace"
    layers = getattr(anim.action, "layers", ()) if anim is not None and anim.action is not None else ()
    if len(layers) > 1 or any(len(layer.strips) > 1 for layer in layers):
        return "the action has several layers or strips"
    for bone in armature.data.bones:
        if not bone.use_local_location or bone.parent is not None and (not bone.use_inherit_rotation
                                                                         or bone.inherit_scale != "FULL"):
            return f"bone {quoted(bone.name)} does not inherit its parent's full transform"
        if armature.pose.bones[bone.name].rotation_mode == "AXIS_ANGLE":
            return f"bone {quoted(bone.name)} rotates by axis and angle"
    return None


def _curve_reason(fcurve, codes: np.ndarray) -> str | None:
    label = f"the F-curve {fcurve.data_path}[{fcurve.array_index}]"
    if not len(codes):
        return f"{label} has no keys"
    if len(fcurve.modifiers):
        return f"{label} has modifiers"
    if fcurve.extrapolation != "CONSTANT":
        return f"{label} extrapolates linearly"
    if fcurve.group is not None and fcurve.group.mute:
        return f"{label} is in a muted group"
    if np.any(codes > be.BEZIER):
        return f"{label} uses easing interpolation"
    return None


def _read_curve(fcurve, reads: KeyReads) -> tuple[np.ndarray, ...]:
    """Keys, handles (zeros unless a key is Bezier: unused) and interpolation codes of an F-curve."""
    co, codes = reads(fcurve, "co"), reads(fcurve, "interpolation")
    if np.any(codes == be.BEZIER):
        return co, reads(fcurve, "handle_left"), reads(fcurve, "handle_right"), codes
    return co, np.zeros_like(co), np.zeros_like(co), codes


_TRANSFORMS = ("location", "rotation_euler", "rotation_quaternion", "scale", "rotation_axis_angle")


def _pose_curves(armature: bpy.types.Object, reads: KeyReads) -> tuple[dict, str | None]:
    """The action's unmuted F-curves of pose bone transforms by (path, index), or the reason they cannot be read."""
    by_path = {}
    for fcurve in action_fcurves(armature):
        if fcurve.mute or not fcurve.data_path.startswith("pose.bones[") \
                or fcurve.data_path.rsplit(".", 1)[-1] not in _TRANSFORMS:
            continue
        problem = _curve_reason(fcurve, reads(fcurve, "interpolation"))
        if problem is not None:
            return {}, problem
        by_path[(fcurve.data_path, fcurve.array_index)] = fcurve
    return by_path, None


def _channels(armature: bpy.types.Object, by_path: dict, times: np.ndarray, reads: KeyReads):
    """Per bone its location, rotation (Euler or quaternion) and scale at ``times``: (F, B, n) float32
    arrays (F-curve values where keyed, the property's value elsewhere), or None."""
    names = [b.name for b in armature.data.bones]
    wanted = []                     # (bone, slot, component, F-curve or constant)
    for b, name in enumerate(names):
        pose_bone = armature.pose.bones[name]
        path = f'pose.bones["{bpy.utils.escape_identifier(name)}"]'
        quaternion = pose_bone.rotation_mode == "QUATERNION"
        rotation = (("rotation_quaternion", pose_bone.rotation_quaternion) if quaternion
                    else ("rotation_euler", pose_bone.rotation_euler))
        for slot, (prop, current) in enumerate((("location", pose_bone.location), rotation,
                                                ("scale", pose_bone.scale))):
            for i in range(len(current)):
                wanted.append((b, slot, i, by_path.get((f"{path}.{prop}", i), float(current[i]))))
    keyed = [w for w in wanted if not isinstance(w[3], float)]
    values = be.evaluate_curves([_read_curve(w[3], reads) for w in keyed], times)
    if values is None:
        return None
    arrays = [np.zeros((len(times), len(names), 4), dtype=np.float32) for _ in range(3)]
    for b, slot, i, source in wanted:
        if isinstance(source, float):
            arrays[slot][:, b, i] = np.float32(source)
    for (b, slot, i, _), row in zip(keyed, values):
        arrays[slot][:, b, i] = row
    return arrays


def curve_poses(context: bpy.types.Context, armature: bpy.types.Object, frames: np.ndarray,
                reads: KeyReads | None = None) -> tuple[np.ndarray | None, str | None]:
    """Every pose bone's ``matrix`` at each scene frame, (F, B, 16) float32 in ``pose.bones`` order and
    Blender's memory layout (what ``foreach_get("matrix")`` reads after ``frame_set``), or None and
    the reason the timeline has to be stepped."""
    reason = _why_not(context, armature)
    if reason is not None:
        return None, reason
    reads = reads if reads is not None else KeyReads()
    by_path, reason = _pose_curves(armature, reads)
    if reason is not None:
        return None, reason
    times = np.asarray(frames, dtype=np.float32)
    channels = _channels(armature, by_path, times, reads)
    if channels is None:
        return None, "an F-curve has keys closer than 0.0002 frames"
    location, rotation_values, scale = channels
    bones = armature.data.bones
    count = len(bones)
    arm_mat = np.empty(count * 16, dtype=np.float32)
    bone_mat = np.empty(count * 9, dtype=np.float32)
    heads = np.empty(count * 3, dtype=np.float32)
    lengths = np.empty(count, dtype=np.float32)
    bones.foreach_get("matrix_local", arm_mat)
    bones.foreach_get("matrix", bone_mat)
    bones.foreach_get("head", heads)
    bones.foreach_get("length", lengths)
    arm_mat, bone_mat, heads = arm_mat.reshape(-1, 4, 4), bone_mat.reshape(-1, 3, 3), heads.reshape(-1, 3)
    index = {b.name: i for i, b in enumerate(bones)}
    parents = np.array([index[b.parent.name] if b.parent is not None else -1 for b in bones])
    modes = [armature.pose.bones[b.name].rotation_mode for b in bones]
    rotation = np.empty((len(times), count, 3, 3), dtype=np.float32)
    for mode in set(modes):
        which = np.array([m == mode for m in modes])
        picked = rotation_values[:, which]
        flat = (be.quaternion_matrices(picked.reshape(-1, 4)) if mode == "QUATERNION"
                else be.euler_matrices(picked[..., :3].reshape(-1, 3), mode))
        rotation[:, which] = flat.reshape(len(times), -1, 3, 3)
    connected = np.array([b.use_connect for b in bones])
    location[:, connected] = 0.0
    channel = be.channel_matrices(rotation, scale[..., :3], location[..., :3])
    offsets = np.array([be.offset_matrix(bone_mat[b], heads[b], lengths[p]) if p != -1 else arm_mat[b]
                        for b, p in enumerate(parents)])
    depth = np.zeros(count, dtype=np.int64)
    for b, p in enumerate(parents):
        if p != -1:
            if p > b:
                return None, f"bone {quoted(bones[p].name)} comes after its child"
            depth[b] = depth[p] + 1
    posed = np.empty_like(channel)
    for level in range(int(depth.max(initial=0)) + 1):
        at = np.flatnonzero(depth == level)
        rotscale = offsets[at] if level == 0 else be.multiply(posed[:, parents[at]], offsets[at])
        posed[:, at] = be.bone_pose(rotscale, channel[:, at])
    order = np.array([armature.pose.bones.find(b.name) for b in bones])
    out = np.empty_like(posed)
    out[:, order] = posed
    return out.reshape(len(times), count, 16), None
