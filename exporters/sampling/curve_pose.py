"""An armature's pose at many scene frames straight from its action's F-curves, without stepping the timeline.

Where the pose is fully determined by the action (no bone constraints, no drivers, the action alone:
no NLA tracks, full influence, Replace; bones inheriting rotation, scale and local location; Euler
or quaternion rotation; F-curves with constant, linear or Bezier keys, constant extrapolation and
no modifiers), :func:`curve_poses` computes every bone's pose matrix at every frame with
:mod:`.blender_eval`, equal to ``PoseBone.matrix`` after ``scene.frame_set`` bit for bit. Otherwise
it names the first reason it cannot, and the caller steps the timeline. Not detected: a script's
frame-change handler that poses bones (stepping the timeline would run it). For actions played one
after another (each assigned in turn), :func:`curve_channels` reads each one's channels and
:func:`posed` takes them through the hierarchy together; a :class:`KeyReads` shared by an export reads
the rig once.
"""
from __future__ import annotations

import numpy as np

import bpy

from ...formats.message_text import quoted
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
        self.memo: dict = {}            # what else an export reads once (an armature's rest, its matrix)

    def __call__(self, fcurve: bpy.types.FCurve, name: str) -> np.ndarray:
        key = (fcurve.as_pointer(), name)
        if key not in self._read:
            points = fcurve.keyframe_points
            size = self.SIZES[name]
            out = np.empty(len(points) * size, dtype=np.float32 if size == 2 else np.int32)
            points.foreach_get(name, out)
            self._read[key] = out.reshape(-1, 2) if size == 2 else out
        return self._read[key]

    def keys(self, fcurve: bpy.types.FCurve) -> tuple[np.ndarray, np.ndarray]:
        """``co`` and ``interpolation`` of an F-curve's keys (as ``self(fcurve, name)`` gives them)."""
        pointer = fcurve.as_pointer()
        co, codes = self._read.get((pointer, "co")), self._read.get((pointer, "interpolation"))
        if co is None or codes is None:
            points = fcurve.keyframe_points
            count = len(points)
            if co is None:
                co = np.empty(count * 2, np.float32)
                points.foreach_get("co", co)
                co = self._read[(pointer, "co")] = co.reshape(-1, 2)
            if codes is None:
                codes = self._read[(pointer, "interpolation")] = np.empty(count, np.int32)
                points.foreach_get("interpolation", codes)
        return co, codes


def why_not(context: bpy.types.Context, armature: bpy.types.Object) -> str | None:
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


def _read_curve(fcurve, reads: KeyReads, bezier: bool, zeros: dict) -> tuple[np.ndarray, ...]:
    """Keys, handles (zeros unless a key is Bezier: unused) and interpolation codes of an F-curve."""
    co, codes = reads.keys(fcurve)
    if bezier:
        return co, reads(fcurve, "handle_left"), reads(fcurve, "handle_right"), codes
    if len(co) not in zeros:
        zeros[len(co)] = np.zeros_like(co)
    return co, zeros[len(co)], zeros[len(co)], codes


_TRANSFORMS = ("location", "rotation_euler", "rotation_quaternion", "scale", "rotation_axis_angle")


def _pose_curves(armature: bpy.types.Object, reads: KeyReads) -> tuple[dict, str | None]:
    """The action's unmuted F-curves of pose bone transforms by (path, index) with whether a key is Bezier,
    or the reason they cannot be read (the first F-curve's, in the action's order)."""
    curves, codes = [], []
    plain = True                    # no curve without keys, with modifiers, extrapolating or in a muted group
    for fcurve in action_fcurves(armature):
        path = fcurve.data_path
        if fcurve.mute or not path.startswith("pose.bones[") or path.rsplit(".", 1)[-1] not in _TRANSFORMS:
            continue
        code = reads.keys(fcurve)[1]
        group = fcurve.group
        plain = plain and len(code) > 0 and not len(fcurve.modifiers) and fcurve.extrapolation == "CONSTANT" \
            and (group is None or not group.mute)
        curves.append(fcurve)
        codes.append(code)
    every = np.concatenate(codes) if codes else np.zeros(0, np.int32)
    if not plain or np.any(every > be.BEZIER):          # name the first problem, as read one by one
        for fcurve, code in zip(curves, codes):
            problem = _curve_reason(fcurve, code)
            if problem is not None:
                return {}, problem
    starts = np.cumsum([0] + [len(c) for c in codes[:-1]])
    bezier = np.logical_or.reduceat(every == be.BEZIER, starts) if codes else []
    return {(fcurve.data_path, fcurve.array_index): (fcurve, bool(b)) for fcurve, b in zip(curves, bezier)}, None


def _current(armature: bpy.types.Object, reads: KeyReads) -> dict[str, np.ndarray]:
    """The pose bones' location, rotations and scale as they are now, (B, n) float32 in ``pose.bones`` order."""
    bones = armature.pose.bones
    out = {}
    for name, size in (("location", 3), ("rotation_quaternion", 4), ("rotation_euler", 3), ("scale", 3)):
        values = np.empty(len(bones) * size, np.float32)
        bones.foreach_get(name, values)
        out[name] = values.reshape(-1, size)
    return out


