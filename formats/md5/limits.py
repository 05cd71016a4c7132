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

import math
import re

import numpy as np

from ..message_text import quoted
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
_NUMBER = re.compile(rb"[-+]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?\Z|[-+]?(?:inf|nan)\Z", re.I)


def _meshes_over(counts: list[int], what: str, limit: int, source: str) -> list[str]:
    return parts_over(counts, ("mesh", "meshes"), what, limit, source)


def _long_names(names: list[str]) -> list[str]:
    long = [n for n in names if len(n.encode("utf-8", "surrogateescape")) > MAX_JOINT_NAME]
    if not long:
        return []
    return [f"{len(long)} joint name{'s' if len(long) > 1 else ''} longer than {MAX_JOINT_NAME} bytes "
            "(ironwail cuts them and then refuses the anim)"]


def first_unheld_line(source, limit: float = math.inf) -> int | None:
    """The line of the first number in ``source`` (an :class:`~.records.Md5Source`) that is not finite or
    lies beyond ``limit``: a token loop, run only once a count has found one."""
    if source is None:
        return None
    for token, in_quotes, start in zip(source.tokens, source.quoted, source.starts):
        if in_quotes or not _NUMBER.match(token):
            continue
        value = float(token)
        if not math.isfinite(value) or abs(value) > limit:
            return source.data.count(b"\n", 0, start) + 1
    return None


def unheld_numbers(model) -> list[str]:
    """The line for people when ``model`` (an :class:`~.records.Md5Mesh` or :class:`~.records.Md5Anim`) holds
    numbers that are not finite (``nan``, ``inf``): the engines read them, Blender cannot hold them and the
    import refuses the file."""
    if hasattr(model, "meshes"):
        arrays = [model.joint_pos, model.joint_orient] + [p.uv for p in model.meshes] + \
            [p.weight_pos for p in model.meshes] + [p.weight_bias for p in model.meshes]
    else:
        arrays = [model.bounds, model.base_pos, model.base_orient, model.frames]
    bad = sum(int((~np.isfinite(np.asarray(a, np.float64))).sum()) for a in arrays)
    if not bad:
        return []
    line = first_unheld_line(model.source)
    first = f", the first on line {line}" if line is not None and bad > 1 else f" on line {line}" if line else ""
    numbers = f"{bad} numbers are" if bad > 1 else "a number is"
    return [f"{numbers} not finite (nan or inf){first}: the import refuses the file; write a number there"]


def mesh_problems(mesh) -> list[str]:
    """What ``mesh`` (an :class:`~.records.Md5Mesh`) does that an engine will not take as it is: its limits
    (:func:`mesh_limits`) and vertices of more weights than ironwail draws (:func:`influence_problems`)."""
    return mesh_limits(mesh) + influence_problems(mesh)


def influence_problems(mesh) -> list[str]:
    """Vertices of more than 4 weights: ironwail draws each with its 4 largest (``MD5_BakeInfluences``),
    Q2PRO with every one; not a limit the exporter refuses."""
    counts = [np.asarray(p.weight_count) for p in mesh.meshes]
    most = max((int(c.max()) for c in counts if len(c)), default=0)
    over = sum(int((c > MAX_WEIGHTS_PER_VERTEX).sum()) for c in counts)
    vertices = f"{over} vert{'ices' if over != 1 else 'ex'}"
    return [f"{vertices} with more than {MAX_WEIGHTS_PER_VERTEX} weights (up to {most}; ironwail keeps the "
            f"{MAX_WEIGHTS_PER_VERTEX} largest)"] if over else []


def mesh_limits(mesh) -> list[str]:
    """The engines' limits ``mesh`` breaks (counts, name lengths); the exporter refuses these."""
    parts = mesh.meshes
    return count_limits(mesh.joint_names, [p.num_verts for p in parts], [len(p.triangles) for p in parts],
                        [len(p.weight_bias) for p in parts])


def count_limits(joint_names: list[str], verts: list[int], triangles: list[int], weights: list[int]) -> list[str]:
    """:func:`mesh_limits` of a mesh of ``joint_names`` and blocks of these counts."""
    return (over_limit(len(joint_names), "joints", MAX_JOINTS, "Q2PRO MD5_MAX_JOINTS")
            + _long_names(joint_names)
            + over_limit(len(verts), "meshes", MAX_MESHES, "Q2PRO MD5_MAX_MESHES")
            + _meshes_over(verts, "vertices", MAX_VERTICES, "Q2PRO TESS_MAX_VERTICES")
            + _meshes_over(triangles, "triangles", MAX_TRIANGLES, "Q2PRO TESS_MAX_INDICES / 3")
            + _meshes_over(weights, "weights", MAX_WEIGHTS, "Q2PRO MD5_MAX_WEIGHTS"))


