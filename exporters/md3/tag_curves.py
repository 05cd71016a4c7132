"""Tag matrices straight from their F-curves, without stepping the timeline: the case of an imported
model's tags (an empty keyed per frame, parented to the model root), where stepping the scene re-evaluates
every surface's shape keys at every frame (0.4-0.9 s for a 14-surface, 156-frame turret).

It applies only where nothing but the object's own action moves it: its channels are location, rotation
(Euler in its rotation mode, or quaternion) and scale; no drivers, NLA, constraints or delta transforms;
parented as an object (not to a bone or vertex) to a parent that does not move. Then, as Blender composes
it (``BKE_object_to_mat4``, ``BKE_object_apply_mat4``' inverse): ``matrix_world = parent.matrix_world @
matrix_parent_inverse @ LocRotScale(location, rotation, scale)``. Otherwise the caller steps the timeline.
"""
from __future__ import annotations

import numpy as np

import bpy

from mathutils import Euler, Matrix, Quaternion

from ..sampling.frame_sampling import _fcurves_of, transform_animated

CHANNELS = {"location": 3, "rotation_euler": 3, "rotation_quaternion": 4, "scale": 3}


def _simple(obj: bpy.types.Object) -> list | None:
    """The object's F-curves where its matrix follows from them alone (see the module docstring), else None."""
    if obj.constraints or obj.parent_type != "OBJECT" or obj.rotation_mode == "AXIS_ANGLE":
        return None
    if (any(v != 0 for name in ("delta_location", "delta_rotation_euler") for v in getattr(obj, name))
            or tuple(obj.delta_scale) != (1.0, 1.0, 1.0)
            or tuple(obj.delta_rotation_quaternion) != (1.0, 0.0, 0.0, 0.0)):
        return None
    if transform_animated(obj.parent):
        return None
    curves = _fcurves_of(obj)
    if curves is None or any(c.data_path not in CHANNELS for c in curves):
        return None
    wanted = "rotation_quaternion" if obj.rotation_mode == "QUATERNION" else "rotation_euler"
    if any(c.data_path.startswith("rotation") and c.data_path != wanted for c in curves):
        return None
    return curves


def curve_matrices(objects: list[bpy.types.Object], times: list) -> np.ndarray | None:
    """(F, len(objects), 4, 4) world matrices at scene ``times``, or None when one of them needs the
    timeline stepped."""
    plans = [_simple(o) for o in objects]
    if any(p is None for p in plans):
        return None
    out = np.empty((len(times), len(objects), 4, 4))
    for k, (obj, curves) in enumerate(zip(objects, plans)):
        values = {name: np.tile(np.array(getattr(obj, name), np.float64), (len(times), 1)) for name in CHANNELS}
        for curve in curves:
            values[curve.data_path][:, curve.array_index] = [curve.evaluate(t) for t in times]
        base = (np.array(obj.parent.matrix_world) if obj.parent is not None else np.eye(4)) \
            @ np.array(obj.matrix_parent_inverse)
        for f in range(len(times)):
            if obj.rotation_mode == "QUATERNION":
                rotation = Quaternion(values["rotation_quaternion"][f]).normalized()
            else:
                rotation = Euler(values["rotation_euler"][f], obj.rotation_mode)
            out[f, k] = base @ np.array(Matrix.LocRotScale(values["location"][f], rotation, values["scale"][f]))
    return out
