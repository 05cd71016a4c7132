"""MS3D writer: :class:`~.records.Ms3dModel` -> bytes, with the record definitions of :mod:`.records`
that the reader (:mod:`.codec`) uses too. Every field is checked against its type's range."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..errors import FormatError
from .codec import parse_ms3d
from .records import (
    ANIMATION,
    COMMENT_HEADER,
    GROUP_HEADER,
    HEADER,
    I8,
    I32,
    JOINT_EXTRA,
    JOINT_HEADER,
    KEY,
    MAGIC,
    MATERIAL,
    MODEL_EXTRA,
    NAME_SIZE,
    OPTIONAL_BLOCKS,
    PATH_SIZE,
    TRIANGLE,
    U16,
    VERTEX,
    VERTEX_EXTRA,
    Ms3dComments,
    Ms3dJoint,
    Ms3dJointExtras,
    Ms3dMaterial,
    Ms3dModel,
    Ms3dModelExtras,
    Ms3dVertexExtras,
)


def _checked(values, dtype: np.dtype, shape: tuple[int, ...], field: str) -> np.ndarray:
    """``values`` as ``dtype`` after checking its shape and, for integer fields, that it fits."""
    dtype = np.dtype(dtype)
    values = np.asarray(values)
    if values.shape != shape:
        raise FormatError(f"shape is {values.shape}, expected {shape}", field=field)
    if dtype.kind in "iu" and values.size:
        if values.dtype.kind not in "iub":
            raise FormatError(f"expected integers, got {values.dtype}", field=field)
        info = np.iinfo(dtype)
        if int(values.min()) < info.min or int(values.max()) > info.max:
            raise FormatError(f"values outside {info.min}..{info.max}", field=field)
    return values.astype(dtype)


def _fixed(raw: bytes, size: int, field: str) -> bytes:
    raw = bytes(raw)
    if len(raw) > size:
        raise FormatError(f"{len(raw)} bytes do not fit a {size}-byte field", field=field)
    return raw.ljust(size, b"\0")


def _count(n: int, field: str) -> bytes:
    return _checked(n, U16, (), field).tobytes()


def serialize_ms3d(model: Ms3dModel) -> bytes:
    """Encode ``model``: the inverse of :func:`parse_ms3d`, byte for byte for a parsed model.

    Raises :class:`FormatError` for a model that cannot be written (array lengths that disagree,
    counts above 65535, a text longer than its field, an optional block after an absent one) or
    that :func:`parse_ms3d` would reject: the result is read back before it is returned.
    """
    nverts, ntris = len(model.vert_xyz), len(model.tri_vertices)
    verts = np.zeros(nverts, VERTEX)
    for name, values in (("flags", model.vert_flags), ("xyz", model.vert_xyz), ("bone", model.vert_bone),
                         ("refcount", model.vert_refcount)):
        verts[name] = _checked(values, verts[name].dtype, verts[name].shape, f"vertex {name}")
    tris = np.zeros(ntris, TRIANGLE)
    for name, values in (("flags", model.tri_flags), ("vertices", model.tri_vertices),
                         ("normals", model.tri_normals), ("s", model.tri_s), ("t", model.tri_t),
                         ("smoothing_group", model.tri_smoothing), ("group", model.tri_group)):
        tris[name] = _checked(values, tris[name].dtype, tris[name].shape, f"triangle {name}")
    parts = [np.array((MAGIC, model.version), HEADER).tobytes(),
             _count(nverts, "nverts"), verts.tobytes(), _count(ntris, "ntris"), tris.tobytes(),
             _count(len(model.groups), "ngroups")]
    for g, group in enumerate(model.groups):
        head = np.zeros(1, GROUP_HEADER)
        head["flags"] = _checked(group.flags, np.uint8, (), f"group {g} flags")
        head["name"] = _fixed(group.name_raw, NAME_SIZE, f"group {g} name")
        indices = np.asarray(group.triangles)
        head["count"] = _checked(len(indices), U16, (), f"group {g} triangle count")
        parts += [head.tobytes(), _checked(indices, U16, (len(indices),), f"group {g} triangles").tobytes(),
                  _checked(group.material, I8, (), f"group {g} material").tobytes()]
    parts += [_count(len(model.materials), "nmaterials"), _material_records(model.materials).tobytes()]
    animation = np.zeros(1, ANIMATION)
    animation["fps"], animation["current_time"] = model.animation_fps, model.current_time
    animation["total_frames"] = _checked(model.total_frames, I32, (), "total_frames")
    parts += [animation.tobytes(), _count(len(model.joints), "njoints")]
    parts += [_joint_bytes(joint, j) for j, joint in enumerate(model.joints)]
    parts += _optional_block_bytes(model)
    parts.append(bytes(model.trailing))
    data = b"".join(parts)
    try:
        parse_ms3d(data)
    except FormatError as exc:
        raise FormatError(f"the model would not read back: {exc.message}", field=exc.field) from exc
    return data


def _material_records(materials: list[Ms3dMaterial]) -> np.ndarray:
    records = np.zeros(len(materials), MATERIAL)
    for m, (material, rec) in enumerate(zip(materials, records)):
        for name in ("ambient", "diffuse", "specular", "emissive"):
            rec[name] = _checked(getattr(material, name), np.float32, (4,), f"material {m} {name}")
        rec["shininess"], rec["transparency"] = material.shininess, material.transparency
        rec["mode"] = _checked(material.mode, I8, (), f"material {m} mode")
        rec["name"] = _fixed(material.name_raw, NAME_SIZE, f"material {m} name")
        rec["texture"] = _fixed(material.texture_raw, PATH_SIZE, f"material {m} texture")
        rec["alphamap"] = _fixed(material.alphamap_raw, PATH_SIZE, f"material {m} alphamap")
    return records


def _joint_bytes(joint: Ms3dJoint, j: int) -> bytes:
    head = np.zeros(1, JOINT_HEADER)
    head["flags"] = _checked(joint.flags, np.uint8, (), f"joint {j} flags")
    head["name"] = _fixed(joint.name_raw, NAME_SIZE, f"joint {j} name")
    head["parent"] = _fixed(joint.parent_raw, NAME_SIZE, f"joint {j} parent")
    head["rotation"] = _checked(joint.rotation, np.float32, (3,), f"joint {j} rotation")
    head["position"] = _checked(joint.position, np.float32, (3,), f"joint {j} position")
    parts = [head]
    for kind, count_field, keys in (("rotation", "nrot", joint.rot_keys), ("position", "npos", joint.pos_keys)):
        keys = np.asarray(keys)
        keys = _checked(keys, np.float32, (len(keys), 4), f"joint {j} {kind} keys")
        head[count_field] = _checked(len(keys), U16, (), f"joint {j} {count_field}")
        records = np.zeros(len(keys), KEY)
        records["time"], records["value"] = keys[:, 0], keys[:, 1:]
        parts.append(records)
    return b"".join(p.tobytes() for p in parts)


def _optional_block_bytes(model: Ms3dModel) -> list[bytes]:
    parts = []
    absent = None
    for name, attribute, known in OPTIONAL_BLOCKS:
        block = getattr(model, attribute)
        if block is None:
            absent = absent or name
            continue
        if absent:
            raise FormatError(f"{name} is present but {absent} is not: optional blocks are positional",
                              field=name)
        if block.subversion not in known:
            raise FormatError(f"subversion {block.subversion} cannot be written (known: {known})", field=name)
        parts.append(_checked(block.subversion, I32, (), f"{name} subversion").tobytes())
        parts.append(_BLOCK_WRITERS[attribute](block, model))
    return parts


def _comments_bytes(comments: Ms3dComments, model: Ms3dModel) -> bytes:
    parts = []
    for kind, items in (("group", comments.group), ("material", comments.material), ("joint", comments.joint)):
        parts.append(_checked(len(items), I32, (), f"{kind} comment count").tobytes())
        for i, comment in enumerate(items):
            head = np.zeros(1, COMMENT_HEADER)
            head["index"] = _checked(comment.index, I32, (), f"{kind} comment {i} index")
            head["length"] = _checked(len(comment.text_raw), I32, (), f"{kind} comment {i} length")
            parts += [head.tobytes(), bytes(comment.text_raw)]
    if comments.model_raw is None:
        parts.append(np.zeros(1, I32).tobytes())
    else:
        if not comments.model_flag:
            raise FormatError("model_flag must be non-zero when there is a model comment",
                              field="model comment")
        parts += [_checked(comments.model_flag, I32, (), "has_model_comment").tobytes(),
                  _checked(len(comments.model_raw), I32, (), "model comment length").tobytes(),
                  bytes(comments.model_raw)]
    return b"".join(parts)


def _vertex_extras_bytes(extras: Ms3dVertexExtras, model: Ms3dModel) -> bytes:
    records = np.zeros(model.num_vertices, VERTEX_EXTRA[extras.subversion])
    for name, values in (("bone_ids", extras.bone_ids), ("weights", extras.weights), ("extra", extras.extra)):
        if name in records.dtype.names and not (name == "extra" and values is None):
            records[name] = _checked(values, records[name].dtype, records[name].shape, f"vertex extras {name}")
    if extras.subversion == 1 and extras.extra is not None and np.asarray(extras.extra).size:
        raise FormatError("subversion 1 has no extra values", field="vertex extras extra")
    return records.tobytes()


def _joint_extras_bytes(extras: Ms3dJointExtras, model: Ms3dModel) -> bytes:
    records = np.zeros(len(model.joints), JOINT_EXTRA)
    records["color"] = _checked(extras.colors, np.float32, (len(model.joints), 3), "joint extras colors")
    return records.tobytes()


def _model_extras_bytes(extras: Ms3dModelExtras, model: Ms3dModel) -> bytes:
    record = np.zeros(1, MODEL_EXTRA)
    record["joint_size"], record["alpha_ref"] = extras.joint_size, extras.alpha_ref
    record["transparency_mode"] = _checked(extras.transparency_mode, I32, (), "model extras transparency_mode")
    return record.tobytes()


_BLOCK_WRITERS: dict[str, Callable[[Any, Ms3dModel], bytes]] = {
                  "comments": _comments_bytes, "vertex_extras": _vertex_extras_bytes,
                  "joint_extras": _joint_extras_bytes, "model_extras": _model_extras_bytes}
