"""An imported MD5 pair written back with its files' own text (``common/md5/contract.py``): the
import keeps the ``.md5mesh`` bytes on the armature and each ``.md5anim``'s on its action. Where the
model the export built has the kept file's shape (the same counts) and its values equal the kept ones
within the precision the file printed them with, the kept values (and so, through
:func:`...formats.md5.write.write_md5mesh` ``keep_text``, their characters) are written; values that
changed are written as evaluated.

Weights are compared per vertex as Blender holds them (:func:`_held`), not slot by slot: a file's vertex
with more than four weights, a weight of zero bias or two weights on one joint stays as the file wrote it
while the vertex group weights are the ones the import made of it. Blocks are matched by index
(MD5_MESH_INDEX orders the objects); a block whose vertices or triangles changed is written as built and
the others stay as kept, with the file's header.

A joint's bind rotation is the file's while its bone turned less than :func:`rest_allowance`: Blender
keeps a bone as head, tail and roll in float32 and rebuilds its rest matrix from them, which turns it by
round-off (up to 3e-4 radians in the corpus, near -Y) that no printed precision covers. Joints are
matched by index (``common/md5/contract.py`` MD5_JOINT_INDEX orders them), their positions within the
printed precision.
"""
from __future__ import annotations

import copy
import re
from dataclasses import dataclass
from pathlib import PurePosixPath

import numpy as np

import bpy

from ...common.md5.contract import MD5_ANIM_FRAMES, MD5_ANIM_SOURCE, MD5_MESH_SOURCE
from ...common.quaternions import quaternion_matrices
from ...common.stored_records import stored_bytes, stored_floats
from ...formats.errors import FormatError
from ...formats.md5.anim import read_md5anim
from ...formats.md5.mesh import read_md5mesh
from ...formats.md5.skinning import bind_joints, frame_joints, local_poses, quat_multiply, skin_vertices
from ...formats.md5.write import detect_style, write_md5mesh

FLOAT32 = float(np.finfo(np.float32).eps)
NEG_Y_SNAP = 2.5e-4       # Blender vec_roll_to_mat3_normalized (armature.cc) CRITICAL_THRESHOLD: a bone
                          # axis this close to -Y (distance in X and Z) is put on -Y
KEPT_NOTE = "md5anim: the imported file's text kept (poses unchanged)"
MESH_NOTE = "md5mesh: the imported file's text kept where its values are unchanged"
POSE_ROUND_OFF = 64      # pose_allowance
ROUND_OFF = 4             # twice the float32 error of a bone's axis in units of eps * (|head| + length) / length


