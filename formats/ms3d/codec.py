"""MilkShape 3D ("MS3D000000", version 3 or 4): parse bytes into :class:`Ms3dModel` and serialize it back.

Layout (all little-endian; seeds/002 and reference/format-notes.md, which adds the animation fields
and the optional blocks the seed omits)::

    header      char id[10] "MS3D000000"; int32 version (3 or 4)
    uint16 nverts;     vertices  nverts x 15 bytes  {uint8 flags; float xyz[3]; int8 bone; uint8 refcount}
    uint16 ntris;      triangles ntris x 70 bytes   {uint16 flags; uint16 v[3]; float normals[3][3];
                                                     float s[3]; float t[3]; uint8 smoothing_group; uint8 group}
    uint16 ngroups;    groups    {uint8 flags; char name[32]; uint16 n; uint16 tris[n]; int8 material}
    uint16 nmaterials; materials nmaterials x 361 bytes
                                 {char name[32]; float ambient[4], diffuse[4], specular[4], emissive[4];
                                  float shininess; float transparency; int8 mode;
                                  char texture[128]; char alphamap[128]}
    float animation_fps; float current_time; int32 total_frames
    uint16 njoints;    joints    {uint8 flags; char name[32]; char parent[32]; float rotation[3];
                                  float position[3]; uint16 nrot; uint16 npos;
                                  {float time; float rotation[3]}[nrot]; {float time; float position[3]}[npos]}

Then up to four optional blocks, in this order, each opened by ``int32 subversion``. The file may end
before any of them, or inside one (released files do: a vertex-extras block cut after its subversion
and 3 bytes): the cut block and what follows are kept in ``trailing`` with a warning naming the block,
its offset and what was missing. Ending inside the required blocks above is an error::

    comments (1)       for groups, materials, joints in turn:
                       int32 count; {int32 index; int32 length; char text[length]}[count]
                       int32 has_model_comment; if non-zero: int32 length; char text[length]
    vertex extras      one per vertex: (1) int8 bone_ids[3]; uint8 weights[3]   (2) + uint32 extra
                       (3) + uint32 extra[2]
    joint extras (1)   float color[3] per joint
    model extras (1)   float joint_size; int32 transparency_mode; float alpha_ref

Weights are percentages: ``weights[0]`` for the vertex's own bone, ``weights[1]`` for ``bone_ids[0]``,
``weights[2]`` for ``bone_ids[1]``, the rest of 100 for ``bone_ids[2]``; all zero means 100 % own bone.
Texture coordinates are stored all s first, then all t; UV = (s, 1 - t). Key times are in seconds.

MilkShape ignores trailing data it does not understand, so an unknown subversion stops the reading of
optional blocks: the bytes from that subversion on are kept in ``trailing`` (written back verbatim)
and a warning says so. Names, paths and comments are 8-bit text in the author's code page: the raw
bytes are kept whole (padding included, so serialization is byte-exact) and :func:`decode_text`
gives a ``str``.

Index checks: triangle vertex indices, group triangle indices and group material indices must be in
range (an importer indexes arrays with them). A triangle's own ``group`` byte only repeats what the
group lists say; no corpus file gets it wrong, but as nothing depends on it an out-of-range or
contradicting value is a warning, as are out-of-range bone ids and comment indices. ``refcount`` is
editor bookkeeping, kept but never checked (sge/arrow.ms3d writes 0 for every vertex), and
``animation_fps`` may be 0 (same file). Non-finite vertex positions, normals, texture coordinates,
joint rest poses and key times or values raise, naming the field and the float's byte offset.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..binary import check_span, read_records, read_struct, require_finite
from ..magics import magic_problem
from ..errors import FormatError
from .text import NAME_ENCODINGS, decode_text, encode_text  # noqa: F401 (part of this module's API)

MAGIC = b"MS3D000000"
VERSIONS = (3, 4)

HEADER = np.dtype([("id", "S10"), ("version", "<i4")])
U16 = np.dtype("<u2")
I32 = np.dtype("<i4")
I8 = np.dtype("i1")
VERTEX = np.dtype([("flags", "u1"), ("xyz", "<f4", (3,)), ("bone", "i1"), ("refcount", "u1")])
TRIANGLE = np.dtype([
    ("flags", "<u2"), ("vertices", "<u2", (3,)), ("normals", "<f4", (3, 3)),
    ("s", "<f4", (3,)), ("t", "<f4", (3,)), ("smoothing_group", "u1"), ("group", "u1"),
])
GROUP_HEADER = np.dtype([("flags", "u1"), ("name", "V32"), ("count", "<u2")])
MATERIAL = np.dtype([
    ("name", "V32"), ("ambient", "<f4", (4,)), ("diffuse", "<f4", (4,)), ("specular", "<f4", (4,)),
    ("emissive", "<f4", (4,)), ("shininess", "<f4"), ("transparency", "<f4"), ("mode", "i1"),
    ("texture", "V128"), ("alphamap", "V128"),
])
ANIMATION = np.dtype([("fps", "<f4"), ("current_time", "<f4"), ("total_frames", "<i4")])
JOINT_HEADER = np.dtype([
    ("flags", "u1"), ("name", "V32"), ("parent", "V32"), ("rotation", "<f4", (3,)),
    ("position", "<f4", (3,)), ("nrot", "<u2"), ("npos", "<u2"),
])
KEY = np.dtype([("time", "<f4"), ("value", "<f4", (3,))])
COMMENT_HEADER = np.dtype([("index", "<i4"), ("length", "<i4")])
VERTEX_EXTRA = {
    1: np.dtype([("bone_ids", "i1", (3,)), ("weights", "u1", (3,))]),
    2: np.dtype([("bone_ids", "i1", (3,)), ("weights", "u1", (3,)), ("extra", "<u4", (1,))]),
    3: np.dtype([("bone_ids", "i1", (3,)), ("weights", "u1", (3,)), ("extra", "<u4", (2,))]),
}
JOINT_EXTRA = np.dtype([("color", "<f4", (3,))])
MODEL_EXTRA = np.dtype([("joint_size", "<f4"), ("transparency_mode", "<i4"), ("alpha_ref", "<f4")])

NAME_SIZE = 32
PATH_SIZE = 128
MAX_COUNT = 0xFFFF
MIN_GROUP_SIZE = GROUP_HEADER.itemsize + I8.itemsize
OPTIONAL_BLOCKS = (("comments", "comments", (1,)), ("vertex extras", "vertex_extras", tuple(VERTEX_EXTRA)),
                   ("joint extras", "joint_extras", (1,)), ("model extras", "model_extras", (1,)))


@dataclass
class Ms3dGroup:
    """A named set of triangles (``triangles`` indexes the model's triangles) and its material (-1: none)."""
    flags: int
    name_raw: bytes
    triangles: np.ndarray          # (n,) uint16
    material: int = -1
    encoding: str = field(default="auto", compare=False, repr=False)   # how names decode (not stored)

    @property
    def name(self) -> str:
        return decode_text(self.name_raw, self.encoding)


@dataclass
class Ms3dMaterial:
    """One material; colours are RGBA, shininess 0-128, transparency 0-1. Paths are raw 128-byte fields."""
    name_raw: bytes
    ambient: np.ndarray            # (4,) float32
    diffuse: np.ndarray
    specular: np.ndarray
    emissive: np.ndarray
    shininess: float
    transparency: float
    mode: int
    texture_raw: bytes
    alphamap_raw: bytes
    encoding: str = field(default="auto", compare=False, repr=False)

    @property
    def name(self) -> str:
        return decode_text(self.name_raw, self.encoding)

    @property
    def texture(self) -> str:
        return decode_text(self.texture_raw, self.encoding)

    @property
    def alphamap(self) -> str:
        return decode_text(self.alphamap_raw, self.encoding)


@dataclass
class Ms3dJoint:
    """A joint with its rest pose (radians, parent space) and keys ``[time, x, y, z]`` relative to it."""
    flags: int
    name_raw: bytes
    parent_raw: bytes
    rotation: np.ndarray           # (3,) float32
    position: np.ndarray           # (3,) float32
    rot_keys: np.ndarray           # (nrot, 4) float32
    pos_keys: np.ndarray           # (npos, 4) float32
    encoding: str = field(default="auto", compare=False, repr=False)

    @property
    def name(self) -> str:
        return decode_text(self.name_raw, self.encoding)

    @property
    def parent(self) -> str:
        return decode_text(self.parent_raw, self.encoding)


@dataclass
class Ms3dComment:
    """A comment on the group, material or joint numbered ``index``."""
    index: int
    text_raw: bytes
    encoding: str = field(default="auto", compare=False, repr=False)

    @property
    def text(self) -> str:
        return decode_text(self.text_raw, self.encoding)


@dataclass
class Ms3dComments:
    """The comments block; ``model_flag`` is the raw non-zero ``has_model_comment`` before ``model_raw``."""
    group: list[Ms3dComment] = field(default_factory=list)
    material: list[Ms3dComment] = field(default_factory=list)
    joint: list[Ms3dComment] = field(default_factory=list)
    model_raw: bytes | None = None
    model_flag: int = 1
    subversion: int = 1
    encoding: str = field(default="auto", compare=False, repr=False)

    @property
    def model(self) -> str | None:
        return None if self.model_raw is None else decode_text(self.model_raw, self.encoding)


@dataclass
class Ms3dVertexExtras:
    """Per-vertex skin weights; ``extra`` has 0, 1 or 2 columns for subversion 1, 2 or 3."""
    bone_ids: np.ndarray           # (V, 3) int8
    weights: np.ndarray            # (V, 3) uint8, percentages
    extra: np.ndarray | None = None  # (V, subversion - 1) uint32; None writes zeros
    subversion: int = 3


@dataclass
class Ms3dJointExtras:
    colors: np.ndarray             # (J, 3) float32 RGB
    subversion: int = 1


@dataclass
class Ms3dModelExtras:
    joint_size: float = 1.0
    transparency_mode: int = 0
    alpha_ref: float = 0.5
    subversion: int = 1


@dataclass
class Ms3dModel:
    """Everything an MS3D file holds, as flat numpy arrays plus lists of groups, materials and joints.

    Optional blocks are ``None`` when the file ended before them; ``trailing`` holds bytes that were
    not understood (from an unknown subversion on, or after the last block) and is written back as is.
    ``warnings`` lists oddities that did not stop parsing; it is not serialized.
    """
    vert_flags: np.ndarray         # (V,) uint8
    vert_xyz: np.ndarray           # (V, 3) float32
    vert_bone: np.ndarray          # (V,) int8, -1 = no bone
    vert_refcount: np.ndarray      # (V,) uint8
    tri_flags: np.ndarray          # (T,) uint16
    tri_vertices: np.ndarray       # (T, 3) uint16
    tri_normals: np.ndarray        # (T, 3, 3) float32, one normal per corner
    tri_s: np.ndarray              # (T, 3) float32
    tri_t: np.ndarray              # (T, 3) float32
    tri_smoothing: np.ndarray      # (T,) uint8
    tri_group: np.ndarray          # (T,) uint8
    groups: list[Ms3dGroup] = field(default_factory=list)
    materials: list[Ms3dMaterial] = field(default_factory=list)
    animation_fps: float = 24.0
    current_time: float = 1.0
    total_frames: int = 30
    joints: list[Ms3dJoint] = field(default_factory=list)
    version: int = 4
    comments: Ms3dComments | None = None
    vertex_extras: Ms3dVertexExtras | None = None
    joint_extras: Ms3dJointExtras | None = None
    model_extras: Ms3dModelExtras | None = None
    trailing: bytes = b""
    warnings: list[str] = field(default_factory=list, compare=False)

    def set_name_encoding(self, encoding: str) -> None:
        """Decode names, texture paths and comments in ``encoding`` (a Python codec, or ``auto``);
        the raw bytes are untouched."""
        comments = self.comments
        items = [*self.groups, *self.materials, *self.joints]
        if comments is not None:
            items += [comments, *comments.group, *comments.material, *comments.joint]
        for item in items:
            item.encoding = encoding

    @property
    def num_vertices(self) -> int:
        return len(self.vert_xyz)

    @property
    def num_triangles(self) -> int:
        return len(self.tri_vertices)

    def optional_blocks(self) -> list[tuple[str, int]]:
        """The optional blocks present, in file order, as (name, subversion)."""
        blocks = [(name, getattr(self, attribute)) for name, attribute, _ in OPTIONAL_BLOCKS]
        return [(name, block.subversion) for name, block in blocks if block is not None]


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
        if 0 <= size and self.pos + size > len(self.data):
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
    """Decode an MS3D file, its names in ``encoding`` (see :func:`decode_text`); raises
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
    lists = []
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
    return Ms3dComments(*lists, model_raw=text, model_flag=flag or 1, subversion=subversion)


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


from .write import serialize_ms3d  # noqa: E402,F401  (the writer shares this module's records)
