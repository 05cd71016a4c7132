"""MS3D reader: bytes -> :class:`~.records.Ms3dModel` (the layout is in :mod:`.records`, the writer
in :mod:`.write`).

The file may end before any optional block, or inside one (released files do: a vertex-extras block
cut after its subversion and 3 bytes): the cut block and what follows are kept in ``trailing`` with
a warning naming the block, its offset and what was missing. Ending inside the required blocks is
an error.

MilkShape ignores trailing data it does not understand, so an unknown subversion stops the reading of
optional blocks: the bytes from that subversion on are kept in ``trailing`` (written back verbatim)
and a warning says so. Names decode in the ``encoding`` given (see :func:`~.text.decode_text`).

Index checks: triangle vertex indices, group triangle indices and group material indices must be in
range (an importer indexes arrays with them). A triangle's own ``group`` byte only repeats what the
group lists say; no corpus file gets it wrong, but as nothing depends on it an out-of-range or
contradicting value is a warning, as are out-of-range bone ids and comment indices. ``refcount`` is
editor bookkeeping, kept but never checked (sge/arrow.ms3d writes 0 for every vertex), and
``animation_fps`` may be 0 (same file). Non-finite vertex positions, normals, texture coordinates,
joint rest poses and key times or values raise, naming the field and the float's byte offset.
"""
from __future__ import annotations

import numpy as np

from ..binary import check_span, read_records, read_struct, require_finite
from ..errors import FormatError
from ..magics import magic_problem
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
    MIN_GROUP_SIZE,
    MODEL_EXTRA,
    OPTIONAL_BLOCKS,
    TRIANGLE,
    U16,
    VERSIONS,
    VERTEX,
    VERTEX_EXTRA,
    Ms3dComment,
    Ms3dComments,
    Ms3dGroup,
    Ms3dJoint,
    Ms3dJointExtras,
    Ms3dMaterial,
    Ms3dModel,
    Ms3dModelExtras,
    Ms3dVertexExtras,
)


class _CutShort(FormatError):
    """A read that runs past the end of the file (the file was cut short there)."""


