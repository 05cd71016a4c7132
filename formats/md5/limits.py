"""What the engines that load MD5 replacements can take, as constants the exporter checks, and the lines
for people that name what a model breaks (one line per kind of problem, with a count).

Each limit, with where it comes from:

- :data:`MAX_JOINTS` 256: Q2PRO ``src/refresh/gl.h`` ``MD5_MAX_JOINTS`` (``MD5_ParseMesh`` refuses more;
  its weights keep the joint in a ``uint8_t jointnums``).
- :data:`MAX_JOINT_NAME` 31 bytes: ironwail ``Quake/gl_model.c`` ``jointinfo_t`` holds ``char name[32]``
  (``q_strlcpy`` cuts a longer name) and ``MD5Anim_Load`` compares that with the anim's full name, so a
  longer name is refused ("joint was renamed"); Q2PRO's ``MD5_MAX_JOINTNAME`` is 48.
- :data:`MAX_MESHES` 32: Q2PRO ``MD5_MAX_MESHES``.
- :data:`MAX_VERTICES` 6144 and :data:`MAX_TRIANGLES` 6144 per mesh: Q2PRO ``TESS_MAX_VERTICES`` and
  ``TESS_MAX_INDICES / 3`` (``MD5_ParseMesh`` ranges for ``numverts`` and ``numtris``); ironwail keeps
  indexes in ``unsigned short`` (65536 vertices per mesh, :data:`QUAKE_MAX_VERTICES`).
- :data:`MAX_WEIGHTS` 8192 per mesh: Q2PRO ``MD5_MAX_WEIGHTS``; a vertex's start and count at most
  65535 (``MD5_ParseUint(&s, 0, UINT16_MAX)``).
- :data:`MAX_WEIGHTS_PER_VERTEX` 4: ironwail ``MD5_BakeInfluences`` keeps the four largest weights of a
  vertex (``NUM_JOINT_INFLUENCES``) and scales them to a sum of 1; more are drawn wrong, not refused.
  Q2PRO skins with every weight of a vertex (``src/refresh/mesh.c`` ``calc_skel_vert``), so the export
  writes them all and says how many vertices have more (``exporters/md5/blocks.py``).
- :data:`MAX_FRAMES` 1024: Q2PRO ``MD5_MAX_FRAMES``; :data:`MAX_COMPONENTS` = 6 per joint
  (``anim_frame_data[MD5_MAX_JOINTS * MD5_NUM_ANIMATED_COMPONENT_BITS]``).
- flags: ironwail refuses bits above 63 ("joint has unsupported flags").
"""
from __future__ import annotations

import numpy as np

from ..report_lines import over_limit, parts_over

MAX_JOINTS = 256
MAX_JOINT_NAME = 31
MAX_MESHES = 32
MAX_VERTICES = 6144
MAX_TRIANGLES = 6144
QUAKE_MAX_VERTICES = 65536
MAX_WEIGHTS = 8192
MAX_WEIGHT_INDEX = 65535
MAX_WEIGHTS_PER_VERTEX = 4
MAX_FRAMES = 1024
MAX_COMPONENTS = MAX_JOINTS * 6


def _meshes_over(counts: list[int], what: str, limit: int, source: str) -> list[str]:
    return parts_over(counts, ("mesh", "meshes"), what, limit, source)


def _long_names(names: list[str]) -> list[str]:
    long = [n for n in names if len(n.encode("utf-8", "surrogateescape")) > MAX_JOINT_NAME]
    if not long:
        return []
    return [f"{len(long)} joint name{'s' if len(long) > 1 else ''} longer than {MAX_JOINT_NAME} bytes "
            "(ironwail cuts them and then refuses the anim)"]


def _finite(arrays: list[np.ndarray], what: str) -> list[str]:
    bad = sum(int((~np.isfinite(a)).sum()) for a in arrays)
    return [f"{bad} {what} not finite (inf or nan)"] if bad else []