def rest_allowance(quat: np.ndarray, heads: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """(J,) the largest turn (radians) of joints at rotations ``quat`` (x y z w) that Blender's head, tail
    and roll can give their bones (heads and display lengths in the armature's units).

    The axis is ``tail - head`` of two float32 points, off by about ``eps (|head| + length) / length``
    radians (2 at worst, :data:`ROUND_OFF` twice that); the roll is measured from a frame that turns
    about -Y, so an axis ``d`` away from -Y turns the bone's X and Z by the axis error over ``d``; an axis
    within :data:`NEG_Y_SNAP` of -Y is put on it (the bone turns by ``d``). Measured on the corpus
    (drone, player: axes 8e-4 to 0.1 from -Y) the turns are at most 0.62 of the first two terms without
    the factor; elsewhere under 4 eps * ratio."""
    axis = quaternion_matrices(quat)[:, :, 1]
    distance = np.linalg.norm(axis + np.array([0.0, 1.0, 0.0]), axis=1)
    lengths = np.maximum(np.asarray(lengths, np.float64), 1e-30)
    error = ROUND_OFF * FLOAT32 * (np.linalg.norm(heads, axis=1) + lengths) / lengths
    snapped = distance + error < NEG_Y_SNAP                # the axis put on -Y, as read and as rebuilt
    near = distance - error <= NEG_Y_SNAP                  # perhaps put on -Y
    twist = error * (1.0 + 1.0 / np.maximum(distance, NEG_Y_SNAP))
    return np.where(snapped, distance + error, twist + np.where(near, distance, 0.0))


def turn(new: np.ndarray, old: np.ndarray) -> np.ndarray:
    """(...,) the angle (radians) between rotations ``new`` and ``old`` (x y z w; q and -q alike)."""
    relative = quat_multiply(old * np.array([-1.0, -1.0, -1.0, 1.0]), new)
    return 2.0 * np.arctan2(np.linalg.norm(relative[..., :3], axis=-1), np.abs(relative[..., 3]))


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


def _merged_mesh(mesh, kept, lengths: np.ndarray):
    """The kept mesh with the evaluated values where they changed (a block whose vertices or triangles
    changed as built, under the file's shader while its material is the imported one), or None when its
    joints or its count of blocks changed; ``lengths`` the bones' lengths in joint order."""
    if (mesh.joint_names != kept.joint_names or len(mesh.meshes) != len(kept.meshes)
            or not np.array_equal(mesh.joint_parents, kept.joint_parents)):
        return None
    new_joints, old_joints = bind_joints(mesh), bind_joints(kept)
    extent = max([float(np.abs(kept.joint_pos).max(initial=0.0))]
                 + [float(np.abs(skin_vertices(p, *old_joints)).max(initial=0.0)) for p in kept.meshes])
    tolerance = _tolerance(kept.source, extent)
    unit = _tolerance(kept.source, 1.0)         # for numbers of 0..1 (weight shares, UVs), not the model's size
    kept.joint_pos = _merge(mesh.joint_pos, kept.joint_pos, tolerance)
    same_turn = turn(new_joints[1], old_joints[1]) <= tolerance + rest_allowance(old_joints[1], kept.joint_pos,
                                                                                 lengths)
    kept.joint_orient = np.where(same_turn[:, None], kept.joint_orient, mesh.joint_orient)
    for m, (new, old) in enumerate(zip(mesh.meshes, kept.meshes)):
        if not _merged_part(new, old, len(mesh.joint_names), new_joints, old_joints, tolerance, unit):
            new.shader = _kept_shader(new.shader, old.shader)
            kept.meshes[m] = new            # its shape changed: the block as built, the others as kept
    return kept


def _kept_shader(built: str | None, shader: str | None) -> str | None:
    """The file's shader for block ``built`` (named after its material) while that material keeps the name
    the import gave it from the shader (its last path part, or "md5" for a block without one;
    ``importers/md5/md5_import.py`` ``_materials``), Blender's ".001" suffix allowed; else ``built``."""
    name = PurePosixPath((shader or "").replace("\\", "/")).name or "md5"
    if built is not None and (built == name or re.fullmatch(re.escape(name) + r"\.[0-9]{3}", built)):
        return shader
    return built


def _slots(part) -> tuple[np.ndarray, np.ndarray]:
    """Each vertex's weights in vertex order: (vertex, weight index) per slot."""
    counts = np.asarray(part.weight_count, np.int64)
    vertex = np.repeat(np.arange(len(counts)), counts)
    return vertex, np.repeat(np.asarray(part.weight_start, np.int64), counts) + (
        np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts))


