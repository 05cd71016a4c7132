"""What an MD5 import keyed, so that an export can tell an untouched anim without sampling it
(``contract.py`` MD5_ANIM_KEYS; ``exporters/md5/untouched.py``).

The record an import stores on the action of a whole ``.md5anim`` (JSON text): ``source``, a digest of the
file's bytes as kept (MD5_ANIM_SOURCE); ``rate``, its ``frameRate`` as read; ``keys``, a digest of the
action's F-curves as made: each one's data path and index in the action's order, its key count and every
key's ``co`` as float32 (what ``keyframe_points.foreach_get("co")`` reads back); ``rig``, a digest of the
armature's bones as the import left them (:func:`rig_digest`). The export computes the same digests from
what Blender holds; equal digests mean the keys, the file and the rest pose are the import's.
"""
from __future__ import annotations

import hashlib
import json

import numpy as np


def _hex(*parts: bytes) -> str:
    digest = hashlib.sha256()
    for part in parts:
        digest.update(len(part).to_bytes(8, "little"))
        digest.update(part)
    return digest.hexdigest()


def source_digest(source: bytes) -> str:
    return _hex(source)


def keys_digest(paths: list[str], counts: np.ndarray, co: np.ndarray) -> str:
    """The digest of F-curves: ``paths`` (``data_path[index]`` each, in the action's order), their key
    counts and every key's (frame, value) as float32, curve after curve."""
    return _hex("\n".join(paths).encode("utf-8"), np.asarray(counts, "<i8").tobytes(),
                np.ascontiguousarray(co, "<f4").tobytes())


def _floats(collection, name: str, size: int) -> bytes:
    out = np.empty(len(collection) * size, np.float32)
    collection.foreach_get(name, out)
    return out.tobytes()


def _flags(collection, name: str) -> bytes:
    out = np.empty(len(collection), bool)
    collection.foreach_get(name, out)
    return out.tobytes()


def rig_digest(armature, order: list[str]) -> str:
    """The digest of what an armature's poses are built on: the bones in joint ``order``, each bone's
    parent, rest matrices, head, length, connection and inheritance, its pose bone's rotation mode."""
    bones = armature.data.bones
    pose_bones = armature.pose.bones
    names = "\n".join([*order, "", *(b.name for b in bones), "", *(b.name for b in pose_bones)])
    per_bone = "\n".join(f"{b.parent.name if b.parent is not None else ''}\t{b.inherit_scale}\t"
                         f"{pose_bones[b.name].rotation_mode if b.name in pose_bones else ''}" for b in bones)
    return _hex(names.encode("utf-8"), per_bone.encode("utf-8"), _floats(bones, "matrix_local", 16),
                _floats(bones, "matrix", 9), _floats(bones, "head", 3), _floats(bones, "length", 1),
                _flags(bones, "use_connect"), _flags(bones, "use_inherit_rotation"), _flags(bones, "use_local_location"))


def _ints(collection, name: str, size: int = 1) -> bytes:
    out = np.empty(len(collection) * size, np.int32)
    collection.foreach_get(name, out)
    return out.tobytes()


def _weights(mesh) -> bytes:
    """Every vertex group membership (vertex, group, weight) in vertex order: Blender has no bulk read of
    them, so ``Vertex.groups`` is walked once."""
    rows = [(i, g.group, g.weight) for i, v in enumerate(mesh.vertices) for g in v.groups]
    return np.array(rows, np.float64).reshape(-1, 3).tobytes()


ARMATURE_FLAGS = ("use_vertex_groups", "use_bone_envelopes", "use_deform_preserve_volume", "use_multi_modifier",
                  "invert_vertex_group", "show_viewport")


def _modifiers(obj, armature) -> str:
    """Each modifier's type (an Armature one's flags, vertex group and whether it deforms by ``armature``)."""
    return "\n".join(m.type + ("" if m.type != "ARMATURE" else
                               f"\t{m.object == armature}\t{m.vertex_group}\t"
                               + "".join(str(int(getattr(m, flag))) for flag in ARMATURE_FLAGS))
                     for m in obj.modifiers)


def mesh_digest(armature, order: list[str], meshes: list, index_key: str, degenerate_key: str) -> str:
    """The digest of what an MD5 export reads of ``meshes`` (in their export order) beside the rest pose
    (:func:`rig_digest`): per object its block index (``index_key``), parenting, modifiers, shape keys, vertex
    group names and memberships, vertices, faces, material indexes, the active UV map and the kept degenerate
    triangles (``degenerate_key``); the bones' deform flags and :func:`rig_digest` in joint ``order``. Not
    the objects' matrices: the export asks for them to be the identity."""
    parts = [rig_digest(armature, order).encode("ascii"), _flags(armature.data.bones, "use_deform")]
    for obj in meshes:
        mesh = obj.data
        uv = mesh.uv_layers.active
        degenerate = mesh.get(degenerate_key)
        head = (f"{obj.get(index_key)}\t{obj.parent == armature}\t{obj.parent_type}\t{obj.parent_bone}\t"
                f"{mesh.shape_keys is not None}\t{uv is not None}\n{_modifiers(obj, armature)}\n"
                + "\n".join(g.name for g in obj.vertex_groups))
        parts += [head.encode("utf-8"), _floats(mesh.vertices, "co", 3), _ints(mesh.loops, "vertex_index"),
                  _ints(mesh.polygons, "loop_total"), _ints(mesh.polygons, "material_index"),
                  _floats(uv.uv, "vector", 2) if uv is not None else b"", _weights(mesh),
                  bytes(degenerate) if isinstance(degenerate, (bytes, bytearray)) else b""]
    return _hex(*parts)


def mesh_record(source: bytes, mesh: str, over: int, most: int, blocks: list[list[int]], unweighted: int,
                loose: int) -> str:
    """The JSON text an import stores on an ``.md5mesh``'s armature: digests of the file (``source``) and of
    the objects made (``mesh``, :func:`mesh_digest`), and what an untouched export reports and checks the
    engines' limits on without building the blocks: the vertices with more than four weights (``over``,
    ``most`` the most on one), each block's (vertices, triangles, weights), the vertices without a weight
    (``unweighted``) and those no triangle uses (``loose``)."""
    return json.dumps({"source": source_digest(source), "mesh": mesh, "over": int(over), "most": int(most),
                       "blocks": [[int(n) for n in counts] for counts in blocks], "unweighted": int(unweighted),
                       "loose": int(loose)})


def keys_record(source: bytes, rate: float, rig: str, paths: list[str], counts: np.ndarray, co: np.ndarray) -> str:
    """The JSON text an import stores (module docstring)."""
    return json.dumps({"source": source_digest(source), "rate": float(rate), "rig": rig,
                       "keys": keys_digest(paths, counts, co)})
