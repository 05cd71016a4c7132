"""Quake MDL ("IDPO", version 6): parse bytes into :class:`MdlModel` and serialize it back.

The 16-bit "MD16" (QuakeForge, FTE) and Hexen II mission pack "RAPO" flavours share this reader and
writer; what they change (header, texcoord/triangle blocks, pose size) is in :mod:`.variants`.

Layout (all little-endian; docs/dev/format-facts.md, "MDL"; id's ``WinQuake/modelgen.h``)::

    header      84 bytes: char ident[4] "IDPO", int32 version 6,
                float scale[3], translate[3], boundingradius, eyeposition[3],
                int32 numskins, skinwidth, skinheight, numverts, numtris, numframes,
                synctype, flags, float size
    skins       numskins x:  int32 type
                  type 0:    uint8 pixels[skinheight][skinwidth]      palette indices
                  else:      int32 n; float intervals[n]; uint8 pixels[n][skinheight][skinwidth]
    texcoords   numverts x {int32 onseam, s, t}       one per vertex; a seam vertex of a
                                                      triangle with facesfront == 0 uses s + skinwidth/2
    triangles   numtris x {int32 facesfront, vertindex[3]}     clockwise seen from the front
    frames      numframes x: int32 type
                  type 0:    pose
                  else:      int32 n; uint8 bboxmin[4], bboxmax[4]; float intervals[n]; n x pose
                pose = uint8 bboxmin[4], bboxmax[4]; char name[16];
                       {uint8 x, y, z, normal_index}[numverts]
                position = byte * scale + translate      (one grid for every pose)

Intervals are cumulative end times in seconds.  Bytes after the last frame (QME appends a
"QMEX" block) are not part of the model: counted in :attr:`MdlModel.trailing_bytes`, kept in
:attr:`MdlModel.trailing` with the SHA-1 of the bytes before them (:mod:`..file_tail`), and written
back after the frames.  The writer emits type 1 for groups, as id's tools do.

Every count is checked against the bytes left before anything is allocated, so parsing time and
memory are linear in the file size.  Facts Quake itself refuses but that import fine (a skin
width that is not a multiple of 4, counts over the engine's limits...) are not errors: they are
listed by :meth:`MdlModel.warnings`.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..binary import (
    check_span,
    decode_name,
    encode_name,
    has_junk,
    name_fields,
    read_records,
    read_struct,
    require_finite,
)
from ..errors import FormatError
from ..file_tail import tail_record
from ..message_text import quoted
from .variants import (
    IDPO,
    MD16,
    RAPO,
    RAPO_EXTRA,
    TEXCOORD,
    TRIANGLE,
    VERSIONS,
    decode16,
    rapo_triangle_bytes,
    read_rapo_triangles,
    variant_of,
)

IDENT = b"IDPO"
VERSION = 6
SKIN_SINGLE, SKIN_GROUP = 0, 1
FRAME_SINGLE, FRAME_GROUP = 0, 1

HEADER = np.dtype([
    ("ident", "S4"), ("version", "<i4"),
    ("scale", "<f4", (3,)), ("translate", "<f4", (3,)), ("boundingradius", "<f4"),
    ("eyeposition", "<f4", (3,)),
    ("numskins", "<i4"), ("skinwidth", "<i4"), ("skinheight", "<i4"),
    ("numverts", "<i4"), ("numtris", "<i4"), ("numframes", "<i4"),
    ("synctype", "<i4"), ("flags", "<i4"), ("size", "<f4"),
])
INT32 = np.dtype("<i4")
FLOAT32 = np.dtype("<f4")
VERTEX = np.dtype([("v", "u1", (3,)), ("normal_index", "u1")])
POSE_HEADER = np.dtype([("bbox_min", "u1", (4,)), ("bbox_max", "u1", (4,)), ("name", "S16")])
GROUP_HEADER = np.dtype([("count", "<i4"), ("bbox_min", "u1", (4,)), ("bbox_max", "u1", (4,))])

NAME_SIZE = 16
NUM_NORMALS = 162


@dataclass(frozen=True)
class MdlLimits:
    """What the original Quake engine (model.c, Mod_LoadAliasModel) refuses to load."""
    skin_width_multiple: int = 4
    skin_height: int = 480
    skins: int = 32
    vertices: int = 1024
    triangles: int = 2048
    frames: int = 256
    skin_pixels: int = 640 * 480    # GLQuake (WinQuake/gl_draw.c GL_Upload8): trans[640*480], no bound check


LIMITS = MdlLimits()
HEXEN2_LIMITS = MdlLimits(vertices=2000, skin_pixels=0)   # uHexen2 engine/h2shared/gl_model.h MAXALIASVERTS


@dataclass(eq=False)
class MdlSkin:
    """One skin slot: a single image (``intervals`` None) or an animated group."""
    intervals: np.ndarray | None   # (n,) float32 cumulative end times, None for a single skin
    images: np.ndarray             # (n, skin_height, skin_width) uint8 palette indices


@dataclass(eq=False)
class MdlFrameSlot:
    """One entry of the file's frame list, covering poses ``first_pose .. first_pose+num_poses-1``.

    ``intervals`` is None for a simple frame (``num_poses`` 1).  ``bbox_min``/``bbox_max`` are the
    group's bounding box; for a simple frame they repeat the pose's own box and are not written.
    """
    first_pose: int
    num_poses: int
    intervals: np.ndarray | None   # (num_poses,) float32 cumulative end times
    bbox_min: np.ndarray           # (4,) uint8
    bbox_max: np.ndarray           # (4,) uint8


@dataclass(eq=False)
class MdlModel:
    """Everything an MDL file holds, with frame groups flattened into a list of poses.

    ``pose_verts[p, i]`` is the packed (x, y, z) of vertex i in pose p, decoded with the global
    ``scale`` and ``translate``.  ``pose_name_raw`` is None unless some 16-byte name field carries
    bytes after its NUL (or has no NUL); then it holds every field as read, and the writer reuses
    a field as long as it still decodes to the pose's name, so such files round-trip byte for byte.
    """
    scale: np.ndarray              # (3,) float32
    translate: np.ndarray          # (3,) float32
    bounding_radius: float
    eye_position: np.ndarray       # (3,) float32
    skin_width: int
    skin_height: int
    synctype: int
    flags: int
    size: float
    skins: list[MdlSkin]
    onseam: np.ndarray             # (V,) int32
    s: np.ndarray                  # (V,) int32
    t: np.ndarray                  # (V,) int32
    facesfront: np.ndarray         # (T,) int32
    triangles: np.ndarray          # (T, 3) int32
    pose_names: list[str]
    pose_verts: np.ndarray         # (P, V, 3) uint8
    pose_normals: np.ndarray       # (P, V) uint8
    pose_bbox_min: np.ndarray      # (P, 4) uint8
    pose_bbox_max: np.ndarray      # (P, 4) uint8
    frames: list[MdlFrameSlot]
    trailing_bytes: int = 0
    trailing: bytes = b""                    # bytes after the last frame, written back after it
    tail_record: bytes | None = None         # as read: SHA-1 of the bytes before the tail ++ the tail
    pose_name_raw: list[bytes] | None = field(default=None)
    variant: str = IDPO              # IDPO, MD16 or RAPO (see variants.py)
    pose_low: np.ndarray | None = None       # MD16: (P, V, 4) uint8 low-byte records (x, y, z, unused)
    st_triangles: np.ndarray | None = None   # RAPO: (T, 3) int32 indices into onseam/s/t (num_st_verts)

    @property
    def num_vertices(self) -> int:
        return int(self.pose_verts.shape[1])

    @property
    def num_poses(self) -> int:
        return int(self.pose_verts.shape[0])

    def positions(self) -> np.ndarray:
        """(P, V, 3) float32 decoded positions: byte * scale + translate (MD16: (high + low / 256) * scale
        + translate)."""
        if self.pose_low is not None:
            return decode16(self.pose_verts, self.pose_low[..., :3], self.scale, self.translate)
        out = self.pose_verts.astype(np.float32)
        out *= np.asarray(self.scale, np.float32)
        out += np.asarray(self.translate, np.float32)
        return out

    def warnings(self, limits: MdlLimits = LIMITS) -> list[str]:
        """Facts the original Quake engine (for RAPO: Hexen II) refuses although the file imports fine."""
        engine = "Hexen II" if self.variant == RAPO else "Quake"
        if self.variant == RAPO and limits is LIMITS:
            limits = HEXEN2_LIMITS
        out = []
        if self.skin_width % limits.skin_width_multiple:
            out.append(f"skin width {self.skin_width} is not a multiple of "
                       f"{limits.skin_width_multiple}; {engine} refuses to load the model")
        if self.skin_height > limits.skin_height:
            out.append(f"skin height {self.skin_height} exceeds {engine}'s {limits.skin_height}")
        if limits.skin_pixels and self.skin_width * self.skin_height > limits.skin_pixels:
            out.append(f"skin {self.skin_width}x{self.skin_height} has more than the {limits.skin_pixels} pixels "
                       "GLQuake's upload buffer holds (GL_Upload8)")
        if not 1 <= len(self.skins) <= limits.skins:
            out.append(f"{len(self.skins)} skins; {engine} needs 1 to {limits.skins}")
        if self.num_vertices > limits.vertices:
            out.append(f"{self.num_vertices} vertices exceed {engine}'s {limits.vertices}")
        if self.variant == RAPO and len(self.s) > limits.vertices:
            out.append(f"{len(self.s)} texture coordinates exceed {engine}'s {limits.vertices}")
        if len(self.triangles) == 0:
            out.append(f"the model has no triangles; {engine} refuses to load it")
        elif len(self.triangles) > limits.triangles:
            out.append(f"{len(self.triangles)} triangles exceed {engine}'s {limits.triangles}")
        if len(self.frames) > limits.frames:
            out.append(f"{len(self.frames)} frames exceed {engine}'s {limits.frames}")
        if self.num_poses > limits.frames:
            out.append(f"{self.num_poses} poses exceed {engine}'s {limits.frames}")
        if self.pose_normals.size and int(self.pose_normals.max()) >= NUM_NORMALS:
            out.append(f"normal index {int(self.pose_normals.max())} is outside the "
                       f"{NUM_NORMALS}-entry table")
        for i, skin in enumerate(self.skins):
            if skin.intervals is not None and np.any(skin.intervals <= 0):
                out.append(f"skin {i} has an interval <= 0; {engine} refuses to load the model")
        for i, slot in enumerate(self.frames):
            if slot.intervals is not None and np.any(slot.intervals <= 0):
                out.append(f"frame {i} has an interval <= 0; {engine} refuses to load the model")
        return out


def _field_offset(name: str) -> int:
    return HEADER.fields[name][1]


def _header_int(header: np.void, name: str, minimum: int) -> int:
    value = int(header[name])
    if value < minimum:
        what = f"negative {name} {value}" if value < 0 else f"{name} is {value}, at least {minimum} needed"
        raise FormatError(what, field=name, offset=_field_offset(name))
    return value


def _reserve(data: bytes, offset: int, size: int, field: str, what: str) -> None:
    """Raise unless ``size`` bytes remain at ``offset``: checked before any allocation."""
    if size > len(data) - offset:
        raise FormatError(f"{what} need {size} bytes at offset {offset}, "
                          f"only {max(len(data) - offset, 0)} remain", field=field, offset=offset)


def _int32(data: bytes, offset: int, field: str) -> int:
    check_span(data, offset, 4, field)
    return int.from_bytes(data[offset:offset + 4], "little", signed=True)


def _group_count(value: int, field: str, offset: int) -> int:
    if value <= 0:
        raise FormatError(f"group count is {value}, at least 1 needed", field=field, offset=offset)
    return value


def pose_dtype(num_verts: int, sixteen_bit: bool = False) -> np.dtype:
    """One pose record (a simple frame without its type field): 24 + 4 * num_verts bytes; MD16 adds
    ``low``, num_verts more trivertx records."""
    fields = [("head", POSE_HEADER), ("verts", VERTEX, (num_verts,))]
    return np.dtype(fields + [("low", VERTEX, (num_verts,))] if sixteen_bit else fields)


def _texcoords_and_triangles(data: bytes, pos: int, variant: str, num_verts: int, num_st: int, num_tris: int):
    """(texcoord records, facesfront, vertex indices, st indices or None, position after the blocks)."""
    _reserve(data, pos, num_st * TEXCOORD.itemsize, "num_st_verts" if variant == RAPO else "numverts",
             f"{num_st} texture coordinates")
    texcoords = read_records(data, pos, TEXCOORD, num_st, "texcoords")
    pos += num_st * TEXCOORD.itemsize
    _reserve(data, pos, num_tris * TRIANGLE.itemsize, "numtris", f"{num_tris} triangles")
    if variant == RAPO:
        facesfront, triangles, st_triangles = read_rapo_triangles(data, pos, num_tris, num_verts, num_st)
        return texcoords, facesfront, triangles, st_triangles, pos + num_tris * TRIANGLE.itemsize
    tris = read_records(data, pos, TRIANGLE, num_tris, "triangles")
    triangles = np.ascontiguousarray(tris["vertindex"], dtype=np.int32)
    bad = (triangles < 0) | (triangles >= num_verts)
    if bad.any():
        tri, corner = (int(i) for i in np.argwhere(bad)[0])
        raise FormatError(f"triangle {tri} vertindex[{corner}] = {int(triangles[tri, corner])} is out of "
                          f"range (numverts {num_verts})", field="vertindex",
                          offset=pos + tri * TRIANGLE.itemsize + 4 + 4 * corner)
    return texcoords, np.ascontiguousarray(tris["facesfront"]), triangles, None, pos + num_tris * TRIANGLE.itemsize


def _parse_skins(data: bytes, pos: int, num_skins: int, width: int, height: int) -> tuple[list[MdlSkin], int]:
    pixels = width * height
    if num_skins and 4 + pixels > len(data) - pos:
        _reserve(data, pos, 4 + pixels, "skinwidth/skinheight", f"one {width}x{height} skin")
    _reserve(data, pos, num_skins * (4 + pixels), "numskins", f"{num_skins} skins of {width}x{height}")
    skins = []
    for i in range(num_skins):
        kind = _int32(data, pos, f"skin {i} type")
        if kind == SKIN_SINGLE:
            images = read_records(data, pos + 4, np.uint8, pixels, f"skin {i} pixels")
            skins.append(MdlSkin(None, images.reshape(1, height, width)))
            pos += 4 + pixels
            continue
        count = _group_count(_int32(data, pos + 4, f"skin {i} count"), f"skin {i} count", pos + 4)
        _reserve(data, pos + 8, count * (4 + pixels), f"skin {i} count",
                 f"{count} intervals and {width}x{height} images")
        intervals = read_records(data, pos + 8, FLOAT32, count, f"skin {i} intervals").astype(np.float32)
        require_finite(intervals, f"skin {i} intervals", pos + 8)
        start = pos + 8 + 4 * count
        images = read_records(data, start, np.uint8, count * pixels, f"skin {i} pixels")
        skins.append(MdlSkin(intervals, images.reshape(count, height, width)))
        pos = start + count * pixels
    return skins, pos


def _parse_frames(data: bytes, pos: int, num_frames: int, pose_size: int
                  ) -> tuple[list[MdlFrameSlot], list[int], int]:
    """Frame slots (bboxes of simple frames filled in later) and the offset of every pose."""
    _reserve(data, pos, num_frames * (4 + pose_size), "numframes",
             f"{num_frames} frames of {pose_size} bytes")
    slots: list[MdlFrameSlot] = []
    pose_offsets: list[int] = []
    for i in range(num_frames):
        kind = _int32(data, pos, f"frame {i} type")
        if kind == FRAME_SINGLE:
            check_span(data, pos + 4, pose_size, f"frame {i}")
            slots.append(MdlFrameSlot(len(pose_offsets), 1, None, np.zeros(4, np.uint8), np.zeros(4, np.uint8)))
            pose_offsets.append(pos + 4)
            pos += 4 + pose_size
            continue
        group = read_struct(data, pos + 4, GROUP_HEADER, f"frame {i} group")
        count = _group_count(int(group["count"]), f"frame {i} count", pos + 4)
        start = pos + 4 + GROUP_HEADER.itemsize
        _reserve(data, start, count * (4 + pose_size), f"frame {i} count",
                 f"{count} intervals and poses of {pose_size} bytes")
        intervals = read_records(data, start, FLOAT32, count, f"frame {i} intervals").astype(np.float32)
        require_finite(intervals, f"frame {i} intervals", start)
        first = start + 4 * count
        slots.append(MdlFrameSlot(len(pose_offsets), count, intervals,
                                  np.array(group["bbox_min"], np.uint8), np.array(group["bbox_max"], np.uint8)))
        pose_offsets.extend(range(first, first + count * pose_size, pose_size))
        pos = first + count * pose_size
    return slots, pose_offsets, pos


def parse_mdl(data: bytes) -> MdlModel:
    """Decode an MDL file; raises :class:`FormatError` for anything malformed."""
    data = bytes(data)
    header = read_struct(data, 0, HEADER, "header")
    variant = variant_of(data, int(header["version"]))
    for name in ("scale", "translate", "boundingradius", "eyeposition", "size"):
        require_finite(np.atleast_1d(header[name]), name, _field_offset(name))
    with np.errstate(over="ignore", invalid="ignore"):
        far = np.float32(255) * header["scale"] + header["translate"]     # byte 255; byte 0 is translate
    if not np.isfinite(far).all():
        raise FormatError("255 x scale + translate overflows float32: positions would not be finite",
                          field="scale", offset=_field_offset("scale"))
    num_skins = _header_int(header, "numskins", 0)
    width = _header_int(header, "skinwidth", 1)
    height = _header_int(header, "skinheight", 1)
    num_verts = _header_int(header, "numverts", 1)
    num_tris = _header_int(header, "numtris", 0)
    num_frames = _header_int(header, "numframes", 1)
    pos, num_st = HEADER.itemsize, num_verts
    if variant == RAPO:
        num_st = int(read_struct(data, pos, RAPO_EXTRA, "num_st_verts")["num_st_verts"])
        if num_st < 0:
            raise FormatError(f"negative num_st_verts {num_st}", field="num_st_verts", offset=pos)
        pos += RAPO_EXTRA.itemsize

    skins, pos = _parse_skins(data, pos, num_skins, width, height)
    texcoords, facesfront, triangles, st_triangles, pos = _texcoords_and_triangles(
        data, pos, variant, num_verts, num_st, num_tris)

    pose_size = POSE_HEADER.itemsize + VERTEX.itemsize * num_verts * (2 if variant == MD16 else 1)
    _reserve(data, pos, 4 + pose_size, "numverts", f"a pose of {num_verts} vertices")   # RAPO: numverts
    dtype = pose_dtype(num_verts, variant == MD16)                    # is not bounded by the texcoords
    slots, pose_offsets, pos = _parse_frames(data, pos, num_frames, dtype.itemsize)
    poses = np.frombuffer(b"".join(data[o:o + dtype.itemsize] for o in pose_offsets), dtype=dtype)
    heads = poses["head"]
    bbox_min = np.ascontiguousarray(heads["bbox_min"])
    bbox_max = np.ascontiguousarray(heads["bbox_max"])
    for slot in slots:
        if slot.intervals is None:
            slot.bbox_min = bbox_min[slot.first_pose].copy()
            slot.bbox_max = bbox_max[slot.first_pose].copy()
    raw_names = name_fields(heads["name"])

    return MdlModel(
        scale=np.array(header["scale"], np.float32), translate=np.array(header["translate"], np.float32),
        bounding_radius=float(header["boundingradius"]),
        eye_position=np.array(header["eyeposition"], np.float32),
        skin_width=width, skin_height=height, synctype=int(header["synctype"]),
        flags=int(header["flags"]), size=float(header["size"]), skins=skins,
        onseam=np.ascontiguousarray(texcoords["onseam"]), s=np.ascontiguousarray(texcoords["s"]),
        t=np.ascontiguousarray(texcoords["t"]),
        facesfront=facesfront, triangles=triangles, variant=variant, st_triangles=st_triangles,
        pose_low=np.ascontiguousarray(poses["low"]).view(np.uint8).reshape(len(poses), num_verts, 4)
        if variant == MD16 else None,
        pose_names=[decode_name(n) for n in raw_names],
        pose_verts=np.ascontiguousarray(poses["verts"]["v"]),
        pose_normals=np.ascontiguousarray(poses["verts"]["normal_index"]),
        pose_bbox_min=bbox_min, pose_bbox_max=bbox_max, frames=slots,
        trailing_bytes=len(data) - pos, trailing=bytes(data[pos:]),
        tail_record=tail_record(data[:pos], data[pos:]),
        pose_name_raw=raw_names if has_junk(raw_names) else None)


def pose_name_fields(model: MdlModel) -> list[bytes]:
    """Each pose name as written: the 16-byte field it was read from while it still holds that name."""
    raw = model.pose_name_raw
    if raw is not None and len(raw) != len(model.pose_names):
        raise FormatError(f"{len(raw)} raw names for {len(model.pose_names)} poses", field="pose_name_raw")
    out = []
    for i, name in enumerate(model.pose_names):
        if raw is not None and len(raw[i]) == NAME_SIZE and decode_name(raw[i]) == name:
            out.append(raw[i])
        else:
            out.append(encode_name(name, NAME_SIZE, f"pose {i} name"))
    return out


def _pose_records(model: MdlModel) -> np.ndarray:
    num_poses, num_verts = model.pose_verts.shape[:2]
    sixteen = model.variant == MD16
    if sixteen and np.shape(model.pose_low) != (num_poses, num_verts, 4):
        raise FormatError(f"shape {np.shape(model.pose_low)}, expected {(num_poses, num_verts, 4)}", field="pose_low")
    for name, array, shape in (("pose_normals", model.pose_normals, (num_poses, num_verts)),
                               ("pose_bbox_min", model.pose_bbox_min, (num_poses, 4)),
                               ("pose_bbox_max", model.pose_bbox_max, (num_poses, 4))):
        if np.shape(array) != shape:
            raise FormatError(f"shape {np.shape(array)}, expected {shape}", field=name)
    if len(model.pose_names) != num_poses:
        raise FormatError(f"{len(model.pose_names)} names for {num_poses} poses", field="pose_names")
    poses = np.zeros(num_poses, pose_dtype(num_verts, sixteen))
    poses["head"]["bbox_min"] = model.pose_bbox_min
    poses["head"]["bbox_max"] = model.pose_bbox_max
    poses["head"]["name"] = pose_name_fields(model)
    poses["verts"]["v"] = model.pose_verts
    poses["verts"]["normal_index"] = model.pose_normals
    if sixteen:
        poses["low"] = np.ascontiguousarray(model.pose_low, np.uint8).view(VERTEX).reshape(num_poses, num_verts)
    return poses


def _skin_bytes(model: MdlModel) -> list[bytes]:
    out = []
    shape = (model.skin_height, model.skin_width)
    for i, skin in enumerate(model.skins):
        images = np.asarray(skin.images)
        if images.dtype != np.uint8 or images.ndim != 3 or images.shape[1:] != shape or not len(images):
            raise FormatError(f"images are {images.dtype} {images.shape}, expected uint8 (n, {shape[0]}, "
                              f"{shape[1]}) with n >= 1", field=f"skin {i}")
        if skin.intervals is None:
            if len(images) != 1:
                raise FormatError(f"{len(images)} images without intervals", field=f"skin {i}")
            out += [np.array(SKIN_SINGLE, INT32).tobytes(), images.tobytes()]
            continue
        intervals = np.asarray(skin.intervals, FLOAT32)
        if intervals.shape != (len(images),):
            raise FormatError(f"{intervals.shape} intervals for {len(images)} images", field=f"skin {i}")
        out += [np.array([SKIN_GROUP, len(images)], INT32).tobytes(), intervals.tobytes(), images.tobytes()]
    return out


def _frame_bytes(model: MdlModel, poses: np.ndarray) -> list[bytes]:
    blob = poses.tobytes()
    size = poses.dtype.itemsize
    out = []
    expected = 0
    for i, slot in enumerate(model.frames):
        if slot.first_pose != expected or slot.num_poses < 1:
            raise FormatError(f"covers poses {slot.first_pose}+{slot.num_poses}, expected to start at "
                              f"{expected} with at least one", field=f"frame {i}")
        chunk = blob[slot.first_pose * size:(slot.first_pose + slot.num_poses) * size]
        if slot.intervals is None:
            if slot.num_poses != 1:
                raise FormatError(f"simple frame with {slot.num_poses} poses", field=f"frame {i}")
            out += [np.array(FRAME_SINGLE, INT32).tobytes(), chunk]
        else:
            intervals = np.asarray(slot.intervals, FLOAT32)
            if intervals.shape != (slot.num_poses,):
                raise FormatError(f"{intervals.shape} intervals for {slot.num_poses} poses", field=f"frame {i}")
            group = np.zeros((), GROUP_HEADER)
            group["count"], group["bbox_min"], group["bbox_max"] = slot.num_poses, slot.bbox_min, slot.bbox_max
            out += [np.array(FRAME_GROUP, INT32).tobytes(), group.tobytes(), intervals.tobytes(), chunk]
        expected += slot.num_poses
    if expected != len(poses):
        raise FormatError(f"frames cover {expected} of {len(poses)} poses", field="frames")
    return out


def serialize_mdl(model: MdlModel) -> bytes:
    """Encode ``model`` in file order: header, skins, texcoords, triangles, frames, ``model.trailing``,
    as its ``variant`` lays them out."""
    num_verts = model.num_vertices
    if model.variant not in VERSIONS:
        raise FormatError(f"unknown variant {quoted(model.variant)}", field="variant")
    rapo = model.variant == RAPO
    num_st = len(np.atleast_1d(model.s)) if rapo else num_verts
    for name in ("onseam", "s", "t"):
        if np.shape(getattr(model, name)) != (num_st,):
            raise FormatError(f"shape {np.shape(getattr(model, name))}, expected ({num_st},)", field=name)
    triangles = np.asarray(model.triangles)
    if triangles.ndim != 2 or triangles.shape[1] != 3 or np.shape(model.facesfront) != (len(triangles),):
        raise FormatError(f"triangles {triangles.shape} and facesfront {np.shape(model.facesfront)} "
                          f"do not match", field="triangles")
    texcoords = np.zeros(num_st, TEXCOORD)
    texcoords["onseam"], texcoords["s"], texcoords["t"] = model.onseam, model.s, model.t
    if rapo:
        tris = rapo_triangle_bytes(model.facesfront, triangles, np.asarray(model.st_triangles))
    else:
        records = np.zeros(len(triangles), TRIANGLE)
        records["facesfront"], records["vertindex"] = model.facesfront, triangles
        tris = records.tobytes()
    skins = _skin_bytes(model)
    frames = _frame_bytes(model, _pose_records(model))

    header = np.zeros((), HEADER)
    header["ident"], header["version"] = model.variant.encode("ascii"), VERSIONS[model.variant]
    header["scale"], header["translate"] = model.scale, model.translate
    header["boundingradius"], header["eyeposition"] = model.bounding_radius, model.eye_position
    header["numskins"] = len(model.skins)
    header["skinwidth"], header["skinheight"] = model.skin_width, model.skin_height
    header["numverts"], header["numtris"], header["numframes"] = num_verts, len(triangles), len(model.frames)
    header["synctype"], header["flags"], header["size"] = model.synctype, model.flags, model.size
    extra = np.array([num_st], RAPO_EXTRA).tobytes() if rapo else b""
    return b"".join([header.tobytes(), extra, *skins, texcoords.tobytes(), tris, *frames, bytes(model.trailing)])