class _Cursor:
    """Sequential bounds-checked reads; ``pos`` is the next unread byte."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.pos = 0

    @property
    def remaining(self) -> int:
        return len(self.data) - self.pos

    def _within(self, size: int, field: str) -> None:
        if size >= 0 and self.pos + size > len(self.data):
            raise _CutShort(f"needs {size} bytes at offset {self.pos}, file has {len(self.data)}",
                            field=field, offset=self.pos)

    def records(self, dtype: np.dtype, count: int, field: str) -> np.ndarray:
        self._within(dtype.itemsize * count, field)
        out = read_records(self.data, self.pos, dtype, count, field)
        self.pos += dtype.itemsize * count
        return out

    def one(self, dtype: np.dtype, field: str) -> np.void:
        self._within(dtype.itemsize, field)
        out = read_struct(self.data, self.pos, dtype, field)
        self.pos += dtype.itemsize
        return out

    def raw(self, size: int, field: str) -> bytes:
        self._within(size, field)
        check_span(self.data, self.pos, size, field)
        self.pos += size
        return self.data[self.pos - size:self.pos]

    def count(self, dtype: np.dtype, field: str, min_item_size: int) -> int:
        """A count of records of at least ``min_item_size`` bytes each, checked against the bytes left."""
        at = self.pos
        n = int(self.one(dtype, field))
        if n < 0:
            raise FormatError(f"negative count {n}", field=field, offset=at)
        if n * min_item_size > self.remaining:
            raise _CutShort(f"{n} records need at least {n * min_item_size} bytes at offset {self.pos}, "
                            f"file has {len(self.data)}", field=field, offset=at)
        return n


def _check_finite(values: np.ndarray, field: str, base: int, dtype: np.dtype, name: str) -> None:
    """Raise at the byte offset of the first non-finite float of record field ``name``."""
    flat = values.reshape(len(values), int(np.prod(values.shape[1:])))
    bad = ~np.isfinite(flat)
    if bad.any():
        row, col = (int(i) for i in np.argwhere(bad)[0])
        require_finite(flat[row], f"{field} {row}",
                       base + row * dtype.itemsize + dtype.fields[name][1] + 4 * col)


def _check_index(indices: np.ndarray, count: int, what: str, field: str,
                 base: int, stride: int, start: int) -> None:
    """Raise at the first entry of ``indices`` (one row per record) that is not below ``count``."""
    flat = indices.reshape(len(indices), int(np.prod(indices.shape[1:])))
    bad = flat >= count
    if bad.any():
        row, col = (int(i) for i in np.argwhere(bad)[0])
        raise FormatError(f"{what} {row} index {int(flat[row, col])} is out of range (count {count})",
                          field=field, offset=base + row * stride + start + flat.itemsize * col)


def parse_ms3d(data: bytes, encoding: str = "auto") -> Ms3dModel:
    """Decode an MS3D file, its names in ``encoding`` (see :func:`~.text.decode_text`); raises
    :class:`FormatError` for anything malformed."""
    data = bytes(data)
    cur = _Cursor(data)
    header = cur.one(HEADER, "header")
    if header["id"] != MAGIC:
        raise FormatError(magic_problem(data, (MAGIC,), "id"), field="id", offset=0)
    version = int(header["version"])
    if version not in VERSIONS:
        raise FormatError(f"version is {version}, expected 3 or 4", field="version",
                          offset=HEADER.fields["version"][1])
    warnings: list[str] = []

    nverts = cur.count(U16, "nverts", VERTEX.itemsize)
    verts_at = cur.pos
    verts = cur.records(VERTEX, nverts, "vertices")
    _check_finite(verts["xyz"], "vertex xyz", verts_at, VERTEX, "xyz")

    ntris = cur.count(U16, "ntris", TRIANGLE.itemsize)
    tris_at = cur.pos
    tris = cur.records(TRIANGLE, ntris, "triangles")
    _check_index(tris["vertices"], nverts, "triangle", "triangle vertices", tris_at, TRIANGLE.itemsize,
                 TRIANGLE.fields["vertices"][1])
    for name in ("normals", "s", "t"):
        _check_finite(tris[name], f"triangle {name}", tris_at, TRIANGLE, name)

    ngroups = cur.count(U16, "ngroups", MIN_GROUP_SIZE)
    groups, material_offsets = [], []
    for g in range(ngroups):
        head = cur.one(GROUP_HEADER, f"group {g}")
        tri_at = cur.pos
        indices = cur.records(U16, int(head["count"]), f"group {g} triangles")
        _check_index(indices[:, None], ntris, f"group {g} entry", f"group {g} triangles", tri_at, 2, 0)
        material_offsets.append(cur.pos)
        groups.append(Ms3dGroup(int(head["flags"]), bytes(head["name"]), indices,
                                int(cur.one(I8, f"group {g} material"))))

    nmaterials = cur.count(U16, "nmaterials", MATERIAL.itemsize)
    materials = [_material(rec) for rec in cur.records(MATERIAL, nmaterials, "materials")]
    for g, (group, at) in enumerate(zip(groups, material_offsets)):
        if not -1 <= group.material < nmaterials:
            raise FormatError(f"group {g} material {group.material} is out of range ({nmaterials} materials)",
                              field=f"group {g} material", offset=at)
    _warn_triangle_groups(tris["group"], groups, warnings)

    animation = cur.one(ANIMATION, "animation")
    njoints = cur.count(U16, "njoints", JOINT_HEADER.itemsize)
    joints = [_read_joint(cur, j) for j in range(njoints)]
    if nverts and (np.any(verts["bone"] < -1) or np.any(verts["bone"] >= njoints)):
        warnings.append(f"vertex bone ids outside -1..{njoints - 1}: such vertices are unbound")

    v = {name: np.ascontiguousarray(verts[name]) for name in VERTEX.names}
    t = {name: np.ascontiguousarray(tris[name]) for name in TRIANGLE.names}
    model = Ms3dModel(
        vert_flags=v["flags"], vert_xyz=v["xyz"], vert_bone=v["bone"], vert_refcount=v["refcount"],
        tri_flags=t["flags"], tri_vertices=t["vertices"], tri_normals=t["normals"], tri_s=t["s"], tri_t=t["t"],
        tri_smoothing=t["smoothing_group"], tri_group=t["group"], groups=groups, materials=materials,
        animation_fps=animation["fps"], current_time=animation["current_time"],
        total_frames=int(animation["total_frames"]), joints=joints, version=version, warnings=warnings)
    _read_optional_blocks(cur, model, (ngroups, nmaterials, njoints))
    model.set_name_encoding(encoding)
    return model


def _material(rec: np.void) -> Ms3dMaterial:
    return Ms3dMaterial(
        name_raw=bytes(rec["name"]), ambient=rec["ambient"].copy(), diffuse=rec["diffuse"].copy(),
        specular=rec["specular"].copy(), emissive=rec["emissive"].copy(), shininess=rec["shininess"],
        transparency=rec["transparency"], mode=int(rec["mode"]),
        texture_raw=bytes(rec["texture"]), alphamap_raw=bytes(rec["alphamap"]))


def _read_joint(cur: _Cursor, j: int) -> Ms3dJoint:
    head_at = cur.pos
    head = cur.records(JOINT_HEADER, 1, f"joint {j}")
    for name in ("rotation", "position"):
        _check_finite(head[name], f"joint {j} {name}", head_at, JOINT_HEADER, name)
    keys = []
    for kind, count_field in (("rotation", "nrot"), ("position", "npos")):
        at = cur.pos
        rec = cur.records(KEY, int(head[count_field][0]), f"joint {j} {kind} keys")
        _check_finite(rec["time"], f"joint {j} {kind} key time", at, KEY, "time")
        _check_finite(rec["value"], f"joint {j} {kind} key", at, KEY, "value")
        keys.append(np.column_stack([rec["time"], rec["value"]]).astype(np.float32))
    head = head[0]
    return Ms3dJoint(int(head["flags"]), bytes(head["name"]), bytes(head["parent"]),
                     head["rotation"].copy(), head["position"].copy(), keys[0], keys[1])


def _warn_triangle_groups(tri_group: np.ndarray, groups: list[Ms3dGroup], warnings: list[str]) -> None:
    outside = np.flatnonzero(tri_group >= len(groups))
    if outside.size:
        warnings.append(f"{outside.size} triangles name a group >= {len(groups)} "
                        f"(first: triangle {outside[0]}); group membership is taken from the group lists")
    contradicting = sum(int(np.count_nonzero(tri_group[g.triangles] != i)) for i, g in enumerate(groups))
    if contradicting:
        warnings.append(f"{contradicting} triangles listed by a group name another group in their "
                        "own group byte")


def _read_optional_blocks(cur: _Cursor, model: Ms3dModel, counts: tuple[int, int, int]) -> None:
    readers = {"comments": _read_comments, "vertex_extras": _read_vertex_extras,
               "joint_extras": _read_joint_extras, "model_extras": _read_model_extras}
    for name, attribute, known in OPTIONAL_BLOCKS:
        if not cur.remaining:
            break
        at, warned = cur.pos, len(model.warnings)
        try:
            subversion = int(cur.one(I32, f"{name} subversion"))
            if subversion not in known:
                cur.pos = at
                model.warnings.append(f"{name} subversion {subversion} at offset {at} is not understood: "
                                      f"the last {cur.remaining} bytes are kept unread")
                break
            setattr(model, attribute, readers[attribute](cur, subversion, model, counts))
        except _CutShort as exc:
            cur.pos = at
            del model.warnings[warned:]
            model.warnings.append(f"the {name} block at offset {at} is cut short ({exc.field}: {exc.message}): "
                                  f"its {cur.remaining} bytes are kept unread and written back as they are")
            break
    else:
        if cur.remaining:
            model.warnings.append(f"{cur.remaining} bytes after the last optional block are kept unread")
    model.trailing = cur.data[cur.pos:]


def _read_comments(cur: _Cursor, subversion: int, model: Ms3dModel,
                   counts: tuple[int, int, int]) -> Ms3dComments:
    lists: list[list[Ms3dComment]] = []
    for kind, limit in zip(("group", "material", "joint"), counts):
        n = cur.count(I32, f"{kind} comment count", COMMENT_HEADER.itemsize)
        comments = []
        for i in range(n):
            head_at = cur.pos
            head = cur.one(COMMENT_HEADER, f"{kind} comment {i}")
            length = int(head["length"])
            if length < 0:
                raise FormatError(f"negative comment length {length}", field=f"{kind} comment {i} length",
                                  offset=head_at + COMMENT_HEADER.fields["length"][1])
            comment = Ms3dComment(int(head["index"]), cur.raw(length, f"{kind} comment {i} text"))
            if not 0 <= comment.index < limit:
                model.warnings.append(f"{kind} comment {i} is for {kind} {comment.index}, which does not exist")
            comments.append(comment)
        lists.append(comments)
    flag = int(cur.one(I32, "has_model_comment"))
    text = None
    if flag:
        at = cur.pos
        length = int(cur.one(I32, "model comment length"))
        if length < 0:
            raise FormatError(f"negative comment length {length}", field="model comment length", offset=at)
        text = cur.raw(length, "model comment text")
    return Ms3dComments(lists[0], lists[1], lists[2], model_raw=text, model_flag=flag or 1, subversion=subversion)


def _read_vertex_extras(cur: _Cursor, subversion: int, model: Ms3dModel,
                        counts: tuple[int, int, int]) -> Ms3dVertexExtras:
    dtype = VERTEX_EXTRA[subversion]
    rec = cur.records(dtype, model.num_vertices, "vertex extras")
    extra = (rec["extra"].reshape(len(rec), subversion - 1) if "extra" in dtype.names
             else np.zeros((len(rec), 0), "<u4"))
    bone_ids = np.ascontiguousarray(rec["bone_ids"])
    if np.any(bone_ids < -1) or np.any(bone_ids >= counts[2]):
        model.warnings.append(f"vertex extra bone ids outside -1..{counts[2] - 1}: "
                              "those influences are ignored")
    return Ms3dVertexExtras(bone_ids, np.ascontiguousarray(rec["weights"]), np.ascontiguousarray(extra),
                            subversion)


def _read_joint_extras(cur: _Cursor, subversion: int, model: Ms3dModel,
                       counts: tuple[int, int, int]) -> Ms3dJointExtras:
    rec = cur.records(JOINT_EXTRA, counts[2], "joint extras")
    return Ms3dJointExtras(np.ascontiguousarray(rec["color"]), subversion)


def _read_model_extras(cur: _Cursor, subversion: int, model: Ms3dModel,
                       counts: tuple[int, int, int]) -> Ms3dModelExtras:
    rec = cur.one(MODEL_EXTRA, "model extras")
    return Ms3dModelExtras(rec["joint_size"], int(rec["transparency_mode"]), rec["alpha_ref"], subversion)
