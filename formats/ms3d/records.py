"""MilkShape 3D ("MS3D000000", version 3 or 4): the record layout and the dataclasses that the reader
(:mod:`.codec`) and the writer (:mod:`.write`) share.

Layout (all little-endian; docs/dev/format-facts.md, "MS3D", with the animation fields
and the optional blocks the usual tutorial omits)::

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

Then up to four optional blocks, in this order, each opened by ``int32 subversion``; the file may end
before any of them (what the reader does with a file cut inside one is in :mod:`.codec`)::

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

Names, paths and comments are 8-bit text in the author's code page: the raw bytes are kept whole
(padding included, so serialization is byte-exact) and :func:`~.text.decode_text` gives a ``str``.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .text import decode_text

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
        items: list[Ms3dGroup | Ms3dMaterial | Ms3dJoint | Ms3dComments | Ms3dComment]
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