def _held(part, joints: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(vertex, joint, share), sorted by vertex then joint: a block's weights as Blender holds them once
    imported and the export reads them back. The import's vertex groups sum a joint given twice for a
    vertex and clip the sum to 0 .. 1 in float32 (``importers/md5/md5_rig.py`` ``vertex_weights``); the
    export leaves out weights of 0, scales the others to a sum of 1, and ties a vertex left without weight
    to joint 0 (:mod:`.blocks`)."""
    vertex, index = _slots(part)
    keys = vertex * joints + np.asarray(part.weight_joint, np.int64)[index]
    unique, inverse = np.unique(keys, return_inverse=True)
    total = np.bincount(inverse.ravel(), weights=np.asarray(part.weight_bias, np.float64)[index], minlength=len(unique))
    total = np.clip(total, 0.0, 1.0).astype(np.float32).astype(np.float64)
    kept = total > 0
    count = np.bincount(unique[kept] // joints, minlength=part.num_verts)
    none = np.flatnonzero(count == 0)
    vertex = np.concatenate([unique[kept] // joints, none])
    joint = np.concatenate([unique[kept] % joints, np.zeros(len(none), np.int64)])
    weight = np.concatenate([total[kept], np.ones(len(none))])
    order = np.lexsort((joint, vertex))
    vertex, joint, weight = vertex[order], joint[order], weight[order]
    return vertex, joint, weight / np.bincount(vertex, weight, minlength=part.num_verts)[vertex]


def _changed_vertices(new, old, joints: int, new_joints, old_joints, tolerance: float, unit: float) -> np.ndarray:
    """(V,) the vertices of a block that moved or whose weights Blender holds differ from the file's (as
    :func:`_held` reads both: a file's zero biases, a joint given twice, more than four weights, biases
    that do not sum to 1 are what they were while Blender holds what the import gave it)."""
    moved = np.abs(skin_vertices(new, *new_joints) - skin_vertices(old, *old_joints)).max(axis=1) > tolerance
    old_vertex, old_joint, old_share = _held(old, joints)
    new_vertex, new_joint, new_share = _held(new, joints)
    old_count = np.bincount(old_vertex, minlength=old.num_verts)
    changed = moved | (old_count != np.bincount(new_vertex, minlength=new.num_verts))
    a, b = ~changed[old_vertex], ~changed[new_vertex]          # as many rows, vertex by vertex
    differ = (old_joint[a] != new_joint[b]) | ~(np.abs(old_share[a] - new_share[b]) <= unit)
    np.logical_or.at(changed, old_vertex[a], differ)
    return changed


def _merged_part(new, old, joints: int, new_joints, old_joints, tolerance: float, unit: float) -> bool:
    """``old`` (a kept mesh block) with ``new``'s values where its vertices changed; False when the block's
    shape changed (vertex count, triangles).

    A vertex is unchanged while it lies where the file puts it and Blender holds the weights the import
    gave it (:func:`_changed_vertices`): it keeps the file's weights, every one (a vertex of several
    weights: the file's positions need not each be the vertex, only their weighted sum). A changed vertex
    takes every weight Blender holds (:mod:`.blocks`): in the file's weight slots when it has as many and
    no weight is shared by two vertices, else the block's weights are laid out again vertex by vertex."""
    if new.num_verts != old.num_verts or not np.array_equal(new.triangles, old.triangles):
        return False
    old.uv = _merge(new.uv, old.uv, unit * max(float(np.abs(old.uv).max(initial=0.0)), 1.0))
    changed = _changed_vertices(new, old, joints, new_joints, old_joints, tolerance, unit)
    if not changed.any():
        return True
    new_vertex, new_index = _slots(new)
    old_vertex, old_index = _slots(old)
    names = ("weight_joint", "weight_bias", "weight_pos")
    simple = np.array_equal(np.sort(old_index), np.arange(len(old.weight_bias)))   # each weight one vertex's
    if simple and np.array_equal(np.asarray(old.weight_count)[changed], np.asarray(new.weight_count)[changed]):
        for name in names:
            values = np.array(getattr(old, name))
            values[old_index[changed[old_vertex]]] = np.asarray(getattr(new, name))[new_index[changed[new_vertex]]]
            setattr(old, name, values)
        return True
    take_old, take_new = ~changed[old_vertex], changed[new_vertex]
    vertex = np.concatenate([old_vertex[take_old], new_vertex[take_new]])
    order = np.argsort(vertex, kind="stable")
    for name in names:
        values = np.concatenate([np.asarray(getattr(old, name))[old_index[take_old]],
                                 np.asarray(getattr(new, name))[new_index[take_new]]])
        setattr(old, name, values[order])
    old.weight_count = np.bincount(vertex, minlength=old.num_verts)
    old.weight_start = np.cumsum(old.weight_count) - old.weight_count
    return True


