"""Quake II MD2 ("IDP2", version 8): parse bytes into :class:`Md2Model` and serialize it back.

Layout (all little-endian; docs/dev/format-facts.md, "MD2"; Quake-2 ``qcommon/qfiles.h``)::

    header      17 x int32: ident "IDP2", version 8, skinwidth, skinheight, framesize,
                num_skins, num_xyz, num_st, num_tris, num_glcmds, num_frames,
                ofs_skins, ofs_st, ofs_tris, ofs_frames, ofs_glcmds, ofs_end
    skins       num_skins x char[64]            NUL-padded paths relative to the game directory
    st          num_st x {int16 s, t}           texel coordinates in skin pixels
    triangles   num_tris x {uint16 index_xyz[3], index_st[3]}   clockwise seen from the front
    frames      num_frames x framesize bytes:   float scale[3], translate[3]; char name[16];
                {uint8 x, y, z, normal_index}[num_xyz]
                position = byte * scale + translate
    glcmds      num_glcmds x int32 (see :mod:`formats.md2.glcmds`)

Bytes after ``ofs_end`` (an editor's tag) are not part of the model: the engines never read them
(Quake II ``Mod_LoadAliasModel`` allocates ``ofs_end`` bytes). They are kept in
:attr:`Md2Model.trailing` with the SHA-1 of the bytes before them (:mod:`..file_tail`), and the
writer appends ``trailing`` after ``ofs_end``.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..binary import check_span, decode_name, encode_name, has_junk, name_fields, read_records, read_struct
from ..errors import FormatError
from ..file_tail import tail_record
from ..magics import magic_problem
from .glcmds import check_glcmds

IDENT = b"IDP2"
VERSION = 8

HEADER = np.dtype([
    ("ident", "S4"), ("version", "<i4"),
    ("skinwidth", "<i4"), ("skinheight", "<i4"), ("framesize", "<i4"),
    ("num_skins", "<i4"), ("num_xyz", "<i4"), ("num_st", "<i4"), ("num_tris", "<i4"),
    ("num_glcmds", "<i4"), ("num_frames", "<i4"),
    ("ofs_skins", "<i4"), ("ofs_st", "<i4"), ("ofs_tris", "<i4"), ("ofs_frames", "<i4"),
    ("ofs_glcmds", "<i4"), ("ofs_end", "<i4"),
])
SKIN = np.dtype("S64")
ST = np.dtype([("s", "<i2"), ("t", "<i2")])
TRIANGLE = np.dtype([("index_xyz", "<u2", (3,)), ("index_st", "<u2", (3,))])
FRAME_HEADER = np.dtype([("scale", "<f4", (3,)), ("translate", "<f4", (3,)), ("name", "S16")])
VERTEX = np.dtype([("v", "u1", (3,)), ("normal_index", "u1")])

SKIN_NAME_SIZE = 64
FRAME_NAME_SIZE = 16


@dataclass(frozen=True)
class Md2Limits:
    """Engine limits from qfiles.h."""
    vertices: int = 2048
    triangles: int = 4096
    frames: int = 512
    skins: int = 32
    skin_name: int = SKIN_NAME_SIZE - 1
    frame_name: int = FRAME_NAME_SIZE - 1


LIMITS = Md2Limits()


@dataclass
class Md2Model:
    """Everything an MD2 file holds.

    ``frame_verts[f, i]`` is the packed (x, y, z) of vertex i in frame f, decoded with
    ``frame_scale[f]`` and ``frame_translate[f]``; ``glcmds`` is the raw int32 command list.
    """
    skin_width: int
    skin_height: int
    skins: list[str]
    st: np.ndarray                 # (num_st, 2) int16
    tri_xyz: np.ndarray            # (num_tris, 3) uint16
    tri_st: np.ndarray             # (num_tris, 3) uint16
    frame_names: list[str]
    frame_scale: np.ndarray        # (num_frames, 3) float32
    frame_translate: np.ndarray    # (num_frames, 3) float32
    frame_verts: np.ndarray        # (num_frames, num_xyz, 3) uint8
    frame_normals: np.ndarray      # (num_frames, num_xyz) uint8
    glcmds: np.ndarray = field(default_factory=lambda: np.zeros(1, dtype="<i4"))
    skin_name_raw: list[bytes] | None = None    # the 64-byte fields as read, if any had bytes after its NUL
    frame_name_raw: list[bytes] | None = None   # the 16-byte fields as read, likewise
    trailing: bytes = b""                        # bytes after ofs_end, written back after it
    tail_record: bytes | None = None             # as read: SHA-1 of the bytes before the tail ++ the tail

    def skin_fields(self) -> list[bytes]:
        """Each skin name as written: the field it was read from while it still holds that name."""
        return _name_fields(self.skins, self.skin_name_raw, SKIN_NAME_SIZE, "skin name")

    def frame_name_fields(self) -> list[bytes]:
        """Each frame name as written: the field it was read from while it still holds that name."""
        return _name_fields(self.frame_names, self.frame_name_raw, FRAME_NAME_SIZE, "frame name")

    @property
    def num_frames(self) -> int:
        return len(self.frame_names)

    @property
    def num_vertices(self) -> int:
        return self.frame_verts.shape[1]

    def positions(self) -> np.ndarray:
        """(num_frames, num_xyz, 3) float32 decoded positions."""
        out = self.frame_verts.astype(np.float32)
        out *= np.asarray(self.frame_scale, np.float32)[:, None, :]
        out += np.asarray(self.frame_translate, np.float32)[:, None, :]
        return out


def _block(header: np.void, count_field: str, ofs_field: str, itemsize: int, data: bytes) -> tuple[int, int]:
    count = int(header[count_field])
    offset = int(header[ofs_field])
    if count < 0:
        raise FormatError(f"negative count {count}", field=count_field, offset=_field_offset(count_field))
    if offset < 0 or offset > len(data):
        raise FormatError(f"offset {offset} outside the file of {len(data)} bytes",
                          field=ofs_field, offset=_field_offset(ofs_field))
    check_span(data, offset, count * itemsize, f"{count_field} x {itemsize} bytes at {ofs_field}")
    return count, offset


def _field_offset(name: str) -> int:
    return HEADER.fields[name][1]


def parse_md2(data: bytes) -> Md2Model:
    """Decode an MD2 file; raises :class:`FormatError` for anything malformed."""
    data = bytes(data)
    whole = data
    header = read_struct(data, 0, HEADER, "header")
    if header["ident"] != IDENT:
        raise FormatError(magic_problem(data, (IDENT,)), field="ident", offset=0)
    if int(header["version"]) != VERSION:
        raise FormatError(f"version is {int(header['version'])}, expected {VERSION}", field="version", offset=4)
    ofs_end = int(header["ofs_end"])
    if ofs_end > len(data):
        raise FormatError(f"file is truncated: ofs_end is {ofs_end}, file has {len(data)} bytes",
                          field="ofs_end", offset=_field_offset("ofs_end"))
    if ofs_end < HEADER.itemsize:
        raise FormatError(f"ofs_end {ofs_end} is inside the header", field="ofs_end",
                          offset=_field_offset("ofs_end"))
    data = data[:ofs_end]
    skin_width, skin_height = int(header["skinwidth"]), int(header["skinheight"])
    if skin_width <= 0 or skin_height <= 0:
        raise FormatError(f"skin size {skin_width}x{skin_height} is not positive",
                          field="skinwidth", offset=_field_offset("skinwidth"))
    num_xyz = int(header["num_xyz"])
    if num_xyz <= 0:
        raise FormatError(f"num_xyz is {num_xyz}: a model needs vertices", field="num_xyz",
                          offset=_field_offset("num_xyz"))
    framesize = int(header["framesize"])
    min_framesize = FRAME_HEADER.itemsize + VERTEX.itemsize * num_xyz
    if framesize < min_framesize:
        raise FormatError(f"framesize {framesize} is smaller than the {min_framesize} bytes "
                          f"{num_xyz} vertices need", field="framesize", offset=_field_offset("framesize"))

    num_skins, ofs_skins = _block(header, "num_skins", "ofs_skins", SKIN.itemsize, data)
    num_st, ofs_st = _block(header, "num_st", "ofs_st", ST.itemsize, data)
    num_tris, ofs_tris = _block(header, "num_tris", "ofs_tris", TRIANGLE.itemsize, data)
    num_frames, ofs_frames = _block(header, "num_frames", "ofs_frames", framesize, data)
    num_glcmds, ofs_glcmds = _block(header, "num_glcmds", "ofs_glcmds", 4, data)
    if num_frames == 0:
        raise FormatError("num_frames is 0: a model needs at least one frame", field="num_frames",
                          offset=_field_offset("num_frames"))

    _check_no_overlap([("header", 0, HEADER.itemsize, "ident"),
                       ("skins", ofs_skins, num_skins * SKIN.itemsize, "ofs_skins"),
                       ("st", ofs_st, num_st * ST.itemsize, "ofs_st"),
                       ("triangles", ofs_tris, num_tris * TRIANGLE.itemsize, "ofs_tris"),
                       ("frames", ofs_frames, num_frames * framesize, "ofs_frames"),
                       ("glcmds", ofs_glcmds, num_glcmds * 4, "ofs_glcmds")])
    skin_raw = name_fields(read_records(data, ofs_skins, SKIN, num_skins, "skins"))
    skins = [decode_name(raw) for raw in skin_raw]
    st_rec = read_records(data, ofs_st, ST, num_st, "st")
    st = np.stack([st_rec["s"], st_rec["t"]], axis=1) if num_st else np.zeros((0, 2), np.int16)
    tris = read_records(data, ofs_tris, TRIANGLE, num_tris, "triangles")
    tri_xyz = np.ascontiguousarray(tris["index_xyz"])
    tri_st = np.ascontiguousarray(tris["index_st"])
    _check_indices(tri_xyz, num_xyz, "index_xyz", ofs_tris, 0)
    _check_indices(tri_st, num_st, "index_st", ofs_tris, 6)

    check_span(data, ofs_frames, num_frames * framesize, "frames")
    heads = np.frombuffer(data, frame_dtype(num_xyz, framesize), num_frames, ofs_frames)["head"]
    scale = np.ascontiguousarray(heads["scale"], dtype=np.float32)
    translate = np.ascontiguousarray(heads["translate"], dtype=np.float32)
    bad = ~(np.isfinite(scale).all(axis=1) & np.isfinite(translate).all(axis=1))
    if bad.any():
        f = int(np.argmax(bad))
        what = "scale" if not np.isfinite(scale[f]).all() else "translate"
        raise FormatError("non-finite float", field=f"frame {f} {what}",
                          offset=ofs_frames + f * framesize + (0 if what == "scale" else 12))
    with np.errstate(over="ignore", invalid="ignore"):
        far = np.float32(255) * scale + translate           # byte 255; byte 0 decodes to translate
    if not np.isfinite(far).all():
        f = int(np.argmax(~np.isfinite(far).all(axis=1)))
        raise FormatError("255 x scale + translate overflows float32: positions would not be finite",
                          field=f"frame {f} scale", offset=ofs_frames + f * framesize)
    name_raw = name_fields(heads["name"])
    names = [decode_name(raw) for raw in name_raw]
    verts = _vertex_bytes(np.frombuffer(data, np.uint8, num_frames * framesize, ofs_frames), num_xyz, framesize)
    glcmds = read_records(data, ofs_glcmds, np.dtype("<i4"), num_glcmds, "glcmds")
    if num_glcmds:
        try:
            check_glcmds(glcmds, num_xyz)
        except FormatError as exc:
            raise FormatError(exc.message, field="glcmds", offset=ofs_glcmds + (exc.offset or 0)) from exc
    return Md2Model(
        skin_width=skin_width, skin_height=skin_height, skins=skins, st=st.astype(np.int16),
        skin_name_raw=skin_raw if has_junk(skin_raw) else None,
        frame_name_raw=name_raw if has_junk(name_raw) else None,
        tri_xyz=tri_xyz, tri_st=tri_st, frame_names=names, frame_scale=scale,
        frame_translate=translate, frame_verts=np.ascontiguousarray(verts[..., :3]),
        frame_normals=np.ascontiguousarray(verts[..., 3]), glcmds=glcmds,
        trailing=whole[ofs_end:], tail_record=tail_record(data, whole[ofs_end:]))


def _name_fields(names: list[str], raw: list[bytes] | None, size: int, what: str) -> list[bytes]:
    if raw is not None and len(raw) != len(names):
        raw = None
    return [raw[i] if raw is not None and len(raw[i]) == size and decode_name(raw[i]) == name
            else encode_name(name, size, what) for i, name in enumerate(names)]


def frame_dtype(num_xyz: int, framesize: int | None = None) -> np.dtype:
    """One frame record: header then ``num_xyz`` vertices, padded to ``framesize`` bytes."""
    size = framesize or FRAME_HEADER.itemsize + VERTEX.itemsize * num_xyz
    return np.dtype({"names": ["head", "verts"], "formats": [FRAME_HEADER, (VERTEX, (num_xyz,))],
                     "offsets": [0, FRAME_HEADER.itemsize], "itemsize": size})


def _check_no_overlap(blocks: list[tuple[str, int, int, str]]) -> None:
    """Raise if two non-empty blocks share a byte (a header pointing two tables at the same data)."""
    spans = sorted((ofs, ofs + size, name, where) for name, ofs, size, where in blocks if size > 0)
    for (_, end, name, _), (start, _, other, where) in zip(spans, spans[1:]):
        if start < end:
            raise FormatError(f"the {other} block at offset {start} overlaps the {name} block "
                              f"(which ends at {end})", field=where,
                              offset=_field_offset(where) if where in HEADER.names else 0)


def _vertex_bytes(raw: np.ndarray, num_xyz: int, framesize: int) -> np.ndarray:
    """(F, num_xyz, 4) view of the packed vertices inside raw frame bytes (plain uint8 slicing,
    much faster than copying the fields of the structured ``frame_dtype``)."""
    start = frame_dtype(num_xyz, framesize).fields["verts"][1]
    frames = raw.reshape(-1, framesize)
    return frames[:, start:start + VERTEX.itemsize * num_xyz].reshape(len(frames), num_xyz, VERTEX.itemsize)


def frame_records(model: Md2Model) -> np.ndarray:
    """The model's frames as packed records (``frame_dtype``), as they are written to the file."""
    num_frames, num_xyz = model.frame_verts.shape[:2]
    dtype = frame_dtype(num_xyz)
    frames = np.zeros(num_frames, dtype)
    head = frames["head"]
    head["scale"] = model.frame_scale
    head["translate"] = model.frame_translate
    head["name"] = model.frame_name_fields()
    verts = _vertex_bytes(frames.view(np.uint8), num_xyz, dtype.itemsize)
    verts[..., :3] = model.frame_verts
    verts[..., 3] = model.frame_normals
    return frames


