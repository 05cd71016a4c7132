"""Quake III MD3 ("IDP3", version 15): the record layout, the engine's limits and the dataclasses that
the reader and the writer (:mod:`.codec`) share.

Layout (all little-endian; ioquake3 ``code/qcommon/qfiles.h``: ``md3Header_t``, ``md3Frame_t``,
``md3Tag_t``, ``md3Surface_t``, ``md3Shader_t``, ``md3Triangle_t``, ``md3St_t``, ``md3XyzNormal_t``)::

    header    108 bytes  char ident[4] "IDP3"; int32 version 15; char name[64]; int32 flags;
                         int32 numFrames, numTags, numSurfaces, numSkins;
                         int32 ofsFrames, ofsTags, ofsSurfaces, ofsEnd          (offsets from the file start)
    frames    numFrames x 56 bytes   {float bounds[2][3]; float localOrigin[3]; float radius; char name[16]}
    tags      numFrames x numTags x 112 bytes  {char name[64]; float origin[3]; float axis[3][3]}
                                     (frame-major: every tag of frame 0, then frame 1, ...)
    surfaces  numSurfaces, each starting where the previous one's ofsEnd points:
      header  108 bytes  char ident[4]; char name[64]; int32 flags; int32 numFrames, numShaders, numVerts,
                         numTriangles, ofsTriangles, ofsShaders, ofsSt, ofsXyzNormals, ofsEnd
                         (offsets from the start of this surface)
      shaders     numShaders x 68 bytes        {char name[64]; int32 shaderIndex}
      triangles   numTriangles x 12 bytes      {int32 indexes[3]}
      st          numVerts x 8 bytes           {float st[2]}          (shared by every frame)
      xyzNormals  numFrames x numVerts x 8 bytes {int16 xyz[3]; int16 normal}
                  position = xyz / 64; normal = lat << 8 | lng (:mod:`.vertices`)

The reader keeps every name field whole (bytes after the NUL included), the file's block offsets and
any bytes no block covers (:class:`Md3Layout`), and bytes after ``ofsEnd`` (:mod:`..file_tail`), so an
untouched model writes back byte for byte.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

IDENT = b"IDP3"
VERSION = 15

HEADER = np.dtype([
    ("ident", "S4"), ("version", "<i4"), ("name", "V64"), ("flags", "<i4"),
    ("num_frames", "<i4"), ("num_tags", "<i4"), ("num_surfaces", "<i4"), ("num_skins", "<i4"),
    ("ofs_frames", "<i4"), ("ofs_tags", "<i4"), ("ofs_surfaces", "<i4"), ("ofs_end", "<i4"),
])
FRAME = np.dtype([("bounds", "<f4", (2, 3)), ("local_origin", "<f4", (3,)), ("radius", "<f4"),
                  ("name", "V16")])
TAG = np.dtype([("name", "V64"), ("origin", "<f4", (3,)), ("axis", "<f4", (3, 3))])
SURFACE = np.dtype([
    ("ident", "V4"), ("name", "V64"), ("flags", "<i4"),
    ("num_frames", "<i4"), ("num_shaders", "<i4"), ("num_verts", "<i4"), ("num_triangles", "<i4"),
    ("ofs_triangles", "<i4"), ("ofs_shaders", "<i4"), ("ofs_st", "<i4"), ("ofs_xyznormals", "<i4"),
    ("ofs_end", "<i4"),
])
SHADER = np.dtype([("name", "V64"), ("shader_index", "<i4")])
TRIANGLE = np.dtype([("indexes", "<i4", (3,))])
ST = np.dtype([("st", "<f4", (2,))])
XYZ_NORMAL = np.dtype([("xyz", "<i2", (3,)), ("normal", "<u2")])

NAME_SIZE = 64            # MAX_QPATH: model, tag, surface and shader names
FRAME_NAME_SIZE = 16

# ioquake3 qfiles.h: the format's limits (the exporter refuses to write past them)
MD3_MAX_LODS = 3
MD3_MAX_TRIANGLES = 8192  # per surface
MD3_MAX_VERTS = 4096      # per surface
MD3_MAX_SHADERS = 256     # per surface
MD3_MAX_FRAMES = 1024     # per model
MD3_MAX_SURFACES = 32     # per model
MD3_MAX_TAGS = 16         # per frame
# qfiles.h SHADER_MAX_VERTEXES / SHADER_MAX_INDEXES: renderergl1 R_LoadMD3 refuses a surface with
# numVerts >= 1000 or numTriangles * 3 >= 6000 (a renderer's limit: the reader warns, never refuses)
SHADER_MAX_VERTEXES = 1000
SHADER_MAX_INDEXES = 6 * SHADER_MAX_VERTEXES


@dataclass
class Md3Shader:
    """One ``md3Shader_t``: a shader (or image) path and the index the game fills in at load time."""
    name: str
    shader_index: int = 0
    name_raw: bytes | None = None      # the 64-byte field as read


@dataclass
class Md3Surface:
    """One surface: its own vertices, texture coordinates and triangles, animated over every frame.

    ``xyz[f, v]`` is the int16 position of vertex v in frame f (1/64 units, :func:`.vertices.decode_xyz`);
    ``normal[f, v]`` the packed ``lat << 8 | lng`` (:func:`.vertices.decode_normals`)."""
    name: str
    shaders: list[Md3Shader]
    triangles: np.ndarray              # (num_triangles, 3) int32 vertex indices
    st: np.ndarray                     # (num_verts, 2) float32
    xyz: np.ndarray                    # (num_frames, num_verts, 3) int16
    normal: np.ndarray                 # (num_frames, num_verts) uint16
    flags: int = 0
    ident: bytes = IDENT               # the 4 bytes the file holds (the engine never reads them)
    name_raw: bytes | None = None

    @property
    def num_verts(self) -> int:
        return int(self.st.shape[0])

    @property
    def num_frames(self) -> int:
        return int(self.xyz.shape[0])


@dataclass
class Md3Layout:
    """Where the file put its blocks, so an untouched model is written at the same offsets.

    ``offsets``: the header's ofs_frames, ofs_tags, ofs_surfaces, ofs_end; ``surfaces``: per surface its
    start and its header's five offsets (ofs_triangles, ofs_shaders, ofs_st, ofs_xyznormals, ofs_end);
    ``sizes``: the byte size of every block as read (the writer uses this layout only while each block
    it writes has that size); ``filler``: (offset, bytes) of every run before ofs_end no block covers."""
    offsets: dict[str, int]
    surfaces: list[dict[str, int]]
    sizes: list[int]
    filler: list[tuple[int, bytes]] = field(default_factory=list)


@dataclass
class Md3Model:
    """Everything an MD3 file holds. Frame f of every surface and tag is the model's frame f."""
    name: str
    frame_names: list[str]
    frame_bounds: np.ndarray           # (F, 2, 3) float32 mins, maxs
    frame_origin: np.ndarray           # (F, 3) float32 localOrigin
    frame_radius: np.ndarray           # (F,) float32
    tag_names: list[str]               # (T,) as frame 0 names them
    tag_origin: np.ndarray             # (F, T, 3) float32
    tag_axis: np.ndarray               # (F, T, 3, 3) float32, axis[f, t, i] is the tag's i-th axis vector
                                       # (its transform: :func:`.tags.tag_matrices`)
    surfaces: list[Md3Surface]
    flags: int = 0
    num_skins: int = 0                 # the header's numSkins (unused by the engines, kept)
    name_raw: bytes | None = None
    frame_name_raw: np.ndarray | None = None    # (F,) V16 fields as read
    tag_name_raw: np.ndarray | None = None      # (F, T) V64 fields as read (names repeat per frame)
    layout: Md3Layout | None = None
    trailing: bytes = b""                       # bytes after ofsEnd, written back after it
    tail_record: bytes | None = None            # as read: SHA-1 of the bytes before the tail ++ the tail
    warnings: list[str] = field(default_factory=list, compare=False)

    @property
    def num_frames(self) -> int:
        return len(self.frame_names)

    @property
    def num_tags(self) -> int:
        return len(self.tag_names)

