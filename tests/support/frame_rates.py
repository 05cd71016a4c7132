"""Exports at a frame rate and what Blender shows at the same times: positions, decoded files."""
from __future__ import annotations

import math

import numpy as np

from .md2_reference import decode as decode_md2
from .mdl_reference import decode as decode_mdl


def blender_positions(bpy, obj, frame: float) -> np.ndarray:
    """World-space evaluated vertices at scene time ``frame``, straight from Blender."""
    scene = bpy.context.scene
    whole = math.floor(frame + 1e-9)
    scene.frame_set(whole, subframe=max(0.0, frame - whole))
    depsgraph = bpy.context.evaluated_depsgraph_get()
    evaluated = obj.evaluated_get(depsgraph)
    mesh = evaluated.to_mesh()
    co = np.empty(len(mesh.vertices) * 3, np.float32)
    mesh.vertices.foreach_get("co", co)
    matrix = np.array(evaluated.matrix_world, np.float64)
    evaluated.to_mesh_clear()
    return co.reshape(-1, 3).astype(np.float64) @ matrix[:3, :3].T + matrix[:3, 3]


def export(bpy, obj, path, **options) -> bytes:
    for other in bpy.context.view_layer.objects:
        other.select_set(other == obj)
    kind = path.suffix[1:]
    path.parent.mkdir(parents=True, exist_ok=True)
    assert getattr(bpy.ops.export_scene, kind)(filepath=str(path), **options) == {"FINISHED"}
    return path.read_bytes()


def decoded(kind: str, data: bytes) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """(F, V, 3) positions, (F, 3) half quantisation steps, frame names."""
    if kind == "md2":
        ref = decode_md2(data)
        return np.array(ref.positions, np.float64), np.array(ref.scale, np.float64) / 2, ref.frame_names
    ref = decode_mdl(data)
    poses = [pose for frame in ref.frames for pose in frame.poses]
    verts = np.array([[v[:3] for v in pose.verts] for pose in poses], np.float64)
    half = np.broadcast_to(np.array(ref.scale, np.float64) / 2, (len(poses), 3))
    names = [pose.name_raw.split(b"\0")[0].decode("latin-1") for pose in poses]
    return verts * np.array(ref.scale) + np.array(ref.translate), half, names


def within_half_a_step(positions: np.ndarray, half: np.ndarray, truth: np.ndarray) -> bool:
    """Every file vertex within half a quantisation step of its Blender vertex. MDL splits vertices
    on UV seams (one texture coordinate per vertex): a split vertex is matched to the Blender vertex
    it lies nearest to (the sphere's vertices are far apart next to the step)."""
    if len(positions) != len(truth):
        nearest = np.linalg.norm(positions[:, None] - truth[None], axis=-1).argmin(axis=1)
        if set(nearest) != set(range(len(truth))):
            return False
        truth = truth[nearest]
    return bool(np.all(np.abs(positions - truth) <= half + 1e-4))
