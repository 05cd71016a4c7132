"""Inter-Quake Model (IQM, "INTERQUAKEMODEL\\0" version 2): the record layout and the dataclasses the
reader and the writer (:mod:`.codec`) share.

Layout (all little-endian, every count and offset an unsigned 32-bit integer, offsets from the file's
start; the IQM SDK's ``iqm.h`` (lsalzman/iqm) ``iqmheader`` ... ``iqmextension``, as DarkPlaces
``model_iqm.h`` and ``model_alias.c`` ``Mod_INTERQUAKEMODEL_Load`` read them)::

    header        124 bytes  char magic[16] "INTERQUAKEMODEL\\0"; uint32 version 2; uint32 filesize; flags;
                             num_text, ofs_text; num_meshes, ofs_meshes;
                             num_vertexarrays, num_vertexes, ofs_vertexarrays;
                             num_triangles, ofs_triangles, ofs_adjacency; num_joints, ofs_joints;
                             num_poses, ofs_poses; num_anims, ofs_anims;
                             num_frames, num_framechannels, ofs_frames, ofs_bounds;
                             num_comment, ofs_comment; num_extensions, ofs_extensions
    text          num_text bytes: NUL-ended strings; every name below is a byte offset into it
    meshes        num_meshes x 24 bytes  {name, material, first_vertex, num_vertexes, first_triangle,
                                          num_triangles}
    vertexarrays  num_vertexarrays x 20 bytes {type, flags, format, size, offset}: num_vertexes x size
                  components of the format at ``offset`` (type 0 position, 1 texcoord, 2 normal,
                  3 tangent, 4 blend indexes, 5 blend weights, 6 colour, 0x10 and up custom; format
                  0 byte, 1 ubyte, 2 short, 3 ushort, 4 int, 5 uint, 6 half, 7 float, 8 double)
    triangles     num_triangles x 12 bytes {uint32 vertex[3]}
    adjacency     num_triangles x 12 bytes {uint32 triangle[3]}  (absent when ofs_adjacency is 0)
    joints        num_joints x 48 bytes {name; int32 parent; float translate[3], rotate[4] (quaternion
                                         x y z w), scale[3]}    (the bind pose, relative to the parent)
    poses         num_poses x 88 bytes  {int32 parent; uint32 mask; float channeloffset[10],
                                         channelscale[10]}      (channels: translate xyz, rotate xyzw,
                                                                 scale xyz)
    anims         num_anims x 20 bytes  {name, first_frame, num_frames; float framerate; flags (1 loop)}
    frames        num_frames x num_framechannels uint16: for each pose in order, one value per channel
                  whose mask bit is set; channel = offset + value * scale (:mod:`.animation`)
    bounds        num_frames x 32 bytes {float bbmin[3], bbmax[3], xyradius, radius}  (absent when
                                         ofs_bounds is 0)
    comment       num_comment bytes
    extensions    num_extensions x 16 bytes {name, num_data, ofs_data, ofs_extensions}: a chain, the
                  header's ofs_extensions points to the first, each record's ofs_extensions to the next

The records are kept as numpy structured arrays of these dtypes (text offsets and all), the text and
the comment as their bytes, and where the file put every block with the bytes no block covers
(:class:`IqmLayout`), so an untouched model writes back byte for byte.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

MAGIC = b"INTERQUAKEMODEL\0"
VERSION = 2

COUNTS_AND_OFFSETS = (
    "filesize", "flags", "num_text", "ofs_text", "num_meshes", "ofs_meshes",
    "num_vertexarrays", "num_vertexes", "ofs_vertexarrays", "num_triangles", "ofs_triangles", "ofs_adjacency",
    "num_joints", "ofs_joints", "num_poses", "ofs_poses", "num_anims", "ofs_anims",
    "num_frames", "num_framechannels", "ofs_frames", "ofs_bounds", "num_comment", "ofs_comment",
    "num_extensions", "ofs_extensions")
HEADER = np.dtype([("magic", "V16"), ("version", "<u4")] + [(name, "<u4") for name in COUNTS_AND_OFFSETS])
MESH = np.dtype([("name", "<u4"), ("material", "<u4"), ("first_vertex", "<u4"), ("num_vertexes", "<u4"),
                 ("first_triangle", "<u4"), ("num_triangles", "<u4")])
VERTEX_ARRAY = np.dtype([("type", "<u4"), ("flags", "<u4"), ("format", "<u4"), ("size", "<u4"), ("offset", "<u4")])
TRIANGLE = np.dtype(("<u4", (3,)))
JOINT = np.dtype([("name", "<u4"), ("parent", "<i4"), ("translate", "<f4", (3,)), ("rotate", "<f4", (4,)),
                  ("scale", "<f4", (3,))])
POSE = np.dtype([("parent", "<i4"), ("mask", "<u4"), ("channeloffset", "<f4", (10,)),
                 ("channelscale", "<f4", (10,))])
ANIM = np.dtype([("name", "<u4"), ("first_frame", "<u4"), ("num_frames", "<u4"), ("framerate", "<f4"),
                 ("flags", "<u4")])
BOUNDS = np.dtype([("bbmin", "<f4", (3,)), ("bbmax", "<f4", (3,)), ("xyradius", "<f4"), ("radius", "<f4")])
EXTENSION = np.dtype([("name", "<u4"), ("num_data", "<u4"), ("ofs_data", "<u4"), ("ofs_extensions", "<u4")])
FRAME_VALUE = np.dtype("<u2")
CHANNELS = 10                       # translate x y z, rotate x y z w, scale x y z

# iqm.h vertex array types and formats
POSITION, TEXCOORD, NORMAL, TANGENT, BLENDINDEXES, BLENDWEIGHTS, COLOR, CUSTOM = 0, 1, 2, 3, 4, 5, 6, 0x10
TYPE_NAMES = {POSITION: "position", TEXCOORD: "texcoord", NORMAL: "normal", TANGENT: "tangent",
              BLENDINDEXES: "blend indexes", BLENDWEIGHTS: "blend weights", COLOR: "colour"}
FORMATS = (np.dtype("i1"), np.dtype("u1"), np.dtype("<i2"), np.dtype("<u2"), np.dtype("<i4"), np.dtype("<u4"),
           np.dtype("<f2"), np.dtype("<f4"), np.dtype("<f8"))
FORMAT_NAMES = ("byte", "ubyte", "short", "ushort", "int", "uint", "half", "float", "double")
FLOAT, UBYTE = 7, 1
LOOP = 1                            # iqm.h IQM_LOOP, an anim's flags
# ours: frames x poses (frames alone without poses) at most this, so decoding the frames (10 floats a
# pose) stays under 168 MB however the header's counts are set (frames whose masks set no channel take
# no byte of the file)
MAX_FRAME_POSES = 1 << 22


@dataclass
class IqmVertexArray:
    """One vertex array: ``data`` is (num_vertexes, size) of the array's format, as the file holds it
    (custom types and formats the engines ignore are kept the same way)."""
    type: int
    format: int
    data: np.ndarray
    flags: int = 0

    @property
    def size(self) -> int:
        return int(self.data.shape[1])

    @property
    def type_name(self) -> str:
        return TYPE_NAMES.get(self.type, f"custom {self.type}")


@dataclass
class IqmExtension:
    """One extension record: its name (an offset into the text) and its data bytes."""
    name: int
    data: bytes


@dataclass
class IqmLayout:
    """Where the file put its blocks, so an untouched model is written at the same offsets.

    ``offsets``: the header's ofs_* fields as read (those of empty blocks too); ``arrays``: each vertex
    array's data offset; ``extensions``: each extension's (record offset, ofs_data, the record's
    ofs_extensions field); ``filesize``: the header's filesize; ``sizes``: every block's byte size as
    read (the writer keeps this layout only while every block it writes has that size); ``filler``:
    (offset, bytes) of each run before ``filesize`` no block covers."""
    offsets: dict[str, int]
    arrays: list[int]
    extensions: list[tuple[int, int, int]]
    filesize: int
    sizes: list[int]
    filler: list[tuple[int, bytes]] = field(default_factory=list)


@dataclass
class IqmModel:
    """Everything an IQM file holds. Names are offsets into ``text`` (:meth:`text_at`)."""
    text: bytes
    meshes: np.ndarray                  # (M,) MESH
    num_vertexes: int
    vertex_arrays: list[IqmVertexArray]
    triangles: np.ndarray               # (T, 3) uint32 vertex indexes
    adjacency: np.ndarray | None        # (T, 3) uint32 triangle indexes, None when the file has none
    joints: np.ndarray                  # (J,) JOINT
    poses: np.ndarray                   # (P,) POSE
    anims: np.ndarray                   # (A,) ANIM
    frames: np.ndarray                  # (F, num_framechannels) uint16
    bounds: np.ndarray | None           # (F,) BOUNDS, None when the file has none
    comment: bytes = b""
    extensions: list[IqmExtension] = field(default_factory=list)
    flags: int = 0
    layout: IqmLayout | None = None
    trailing: bytes = b""               # bytes after filesize, written back after it
    warnings: list[str] = field(default_factory=list, compare=False)

    @property
    def num_frames(self) -> int:
        return int(self.frames.shape[0])

    def text_at(self, offset: int) -> str:
        """The NUL-ended string at ``offset`` in the text (Latin-1; '' past its end, as for no text)."""
        if not 0 <= offset < len(self.text):
            return ""
        return self.text[offset:].split(b"\0", 1)[0].decode("latin-1")

    def array(self, kind: int) -> IqmVertexArray | None:
        """The vertex array of type ``kind``, or None; of several, the last (DarkPlaces keeps the last it
        meets)."""
        return next((a for a in reversed(self.vertex_arrays) if a.type == kind), None)

    @property
    def joint_names(self) -> list[str]:
        return [self.text_at(int(n)) for n in self.joints["name"]]

    @property
    def anim_names(self) -> list[str]:
        return [self.text_at(int(n)) for n in self.anims["name"]]
