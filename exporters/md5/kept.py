"""An imported MD5 pair written back with its files' own text (``common/contract.py`` "# MD5"): the
import keeps the ``.md5mesh`` bytes on the armature and each ``.md5anim``'s on its action. Where the
model the export built has the kept file's shape (the same counts) and its values equal the kept ones
within the precision the file printed them with, the kept values (and so, through
:func:`...formats.md5.write.write_md5mesh` ``keep_text``, their characters) are written; values that
changed are written as evaluated.
"""
from __future__ import annotations

import numpy as np
import bpy

from ...common.contract import MD5_ANIM_SOURCE, MD5_MESH_SOURCE
from ...formats.errors import FormatError
from ...formats.md5.anim import read_md5anim
from ...formats.md5.mesh import read_md5mesh
from ...formats.md5.skinning import bind_joints, local_poses, skin_vertices
from ...formats.md5.write import detect_style, write_md5mesh


FLOAT32 = float(np.finfo(np.float32).eps)


def _tolerance(source, extent: float) -> float:
    """Half the file's last printed decimal, plus what Blender's float32 data can hold of numbers as
    large as ``extent`` (the model's size) after a few operations."""
    return 0.5 * 10.0 ** -detect_style(source).decimals + 8 * FLOAT32 * max(extent, 1.0)


def _merge(new: np.ndarray, old: np.ndarray, tolerance: float) -> np.ndarray | None:
    """``old`` where ``new`` equals it within ``tolerance``, else ``new``; None when shapes differ."""
    new, old = np.asarray(new), np.asarray(old)
    if new.shape != old.shape:
        return None
    if new.dtype.kind in "iu":
        return new
    return np.where(np.abs(new - old) <= tolerance, old, new)


def _rotation_change(new: np.ndarray, old: np.ndarray) -> np.ndarray:
    """Per quaternion (..., 4), the largest component change up to sign (q and -q are one rotation: a
    half turn has w = 0, and its x y z may be written either way)."""
    return np.minimum(np.abs(new - old).max(axis=-1), np.abs(new + old).max(axis=-1))


def _merged_mesh(mesh, kept):
    """The kept mesh with the evaluated values where they changed, or None when its shape (counts,
    weights, triangles) changed."""
    if (mesh.joint_names != kept.joint_names or len(mesh.meshes) != len(kept.meshes)
            or not np.array_equal(mesh.joint_parents, kept.joint_parents)):
        return None
    new_joints, old_joints = bind_joints(mesh), bind_joints(kept)
    extent = max([float(np.abs(kept.joint_pos).max(initial=0.0))]
                 + [float(np.abs(skin_vertices(p, *old_joints)).max(initial=0.0)) for p in kept.meshes])
    tolerance = _tolerance(kept.source, extent)
    kept.joint_pos = _merge(mesh.joint_pos, kept.joint_pos, tolerance)
    same_turn = _rotation_change(new_joints[1], old_joints[1]) <= tolerance
    kept.joint_orient = np.where(same_turn[:, None], kept.joint_orient, mesh.joint_orient)
    for new, old in zip(mesh.meshes, kept.meshes):
        if not _same_weights_in_kept_order(new, old, len(mesh.joint_names)):
            return None
        for name in ("weight_start", "weight_count", "triangles", "weight_joint"):
            if not np.array_equal(getattr(new, name), getattr(old, name)):
                return None
        old.uv = _merge(new.uv, old.uv, tolerance)
        bias = _merge(new.weight_bias, old.weight_bias, tolerance)
        # a weight's position is the file's own while its vertex is where the file puts it (a vertex of
        # several weights: the file's positions need not each be the vertex, only their weighted sum)
        same = np.abs(skin_vertices(new, *new_joints) - skin_vertices(old, *old_joints)).max(axis=1) <= tolerance
        owner = _owners(old)
        keep = (owner >= 0) & same[np.maximum(owner, 0)] & (bias == old.weight_bias)
        old.weight_pos = np.where(keep[:, None], old.weight_pos, new.weight_pos)
        old.weight_bias = bias
    return kept