def mesh_problems(mesh) -> list[str]:
    """The engines' limits ``mesh`` (an :class:`~.records.Md5Mesh`) breaks; the exporter refuses these."""
    parts = mesh.meshes
    counts = [np.asarray(p.weight_count) for p in parts]
    most = max((int(c.max()) for c in counts if len(c)), default=0)
    over = sum(int((c > MAX_WEIGHTS_PER_VERTEX).sum()) for c in counts)
    return (over_limit(mesh.num_joints, "joints", MAX_JOINTS, "Q2PRO MD5_MAX_JOINTS")
            + _long_names(mesh.joint_names)
            + over_limit(len(parts), "meshes", MAX_MESHES, "Q2PRO MD5_MAX_MESHES")
            + _meshes_over([p.num_verts for p in parts], "vertices", MAX_VERTICES, "Q2PRO TESS_MAX_VERTICES")
            + _meshes_over([len(p.triangles) for p in parts], "triangles", MAX_TRIANGLES,
                           "Q2PRO TESS_MAX_INDICES / 3")
            + _meshes_over([len(p.weight_bias) for p in parts], "weights", MAX_WEIGHTS, "Q2PRO MD5_MAX_WEIGHTS")
            + ([f"{over} vertices with more than {MAX_WEIGHTS_PER_VERTEX} weights (up to {most}; ironwail keeps "
                f"the {MAX_WEIGHTS_PER_VERTEX} largest)"] if over else []))


def anim_problems(anim) -> list[str]:
    """The engines' limits ``anim`` (an :class:`~.records.Md5Anim`) breaks."""
    flags = np.asarray(anim.joint_flags)
    odd = int((flags & ~63).astype(bool).sum())
    return (over_limit(anim.num_joints, "joints", MAX_JOINTS, "Q2PRO MD5_MAX_JOINTS")
            + _long_names(anim.joint_names)
            + over_limit(anim.num_frames, "frames", MAX_FRAMES, "Q2PRO MD5_MAX_FRAMES")
            + over_limit(anim.num_components, "animated components", MAX_COMPONENTS, "Q2PRO anim_frame_data")
            + ([f"{odd} joints with flags above 63 (ironwail refuses them)"] if odd else []))


def _roots_and_order(parents: np.ndarray) -> list[str]:
    parents = np.asarray(parents)
    later = int((parents >= np.arange(len(parents))).sum())
    roots = int((parents < 0).sum())
    lines = [f"{later} joints whose parent does not come before them (FTE and Q2PRO's anim refuse them)"
             ] if later else []
    if roots > 1 or (len(parents) and parents[0] != -1):
        lines.append(f"{roots} root joints, or a first joint that is not a root (FTE allows one root, joint 0)")
    return lines


def mesh_warnings(mesh) -> list[str]:
    """What the reader reports about a mesh it read (never refused for these)."""
    parts = mesh.meshes
    return (mesh_problems(mesh) + _roots_and_order(mesh.joint_parents)
            + _finite([mesh.joint_pos, mesh.joint_orient] + [p.uv for p in parts] + [p.weight_pos for p in parts]
                      + [p.weight_bias for p in parts], "numbers"))


def anim_warnings(anim) -> list[str]:
    return anim_problems(anim) + _finite([anim.bounds, anim.base_pos, anim.base_orient, anim.frames], "numbers")


def pair_problems(mesh, anim) -> list[str]:
    """Why the engines would refuse ``anim`` beside ``mesh``: the joint count (ironwail "has incorrect
    joint count", Q2PRO "Bad numJoints", FTE "number of bones doesn't match"), a name (ironwail "joint
    was renamed", FTE "bone name doesn't match"), a parent (ironwail "joint has wrong parent", FTE)."""
    if mesh.num_joints != anim.num_joints:
        return [f"the anim has {anim.num_joints} joints, the mesh {mesh.num_joints}: ironwail, Q2PRO and FTE "
                "refuse the pair"]
    renamed = sum(a != b for a, b in zip(mesh.joint_names, anim.joint_names))
    moved = int((np.asarray(mesh.joint_parents) != np.asarray(anim.joint_parents)).sum())
    return ([f"{renamed} joints named differently in the anim: ironwail and FTE refuse the pair"] if renamed else []) \
        + ([f"{moved} joints with another parent in the anim: ironwail and FTE refuse the pair"] if moved else [])
