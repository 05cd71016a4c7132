"""What an IQM import built, as one SHA-1 (``common/contract.py`` ``# IQM``): the import stores it on the
model's root (``IQM_DIGEST``), the export computes it again, and while the two are equal the scene is the
untouched import and the file's own bytes are written back.

It covers everything an IQM export could write from Blender: the root's transform; every bone (joint
index, name, parent, rest matrix); every object under the root (type, mesh index, name, transform) and
of a mesh its vertices, faces, UV layers, corner normals, colour attributes, vertex groups (names and
every weight), materials (names) and, with several slots, each face's slot (a merged import's
``IQM_MERGED`` too); every action of the import (``IQM_IMPORT_ID``): its name, the values the import
kept on it (its rate: ``ANIM_FRAME_RATE``, in an earlier version's ``IQM_ANIM_RATE``, so a saved
``.blend`` of one stays untouched) and every key of every F-curve. Values are Blender's own float32,
read with ``foreach_get``; vertex groups through ``Vertex.groups`` (Blender has no bulk read of them).
"""
from __future__ import annotations

import hashlib

import numpy as np

import bpy

from ..contract import ANIM_FRAME_RATE
from .contract import (
    IQM_ANIM_FRAMES,
    IQM_ANIM_INDEX,
    IQM_ANIM_LOOP,
    IQM_ANIM_RATE,
    IQM_IMPORT_ID,
    IQM_JOINT_INDEX,
    IQM_MERGED,
    IQM_MESH_INDEX,
)


def _floats(collection, attribute: str, width: int) -> bytes:
    values = np.zeros(len(collection) * width, np.float32)
    if len(collection):
        collection.foreach_get(attribute, values)
    return values.tobytes()


def _ints(collection, attribute: str) -> bytes:
    values = np.zeros(len(collection), np.int32)
    if len(collection):
        collection.foreach_get(attribute, values)
    return values.tobytes()


def _matrix(matrix) -> bytes:
    return np.array(matrix, np.float32).tobytes()


def _text(value: object) -> bytes:
    return repr(value).encode("utf-8", "surrogatepass") + b"\0"


def _mesh(digest, obj: bpy.types.Object) -> None:
    mesh = obj.data
    digest.update(_floats(mesh.vertices, "co", 3) + _ints(mesh.loops, "vertex_index")
                  + _ints(mesh.polygons, "loop_start") + _ints(mesh.polygons, "loop_total"))
    for layer in mesh.uv_layers:
        digest.update(_text(layer.name) + _floats(layer.uv, "vector", 2))
    normals = getattr(mesh, "corner_normals", None)
    if normals is not None:
        digest.update(_floats(normals, "vector", 3))
    for attribute in mesh.color_attributes:
        digest.update(_text((attribute.name, attribute.domain, attribute.data_type)) + _floats(attribute.data, "color", 4))
    digest.update(_text([g.name for g in obj.vertex_groups]))
    rows = [(i, e.group, e.weight) for i, v in enumerate(mesh.vertices) for e in v.groups]
    digest.update(np.array(rows, np.float32).tobytes())
    digest.update(_text([m.name if m is not None else None for m in mesh.materials]))
    if len(mesh.materials) > 1:          # which slot each face is in (a mesh of one slot: digests as before)
        digest.update(_ints(mesh.polygons, "material_index"))


def _fcurves(action: bpy.types.Action) -> list:
    if hasattr(action, "layers"):
        return [fc for layer in action.layers for strip in layer.strips
                for bag in getattr(strip, "channelbags", ()) for fc in bag.fcurves]
    return list(action.fcurves)


def import_actions(root: bpy.types.Object) -> list[bpy.types.Action]:
    """The actions the import of ``root`` made (its ``IQM_IMPORT_ID``), by the file frames they hold."""
    token = root.get(IQM_IMPORT_ID)
    found = [a for a in bpy.data.actions if token is not None and a.get(IQM_IMPORT_ID) == token]
    return sorted(found, key=lambda a: (tuple(a.get(IQM_ANIM_FRAMES, (0, 0))), a.name))


def scene_digest(root: bpy.types.Object) -> str:
    """The SHA-1 (hex) of the model under ``root`` (module docstring)."""
    digest = hashlib.sha1()
    digest.update(_matrix(root.matrix_basis))
    if root.type == "ARMATURE":
        for bone in sorted(root.data.bones, key=lambda b: (b.get(IQM_JOINT_INDEX, -1), b.name)):
            parent = bone.parent.get(IQM_JOINT_INDEX, bone.parent.name) if bone.parent is not None else -1
            digest.update(_text((bone.get(IQM_JOINT_INDEX), bone.name, parent)) + _matrix(bone.matrix_local))
    for obj in sorted(root.children, key=lambda o: (o.get(IQM_MESH_INDEX, -1), o.name)):
        digest.update(_text((obj.type, obj.get(IQM_MESH_INDEX), obj.name, obj.parent_type)) + _matrix(obj.matrix_basis)
                      + _matrix(obj.matrix_parent_inverse))
        if obj.get(IQM_MERGED) is not None:
            digest.update(_text(("merged", obj.get(IQM_MERGED))))
        if obj.type == "MESH":
            _mesh(digest, obj)
    for action in import_actions(root):
        rate = action.get(ANIM_FRAME_RATE, action.get(IQM_ANIM_RATE))      # an earlier import's: IQM_ANIM_RATE
        values = (action.get(IQM_ANIM_INDEX), rate, action.get(IQM_ANIM_LOOP))
        digest.update(_text((action.name, values, tuple(action.get(IQM_ANIM_FRAMES, ())))))
        for fcurve in sorted(_fcurves(action), key=lambda f: (f.data_path, f.array_index)):
            digest.update(_text((fcurve.data_path, fcurve.array_index, fcurve.mute))
                          + _floats(fcurve.keyframe_points, "co", 2) + _ints(fcurve.keyframe_points, "interpolation"))
    return digest.hexdigest()