def anim_problems(anim) -> list[str]:
    """The engines' limits ``anim`` (an :class:`~.records.Md5Anim`) breaks."""
    flags = np.asarray(anim.joint_flags)
    odd = int((flags & ~63).astype(bool).sum())
    return (over_limit(anim.num_joints, "joints", MAX_JOINTS, "Q2PRO MD5_MAX_JOINTS")
            + _long_names(anim.joint_names)
            + over_limit(anim.num_frames, "frames", MAX_FRAMES, "Q2PRO MD5_MAX_FRAMES")
            + over_limit(anim.num_components, "animated components", MAX_COMPONENTS, "Q2PRO anim_frame_data")
            + ([f"{odd} joints with flags above 63 (ironwail refuses them)"] if odd else []))


def _roots_and_order(names: list[str], parents: np.ndarray) -> list[str]:
    parents = np.asarray(parents)
    later = np.flatnonzero(parents >= np.arange(len(parents)))
    roots = np.flatnonzero(parents < 0)
    lines = []
    if len(later):
        j = int(later[0])
        several = len(later) > 1
        lines.append(f"{len(later)} joint{'s come' if several else ' comes'} before {'their' if several else 'its'} "
                     f"parent ({'the first: ' if several else ''}joint {j} {quoted(names[j])}, parent {int(parents[j])}): FTE and Q2PRO's "
                     "anim loader refuse that order; list every parent before its children")
    if len(parents) and parents[0] != -1:
        lines.append(f"the first joint {quoted(names[0])} is not a root: FTE wants joint 0 as the one root; list "
                     "the root first")
    elif len(roots) > 1:
        shown = ", ".join(quoted(names[int(r)]) for r in roots[:5]) + (" ..." if len(roots) > 5 else "")
        lines.append(f"{len(roots)} root joints ({shown}): FTE allows one root, joint 0; parent the others under it")
    return lines


def mesh_warnings(mesh) -> list[str]:
    """What the reader reports about a mesh it read (never refused for these)."""
    return mesh_problems(mesh) + _roots_and_order(mesh.joint_names, mesh.joint_parents) + unheld_numbers(mesh)


def anim_warnings(anim) -> list[str]:
    return anim_problems(anim) + unheld_numbers(anim)


def _anim_joint_line(anim, joint: int) -> str:
    """``", line N"``: where joint ``joint`` stands in the anim's hierarchy ('' for an anim not read from text)."""
    source = anim.source
    if source is None:
        return ""
    try:
        first = next(i for i, (t, q) in enumerate(zip(source.tokens, source.quoted)) if t == b"hierarchy" and not q)
        start = source.starts[first + 2 + 4 * joint]
    except (StopIteration, IndexError):
        return ""
    line = source.data.count(b"\n", 0, start) + 1
    return f", line {line}"


def _joints_listed(rows: list[str]) -> str:
    return "; ".join(rows[:5]) + (f"; and {len(rows) - 5} more" if len(rows) > 5 else "")


def pair_problems(mesh, anim) -> list[str]:
    """Why the engines would refuse ``anim`` beside ``mesh``: the joint count (ironwail "has incorrect
    joint count", Q2PRO "Bad numJoints", FTE "number of bones doesn't match"), a name (ironwail "joint
    was renamed", FTE "bone name doesn't match"), a parent (ironwail "joint has wrong parent", FTE); Q2PRO
    compares neither names nor parents (``src/refresh/models.c`` ``MOD_LoadMD5``): it poses joint k of the
    mesh with joint k of the anim, which the Q2PRO drawing test shows bent. Each line names the joints (the
    first five) and the anim's line of the first."""
    if mesh.num_joints != anim.num_joints:
        return [f"the anim has {anim.num_joints} joint{'s' if anim.num_joints != 1 else ''}, the mesh "
                f"{mesh.num_joints}: ironwail, Q2PRO and FTE refuse the pair; export the anim from the mesh's "
                "armature"]
    renamed = [j for j, (a, b) in enumerate(zip(mesh.joint_names, anim.joint_names)) if a != b]
    moved = np.flatnonzero(np.asarray(mesh.joint_parents) != np.asarray(anim.joint_parents)).tolist()
    lines = []
    if renamed:
        rows = [f"joint {j} is {quoted(mesh.joint_names[j])} in the mesh, {quoted(anim.joint_names[j])} in the anim"
                for j in renamed]
        lines.append(f"{len(renamed)} joint{'s are' if len(renamed) > 1 else ' is'} named differently in the anim "
                     f"({_joints_listed(rows)}{_anim_joint_line(anim, renamed[0])}): ironwail and FTE refuse the "
                     "pair, Q2PRO pairs joints by number and draws the mesh bent; give the anim's joints the mesh's "
                     "names and order")
    if moved:
        rows = [f"joint {j} {quoted(anim.joint_names[j])} has parent {int(mesh.joint_parents[j])} in the mesh, "
                f"{int(anim.joint_parents[j])} in the anim" for j in moved]
        lines.append(f"{len(moved)} joint{'s have' if len(moved) > 1 else ' has'} another parent in the anim "
                     f"({_joints_listed(rows)}{_anim_joint_line(anim, moved[0])}): ironwail and FTE refuse the "
                     "pair, Q2PRO pairs joints by number and draws the mesh bent; give the anim the mesh's "
                     "hierarchy")
    return lines
