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


def keys_record(source: bytes, rate: float, rig: str, paths: list[str], counts: np.ndarray, co: np.ndarray) -> str:
    """The JSON text an import stores (module docstring)."""
    return json.dumps({"source": source_digest(source), "rate": float(rate), "rig": rig,
                       "keys": keys_digest(paths, counts, co)})