def _layout(armature: bpy.types.Object, reads: KeyReads) -> list:
    """Per bone (in ``data.bones`` order) its ``pose.bones`` index and, per channel (location, rotation,
    scale), the property and its F-curves' data path (rotation: quaternion or Euler, as the bone turns)."""
    key = ("layout", armature.as_pointer())
    if key not in reads.memo:
        pose_bones = armature.pose.bones
        layout = []
        for bone in armature.data.bones:
            path = f'pose.bones["{bpy.utils.escape_identifier(bone.name)}"]'
            rotation = ("rotation_quaternion" if pose_bones[bone.name].rotation_mode == "QUATERNION"
                        else "rotation_euler")
            layout.append((pose_bones.find(bone.name), [(prop, f"{path}.{prop}")
                                                         for prop in ("location", rotation, "scale")]))
        reads.memo[key] = layout
    return reads.memo[key]


def _channels(armature: bpy.types.Object, by_path: dict, times: np.ndarray, reads: KeyReads):
    """Per bone its location, rotation (Euler or quaternion) and scale at ``times``: (F, B, n) float32
    arrays (F-curve values where keyed, the property's value elsewhere), or None."""
    layout = _layout(armature, reads)
    current = _current(armature, reads)
    arrays = [np.zeros((len(times), len(layout), 4), dtype=np.float32) for _ in range(3)]
    keyed, zeros = [], {}
    for b, (pose_index, channels) in enumerate(layout):
        for slot, (prop, path) in enumerate(channels):
            values = current[prop][pose_index]
            arrays[slot][:, b, :len(values)] = values
            for i in range(len(values)):
                found = by_path.get((path, i))
                if found is not None:
                    keyed.append((b, slot, i, _read_curve(found[0], reads, found[1], zeros)))
    values = be.evaluate_curves([k[3] for k in keyed], times)
    if values is None:
        return None
    for (b, slot, i, _), row in zip(keyed, values):
        arrays[slot][:, b, i] = row
    return arrays


def curve_poses(context: bpy.types.Context, armature: bpy.types.Object, frames: np.ndarray,
                reads: KeyReads | None = None) -> tuple[np.ndarray | None, str | None]:
    """Every pose bone's ``matrix`` at each scene frame, (F, B, 16) float32 in ``pose.bones`` order and
    Blender's memory layout (what ``foreach_get("matrix")`` reads after ``frame_set``), or None and
    the reason the timeline has to be stepped."""
    reads = reads if reads is not None else KeyReads()
    channels, reason = curve_channels(context, armature, frames, reads)
    if channels is None:
        return None, reason
    return posed(armature, channels, reads), None


def curve_channels(context: bpy.types.Context, armature: bpy.types.Object, frames: np.ndarray,
                   reads: KeyReads) -> tuple[list | None, str | None]:
    """The bones' location, rotation and scale at each scene frame as the action's F-curves give them now
    (the part of :func:`curve_poses` that reads the action: channels of several actions, each read while
    it is assigned, go through :func:`posed` together), or None and the reason the timeline has to be
    stepped."""
    reason = why_not(context, armature)
    if reason is not None:
        return None, reason
    by_path, reason = _pose_curves(armature, reads)
    if reason is not None:
        return None, reason
    times = np.asarray(frames, dtype=np.float32)
    channels = _channels(armature, by_path, times, reads)
    if channels is None:
        return None, "an F-curve has keys closer than 0.0002 frames"
    rest = _rest(armature, reads)
    if isinstance(rest, str):
        return None, rest
    return channels, None


def posed(armature: bpy.types.Object, channels: list, reads: KeyReads) -> np.ndarray:
    """(F, B, 16) the pose bones' matrices of :func:`curve_channels`'s channels (of one or more of its
    calls, joined frame by frame: each frame's arithmetic is its own)."""
    location, rotation_values, scale = (np.array(c) for c in channels)
    count = len(armature.data.bones)
    frames = len(location)
    parents, offsets, depth, modes, connected, order = _rest(armature, reads)
    rotation = np.empty((frames, count, 3, 3), dtype=np.float32)
    for mode in set(modes):
        which = np.array([m == mode for m in modes])
        picked = rotation_values[:, which]
        flat = (be.quaternion_matrices(picked.reshape(-1, 4)) if mode == "QUATERNION"
                else be.euler_matrices(picked[..., :3].reshape(-1, 3), mode))
        rotation[:, which] = flat.reshape(frames, -1, 3, 3)
    location[:, connected] = 0.0
    channel = be.channel_matrices(rotation, scale[..., :3], location[..., :3])
    matrices = np.empty_like(channel)
    for level in range(int(depth.max(initial=0)) + 1):
        at = np.flatnonzero(depth == level)
        rotscale = offsets[at] if level == 0 else be.multiply(matrices[:, parents[at]], offsets[at])
        matrices[:, at] = be.bone_pose(rotscale, channel[:, at])
    out = np.empty_like(matrices)
    out[:, order] = matrices
    return out.reshape(frames, count, 16)


def _rest(armature: bpy.types.Object, reads: KeyReads):
    """The bones' rest data the poses are built on (read once an export: ``reads.memo``): parents, rest
    offsets, depths, rotation modes, connected flags and ``pose.bones`` order; or why they cannot be used."""
    key = ("rest", armature.as_pointer())
    if key in reads.memo:
        return reads.memo[key]
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
    connected = np.array([b.use_connect for b in bones])
    offsets = np.array([be.offset_matrix(bone_mat[b], heads[b], lengths[p]) if p != -1 else arm_mat[b]
                        for b, p in enumerate(parents)])
    depth = np.zeros(count, dtype=np.int64)
    rest = None
    for b, p in enumerate(parents):
        if p != -1:
            if p > b:
                rest = f"bone {quoted(bones[p].name)} comes after its child"
                break
            depth[b] = depth[p] + 1
    if rest is None:
        rest = parents, offsets, depth, modes, connected, np.array([armature.pose.bones.find(b.name) for b in bones])
    reads.memo[key] = rest
    return rest