def _owners(part) -> np.ndarray:
    """The vertex each weight (in file order) belongs to, -1 for a weight no vertex uses."""
    counts = np.asarray(part.weight_count, np.int64)
    index = np.repeat(np.asarray(part.weight_start, np.int64), counts) + (
        np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts))
    owner = np.full(len(part.weight_bias), -1, np.int64)
    owner[index] = np.repeat(np.arange(len(counts)), counts)
    return owner


def _same_weights_in_kept_order(new, old, joints: int) -> bool:
    """Put ``new``'s weights in ``old``'s order (each vertex's weights are a set: the export writes the
    largest first, a file may not); False when the vertices' weight sets differ."""
    if (len(new.weight_bias) != len(old.weight_bias) or not np.array_equal(new.weight_count, old.weight_count)
            or not np.array_equal(new.weight_start, old.weight_start)):
        return False
    new_key = _owners(new) * joints + np.asarray(new.weight_joint)
    old_key = _owners(old) * joints + np.asarray(old.weight_joint)
    new_order, old_order = np.argsort(new_key, kind="stable"), np.argsort(old_key, kind="stable")
    if not np.array_equal(new_key[new_order], old_key[old_order]):
        return False
    placed = np.empty_like(new_order)
    placed[old_order] = new_order
    new.weight_joint = np.asarray(new.weight_joint)[placed]
    new.weight_bias = np.asarray(new.weight_bias)[placed]
    new.weight_pos = np.asarray(new.weight_pos)[placed]
    return True


def _merged_anim(anim, kept, mesh_unchanged: bool):
    """The kept anim while no pose changed (its bounds too while the mesh did not change), else None."""
    if (anim.joint_names != kept.joint_names or anim.num_frames != kept.num_frames
            or not np.array_equal(anim.joint_parents, kept.joint_parents)):
        return None
    tolerance = _tolerance(kept.source, float(np.abs(kept.base_pos).max(initial=0.0)))
    new_pos, new_quat = local_poses(anim)
    old_pos, old_quat = local_poses(kept)
    if (np.abs(new_pos - old_pos).max(initial=0) > tolerance
            or _rotation_change(new_quat, old_quat).max(initial=0) > tolerance):
        return None            # the poses changed: the anim is written as evaluated, in the kept file's style
    if not mesh_unchanged:          # else the file's own bounds, as many as it had (ironwail reads any number)
        kept.bounds = anim.bounds
    return kept


def kept_pair(armature: bpy.types.Object, mesh, anim, played: list | None = None):
    """(mesh, anim, note, mesh text): the kept files' records where the built ones equal them, else the
    built ones; the anim's from the action ``played`` (Actions) or the armature's action (Timeline); the
    text :func:`write_md5mesh` gave the mesh when it was written to compare with the kept file, else None
    (the export writes it then, not twice)."""
    source = armature.get(MD5_MESH_SOURCE)
    if source is None:
        return mesh, anim, "", None
    try:
        kept_mesh = read_md5mesh(bytes(source))
    except FormatError:
        return mesh, anim, "", None
    merged = _merged_mesh(mesh, kept_mesh)
    notes = []
    if merged is not None:
        notes.append("md5mesh: the imported file's text kept where its values are unchanged")
        mesh = merged
    # the file's bounds hold while the mesh writes back as it was and no pose changed
    text = write_md5mesh(mesh) if merged is not None else None
    unchanged = text == bytes(source)
    if played is not None:          # Actions: the one action sampled (several make one anim of their own)
        action = played[0] if len(played) == 1 else None
    else:                           # Timeline: the armature's action
        action = armature.animation_data.action if armature.animation_data is not None else None
    anim_source = action.get(MD5_ANIM_SOURCE) if action is not None else None
    if anim_source is not None:
        try:
            kept_anim = read_md5anim(bytes(anim_source))
        except FormatError:
            kept_anim = None
        merged_anim = _merged_anim(anim, kept_anim, unchanged) if kept_anim is not None else None
        if merged_anim is not None:
            notes.append("md5anim: the imported file's text kept (poses unchanged)")
            anim = merged_anim
    return mesh, anim, "; ".join(notes), text