def pose_allowance(anim) -> tuple[np.ndarray, np.ndarray]:
    """(J,) the largest change of a joint's local position and quaternion component that Blender's float32
    pose evaluation gives an untouched imported anim: each level of the hierarchy multiplies float32
    matrices (``BKE_pose_where_is_bone``: the parent's pose, the bone's rest offset, its channels' matrix)
    and the export reads float32 matrices back; measured on the corpus (Red Eclipse's player, drone and
    weapons, hierarchies 6 deep) at most 20 eps per level for rotations and 12 eps per level times the
    model's extent for positions. :data:`POSE_ROUND_OFF` (64) gives three times that."""
    parents = np.asarray(anim.joint_parents, np.int64)
    depth = np.ones(len(parents))
    for joint, parent in enumerate(parents.tolist()):      # parents first (the codec refuses others)
        depth[joint] += depth[parent] if 0 <= parent < joint else 0.0
    with np.errstate(all="ignore"):
        world = np.nan_to_num(frame_joints(anim)[0])
    extent = max(float(np.abs(world).max(initial=0.0)), 1.0)
    rotation = POSE_ROUND_OFF * FLOAT32 * depth
    return rotation * extent, rotation


def _merged_anim(anim, kept, mesh_unchanged: bool):
    """The kept anim while no pose changed (its bounds too while the mesh did not change), else None."""
    if (anim.joint_names != kept.joint_names or anim.num_frames != kept.num_frames
            or not np.array_equal(anim.joint_parents, kept.joint_parents)):
        return None
    printed = _tolerance(kept.source, float(np.abs(kept.base_pos).max(initial=0.0)))
    new_pos, new_quat = local_poses(anim)
    old_pos, old_quat = local_poses(kept)
    position, rotation = pose_allowance(kept)
    if ((np.abs(new_pos - old_pos).max(axis=-1) > printed + position).any()
            or (_rotation_change(new_quat, old_quat) > printed + rotation).any()):
        return None            # the poses changed: the anim is written as evaluated, in the kept file's style
    if not mesh_unchanged:          # else the file's own bounds, as many as it had (ironwail reads any number)
        kept.bounds = anim.bounds
    return kept


def played_source(played: list) -> bytes | None:
    """The kept ``.md5anim`` the ``played`` actions hold together: one action's, or, for actions the import
    split from one anim (MD5_ANIM_FRAMES), its file's when they are played in its order, each of its frames
    once (an anim of other frames is sampled from Blender: several actions make one anim of their own)."""
    sources = [stored_bytes(action, MD5_ANIM_SOURCE) for action in played]
    if not sources or sources[0] is None:
        return None
    if len(played) == 1:
        return sources[0]
    following = 0
    for action, source in zip(played, sources):
        frames = stored_floats(action, MD5_ANIM_FRAMES, 2)
        if source is None or frames is None or int(frames[0]) != following or source != sources[0]:
            return None
        following = int(frames[1]) + 1
    return sources[0]


@dataclass
class KeptNotes:
    """What :func:`kept_pair` says it kept: the ``.md5mesh``'s line and the ``.md5anim``'s ("" where nothing)."""
    mesh: str = ""
    anim: str = ""

    def lines(self) -> list[str]:
        return [line for line in (self.mesh, self.anim) if line]


class KeptAnims:
    """Each ``.md5anim`` text the import kept, read once an export however many parts need it (its
    rate, :mod:`.anim_files`; its poses and characters, :func:`kept_anim`): ``kept(source)`` gives the record
    (a copy: an export changes its bounds) or None where the text does not read."""

    def __init__(self) -> None:
        self._read: dict[bytes, object] = {}

    def __call__(self, source: bytes):
        if source not in self._read:
            try:
                self._read[source] = read_md5anim(source)
            except FormatError:
                self._read[source] = None
        record = self._read[source]
        return copy.copy(record) if record is not None else None