def _check_indices(indices: np.ndarray, count: int, field: str, base: int, field_offset: int) -> None:
    if indices.size and int(indices.max()) >= count:
        tri = int(np.argmax(indices.max(axis=1) >= count))
        raise FormatError(f"triangle {tri} {field} {int(indices[tri].max())} is out of range (count {count})",
                          field=field, offset=base + tri * TRIANGLE.itemsize + field_offset)


def serialize_md2(model: Md2Model) -> bytes:
    """Encode ``model`` in the order qdata writes: skins, st, triangles, frames, glcmds; then
    ``model.trailing`` after ``ofs_end``."""
    num_frames, num_xyz = model.frame_verts.shape[:2]
    if len(model.frame_names) != num_frames:
        raise FormatError(f"{len(model.frame_names)} frame names for {num_frames} frames", field="frames")
    skins = b"".join(model.skin_fields())
    st = np.zeros(len(model.st), ST)
    st["s"], st["t"] = model.st[:, 0], model.st[:, 1]
    tris = np.zeros(len(model.tri_xyz), TRIANGLE)
    tris["index_xyz"], tris["index_st"] = model.tri_xyz, model.tri_st
    frames = frame_records(model)
    glcmds = np.asarray(model.glcmds, dtype="<i4")

    header = np.zeros((), HEADER)
    header["ident"], header["version"] = IDENT, VERSION
    header["skinwidth"], header["skinheight"] = model.skin_width, model.skin_height
    header["framesize"] = frames.dtype.itemsize
    header["num_skins"], header["num_xyz"], header["num_st"] = len(model.skins), num_xyz, len(st)
    header["num_tris"], header["num_glcmds"], header["num_frames"] = len(tris), len(glcmds), num_frames
    offset = HEADER.itemsize
    blocks = [skins, st.tobytes(), tris.tobytes(), frames.tobytes(), glcmds.tobytes()]
    for name, block in zip(("ofs_skins", "ofs_st", "ofs_tris", "ofs_frames", "ofs_glcmds"), blocks):
        header[name] = offset
        offset += len(block)
    header["ofs_end"] = offset
    return header.tobytes() + b"".join(blocks) + bytes(model.trailing)