def kept_mesh_of(armature: bpy.types.Object):
    """The ``.md5mesh`` the import kept on ``armature``, read (None: none kept, or not readable)."""
    source = stored_bytes(armature, MD5_MESH_SOURCE)
    try:
        return read_md5mesh(source) if source is not None else None
    except FormatError:
        return None


class KeptMesh:
    """The ``.md5mesh`` the import kept on ``armature``, read when first asked for (:meth:`record`, once an
    export). ``untouched``: the mesh objects are the import's (:func:`.untouched.mesh_held`), so the text is
    written back without being read (but for the UVs of a vertex no face uses, :func:`.blocks.file_loose`)."""

    def __init__(self, armature: bpy.types.Object, untouched: bool = False):
        self.armature, self.untouched = armature, untouched
        self._record = False

    def record(self):
        """:func:`kept_mesh_of` the armature (None: none kept, or not readable)."""
        if self._record is False:
            self._record = kept_mesh_of(self.armature)
        return self._record


def kept_pair(armature: bpy.types.Object, mesh, anim, played: list | None = None, kept_mesh=False,
              anims: KeptAnims | None = None):
    """(mesh, anim, :class:`KeptNotes`, mesh text): the kept files' records where the built ones equal them, else the
    built ones; the anim's from the action ``played`` (Actions) or the armature's action (Timeline); the
    text :func:`write_md5mesh` gave the mesh when it was written to compare with the kept file, else None
    (the export writes it then, not twice). ``kept_mesh``: :func:`kept_mesh_of` read already (it is
    changed here), else it is read; ``anims``: the kept anims read already."""
    source = stored_bytes(armature, MD5_MESH_SOURCE)
    if kept_mesh is False:
        kept_mesh = kept_mesh_of(armature)
    if kept_mesh is None:       # an anim's own skeleton (no mesh: its bounds stay the file's), or no kept file
        anim, note = kept_anim(armature, anim, played, not mesh.meshes, anims)
        return mesh, anim, KeptNotes(anim=note), None
    bones = armature.data.bones
    lengths = np.array([bones[name].length if name in bones else 0.0 for name in mesh.joint_names])
    merged = _merged_mesh(mesh, kept_mesh, lengths)
    notes = KeptNotes()
    if merged is not None:
        notes.mesh = MESH_NOTE
        mesh = merged
    elif len(mesh.meshes) == len(kept_mesh.meshes):
        # the joints changed: every block is built, yet keeps the file's shader and commandline
        for new, old in zip(mesh.meshes, kept_mesh.meshes):
            new.shader = _kept_shader(new.shader, old.shader)
        mesh.header.commandline = kept_mesh.header.commandline
    # the file's bounds hold while the mesh writes back as it was and no pose changed
    text = write_md5mesh(mesh) if merged is not None else None
    unchanged = text == source
    anim, notes.anim = kept_anim(armature, anim, played, unchanged, anims)
    return mesh, anim, notes, text


def kept_anim(armature: bpy.types.Object, anim, played: list | None, mesh_unchanged: bool,
              anims: KeptAnims | None = None):
    """(anim, note): the kept ``.md5anim`` of the action ``played`` (Actions) or the armature's action
    (Timeline) where no pose changed (its bounds while ``mesh_unchanged``), else ``anim``; ``anims``: the
    kept anims read already (else the text is read here)."""
    if anim is None:
        return None, ""
    if played is not None:          # Actions: the one action sampled, or the actions split from one anim
        anim_source = played_source(played)
    else:                           # Timeline: the armature's action
        action = armature.animation_data.action if armature.animation_data is not None else None
        anim_source = stored_bytes(action, MD5_ANIM_SOURCE)
    if anim_source is None:
        return anim, ""
    kept = (anims or KeptAnims())(anim_source)
    if kept is None:
        return anim, ""
    merged = _merged_anim(anim, kept, mesh_unchanged)
    if merged is None:
        return anim, ""
    return merged, KEPT_NOTE
