"""IQM reader and writer: bytes <-> :class:`~.records.IqmModel` (the layout is in :mod:`.records`).

Checks, each a :class:`~..errors.FormatError` naming the header or record field and its byte offset,
made before anything a count drives is read or allocated (sizes are Python integers: no overflow):

- magic "INTERQUAKEMODEL\\0" and version 2 (DarkPlaces ``Mod_INTERQUAKEMODEL_Load`` also reads the
  older version 1, with 3-float rotations: not written by the SDK since 2011, refused here);
- ``filesize`` at least the header and at most the file (a shorter file is truncated; bytes past
  ``filesize`` are kept as the trailing bytes);
- every block inside ``filesize`` (DarkPlaces refuses "invalid size or offset information" for the
  same checks against the buffer's end), vertex array formats one of iqm.h's nine, and no two blocks
  sharing a byte (:func:`_check_no_overlap`: a count past its block's room would read another block);
- names (text offsets) inside the text; meshes inside the vertices and triangles; triangle indexes
  inside the vertices (DarkPlaces' ``Mod_ValidateElements`` would replace them, with a warning); joint and pose parents
  -1 or an earlier index (DarkPlaces: "bone[i].parent >= i" is a fatal error); anims inside the
  frames; ``num_framechannels`` equal to the channels the poses' masks set (else every frame after the
  first is read shifted); the extension chain inside the file, without a loop;
- floats finite in joints, poses, anims, bounds and the standard vertex arrays;
- ``num_frames`` x ``num_poses`` (or ``num_frames`` alone without poses) at most
  :data:`~.records.MAX_FRAME_POSES`, and ``num_vertexes`` held by some vertex array where meshes or
  triangles use the vertices (ours: frames whose masks set no channel and vertices no array holds take no
  byte of the file, yet an importer would build them; decoded frames take 40 bytes a pose). A file of
  anims alone (no mesh, no triangle, no array) may count vertices all the same: Red Eclipse's player
  anims count their mesh's (``reload_pistol.iqm``: 3,110). The IQM SDK's ``demo.cpp`` ``loadiqm`` reads
  meshes only where ``num_meshes > 0`` and Sauerbraten's ``iqm.h`` loads an anim file's poses and anims
  without its meshes, so those engines play it; DarkPlaces refuses it ("missing vertex array data":
  vertices without a position array), which :mod:`.limits` lists.

What an engine would refuse to draw but the format allows is listed in :attr:`IqmModel.warnings`
(:mod:`.limits`).
"""
from __future__ import annotations

import numpy as np

from ..binary import read_records, read_struct, uncovered_runs
from ..errors import FormatError
from ..magics import magic_problem
from .limits import read_warnings
from .records import (
    ANIM,
    BOUNDS,
    CHANNELS,
    EXTENSION,
    FORMAT_NAMES,
    FORMATS,
    FRAME_VALUE,
    HEADER,
    JOINT,
    MAGIC,
    MAX_FRAME_POSES,
    MESH,
    POSE,
    TRIANGLE,
    VERSION,
    VERTEX_ARRAY,
    IqmExtension,
    IqmLayout,
    IqmModel,
    IqmVertexArray,
)

OFFSET_FIELDS = tuple(name for name in HEADER.names if name.startswith("ofs_"))
STANDARD_TYPES = 7                  # types below this are iqm.h's; their float data must be finite


def _at(dtype: np.dtype, name: str) -> int:
    return dtype.fields[name][1]


def channel_count(masks: np.ndarray) -> int:
    """How many uint16 values one frame holds for poses with these channel masks (bits 0-9)."""
    masks = np.asarray(masks, np.uint32)
    return int(sum(int(np.count_nonzero(masks & (1 << c))) for c in range(CHANNELS)))


class _Reader:
    """One file's header values, the blocks read so far (for the overlap check) and the checks."""

    def __init__(self, data: bytes) -> None:
        if data[:len(MAGIC)] != MAGIC:
            raise FormatError(magic_problem(data, (MAGIC,), "magic"), field="magic", offset=0)
        header = read_struct(data, 0, HEADER, "header")
        if int(header["version"]) != VERSION:
            raise FormatError(f"version is {int(header['version'])}, this reads version {VERSION} (the IQM SDK's "
                              "since 2011)", field="version", offset=_at(HEADER, "version"))
        self.h = {name: int(header[name]) for name in HEADER.names[1:]}
        size = self.h["filesize"]
        if not HEADER.itemsize <= size <= len(data):
            raise FormatError(f"filesize {size} is outside {HEADER.itemsize} .. {len(data)} (the header's size and "
                              "the file's): the file is truncated or the header is wrong", field="filesize",
                              offset=_at(HEADER, "filesize"))
        self.body = data[:size]
        self.spans = [("header", 0, HEADER.itemsize, "magic", 0)]

    def block(self, what: str, ofs_field: str, count_field: str, count: int, itemsize: int,
              dtype: np.dtype | None = None) -> np.ndarray | bytes:
        """``count`` records at the header's ``ofs_field`` (bytes when ``dtype`` is None)."""
        offset, size = self.h[ofs_field], count * itemsize
        if size == 0:
            return np.zeros(0, dtype) if dtype is not None else b""
        self.span(what, offset, size, count_field, _at(HEADER, count_field))
        if dtype is None:
            return self.body[offset:offset + size]
        return read_records(self.body, offset, dtype, count, what)

    def records(self, what: str, ofs_field: str, count_field: str, count: int, itemsize: int,
                dtype: np.dtype) -> np.ndarray:
        """:meth:`block` of records of ``dtype``."""
        found = self.block(what, ofs_field, count_field, count, itemsize, dtype)
        assert isinstance(found, np.ndarray)
        return found

    def span(self, what: str, offset: int, size: int, field: str, at: int) -> None:
        if offset + size > len(self.body):
            raise FormatError(f"the {what} ({size} bytes at offset {offset}) run past the file's {len(self.body)} "
                              "bytes: a count or an offset is wrong", field=field, offset=at)
        self.spans.append((what, offset, size, field, at))

    def name(self, value: int, field: str, at: int) -> None:
        text = self.h["num_text"]
        if value >= text and not (value == 0 and text == 0):
            raise FormatError(f"text offset {value} is outside the text's {text} bytes", field=field, offset=at)


def _first_bad(bad: np.ndarray) -> int | None:
    hits = np.flatnonzero(bad)
    return int(hits[0]) if hits.size else None


def _finite(records: np.ndarray, names: tuple[str, ...], what: str, base: int) -> None:
    for name in names:
        values = records[name].reshape(len(records), -1) if len(records) else np.zeros((0, 1))
        row = _first_bad(~np.isfinite(values).all(axis=1))
        if row is not None:
            raise FormatError(f"{what} {row} has a non-finite {name}", field=f"{what} {row} {name}",
                              offset=base + row * records.dtype.itemsize + _at(records.dtype, name))


def _parents(records: np.ndarray, what: str, base: int) -> None:
    parents = records["parent"].astype(np.int64)
    row = _first_bad((parents < -1) | (parents >= np.arange(len(records))))
    if row is not None:
        raise FormatError(f"{what} {row} has parent {int(parents[row])}: a parent is -1 or an earlier {what}",
                          field=f"{what} {row} parent", offset=base + row * records.dtype.itemsize + _at(records.dtype, "parent"))


def read_iqm(data: bytes) -> IqmModel:
    """Decode an IQM file; raises :class:`FormatError` for anything malformed."""
    data = bytes(data)
    r = _Reader(data)
    h = r.h
    text = r.block("text", "ofs_text", "num_text", h["num_text"], 1)
    meshes = r.records("meshes", "ofs_meshes", "num_meshes", h["num_meshes"], MESH.itemsize, MESH)
    records = r.records("vertex arrays", "ofs_vertexarrays", "num_vertexarrays", h["num_vertexarrays"],
                      VERTEX_ARRAY.itemsize, VERTEX_ARRAY)
    arrays = [_vertex_array(r, record, i) for i, record in enumerate(records)]
    if h["num_vertexes"] and not any(a.data.size for a in arrays) and (h["num_meshes"] or h["num_triangles"]):
        raise FormatError(f"num_vertexes is {h['num_vertexes']} but no vertex array holds them",
                          field="num_vertexes", offset=_at(HEADER, "num_vertexes"))
    triangles = r.records("triangles", "ofs_triangles", "num_triangles", h["num_triangles"], TRIANGLE.itemsize,
                        TRIANGLE).reshape(-1, 3)
    adjacency = None
    if h["ofs_adjacency"]:
        adjacency = r.records("adjacency", "ofs_adjacency", "num_triangles", h["num_triangles"], TRIANGLE.itemsize,
                            TRIANGLE).reshape(-1, 3)
    joints = r.records("joints", "ofs_joints", "num_joints", h["num_joints"], JOINT.itemsize, JOINT)
    poses = r.records("poses", "ofs_poses", "num_poses", h["num_poses"], POSE.itemsize, POSE)
    anims = r.records("anims", "ofs_anims", "num_anims", h["num_anims"], ANIM.itemsize, ANIM)
    channels = h["num_framechannels"]
    if h["num_frames"] * max(h["num_poses"], 1) > MAX_FRAME_POSES:
        raise FormatError(f"{h['num_frames']} frames of {h['num_poses']} poses are over the {MAX_FRAME_POSES} "
                          "poses this reads (decoded they would take gigabytes)", field="num_frames",
                          offset=_at(HEADER, "num_frames"))
    frames = r.records("frames", "ofs_frames", "num_frames", h["num_frames"] * channels, FRAME_VALUE.itemsize,
                     FRAME_VALUE).reshape(h["num_frames"], channels)
    bounds = None
    if h["ofs_bounds"]:
        bounds = r.records("bounds", "ofs_bounds", "num_frames", h["num_frames"], BOUNDS.itemsize, BOUNDS)
    comment = r.block("comment", "ofs_comment", "num_comment", h["num_comment"], 1)
    extensions, chain = _extensions(r)
    _check_no_overlap(r.spans)
    _check_records(r, meshes, triangles, joints, poses, anims, bounds)
    model = IqmModel(text=bytes(text), meshes=meshes, num_vertexes=h["num_vertexes"], vertex_arrays=arrays,
                     triangles=triangles, adjacency=adjacency, joints=joints, poses=poses, anims=anims,
                     frames=frames, bounds=bounds, comment=bytes(comment), extensions=extensions,
                     flags=h["flags"], trailing=data[h["filesize"]:])
    model.layout = IqmLayout(offsets={name: h[name] for name in OFFSET_FIELDS},
                             arrays=[int(record["offset"]) for record in records], extensions=chain,
                             filesize=h["filesize"], sizes=block_sizes(model),
                             filler=uncovered_runs(r.body, [(ofs, size) for _, ofs, size, _, _ in r.spans]))
    model.warnings = read_warnings(model)
    return model


def _vertex_array(r: _Reader, record: np.void, index: int) -> IqmVertexArray:
    base = r.h["ofs_vertexarrays"] + index * VERTEX_ARRAY.itemsize
    kind, fmt, size, offset = (int(record[n]) for n in ("type", "format", "size", "offset"))
    if fmt >= len(FORMATS):
        raise FormatError(f"vertex array {index} has format {fmt}, iqm.h defines 0 .. {len(FORMATS) - 1}",
                          field=f"vertex array {index} format", offset=base + _at(VERTEX_ARRAY, "format"))
    dtype, count = FORMATS[fmt], r.h["num_vertexes"] * size
    array = IqmVertexArray(type=kind, format=fmt, flags=int(record["flags"]),     # size 0: (vertices, 0)
                           data=np.zeros((0 if size else r.h["num_vertexes"], size), dtype))
    what = f"vertex array {index} ({array.type_name}, {size} x {FORMAT_NAMES[fmt]})"
    if count:
        r.span(what, offset, count * dtype.itemsize, f"vertex array {index} offset",
               base + _at(VERTEX_ARRAY, "offset"))
        array.data = read_records(r.body, offset, dtype, count, what).reshape(-1, size)
    if kind < STANDARD_TYPES and dtype.kind == "f":
        row = _first_bad(~np.isfinite(array.data).all(axis=1))
        if row is not None:
            raise FormatError(f"vertex {row} of the {array.type_name} array is not finite",
                              field=f"vertex array {index} vertex {row}", offset=offset + row * size * dtype.itemsize)
    return array


def _extensions(r: _Reader) -> tuple[list[IqmExtension], list[tuple[int, int, int]]]:
    """Follow the chain from the header's ofs_extensions, ``num_extensions`` records long."""
    count = r.h["num_extensions"]
    if count * EXTENSION.itemsize > len(r.body):
        raise FormatError(f"{count} extensions need {count * EXTENSION.itemsize} bytes, the file has "
                          f"{len(r.body)}", field="num_extensions", offset=_at(HEADER, "num_extensions"))
    out, chain, seen = [], [], set()
    field, at, offset = "ofs_extensions", _at(HEADER, "ofs_extensions"), r.h["ofs_extensions"]
    for index in range(count):
        if offset in seen:
            raise FormatError(f"extension {index} is at offset {offset} again: the chain loops", field=field, offset=at)
        seen.add(offset)
        r.span(f"extension {index}", offset, EXTENSION.itemsize, field, at)
        record = read_struct(r.body, offset, EXTENSION, f"extension {index}")
        ofs_data, num_data = int(record["ofs_data"]), int(record["num_data"])
        if num_data:
            r.span(f"extension {index} data", ofs_data, num_data, f"extension {index} num_data",
                   offset + _at(EXTENSION, "num_data"))
        r.name(int(record["name"]), f"extension {index} name", offset)
        out.append(IqmExtension(name=int(record["name"]), data=r.body[ofs_data:ofs_data + num_data]))
        chain.append((offset, ofs_data, int(record["ofs_extensions"])))
        field, at = f"extension {index} ofs_extensions", offset + _at(EXTENSION, "ofs_extensions")
        offset = int(record["ofs_extensions"])
    return out, chain


def _check_records(r: _Reader, meshes, triangles, joints, poses, anims, bounds) -> None:
    h = r.h
    for i, mesh in enumerate(meshes):
        base = h["ofs_meshes"] + i * MESH.itemsize
        r.name(int(mesh["name"]), f"mesh {i} name", base)
        r.name(int(mesh["material"]), f"mesh {i} material", base + 4)
        for first, count, total in (("first_vertex", "num_vertexes", h["num_vertexes"]),
                                    ("first_triangle", "num_triangles", h["num_triangles"])):
            if int(mesh[first]) + int(mesh[count]) > total:
                raise FormatError(f"mesh {i} runs to {int(mesh[first]) + int(mesh[count])}, past the model's "
                                  f"{total} ({count[4:]})", field=f"mesh {i} {count}", offset=base + _at(MESH, count))
    bad = _first_bad(triangles.reshape(-1) >= h["num_vertexes"])
    if bad is not None:
        raise FormatError(f"triangle {bad // 3} vertex {int(triangles.reshape(-1)[bad])} is outside the model's "
                          f"{h['num_vertexes']} vertices", field=f"triangle {bad // 3}",
                          offset=h["ofs_triangles"] + 4 * bad)
    for records, what, ofs in ((joints, "joint", "ofs_joints"), (anims, "anim", "ofs_anims")):
        for i, value in enumerate(records["name"]):
            r.name(int(value), f"{what} {i} name", h[ofs] + i * records.dtype.itemsize)
    _parents(joints, "joint", h["ofs_joints"])
    _parents(poses, "pose", h["ofs_poses"])
    _finite(joints, ("translate", "rotate", "scale"), "joint", h["ofs_joints"])
    _finite(poses, ("channeloffset", "channelscale"), "pose", h["ofs_poses"])
    _finite(anims, ("framerate",), "anim", h["ofs_anims"])
    if bounds is not None:
        _finite(bounds, ("bbmin", "bbmax", "xyradius", "radius"), "bounds", h["ofs_bounds"])
    ends = anims["first_frame"].astype(np.int64) + anims["num_frames"]
    row = _first_bad(ends > h["num_frames"])
    if row is not None:
        raise FormatError(f"anim {row} runs to frame {int(ends[row])}, past the model's {h['num_frames']} frames",
                          field=f"anim {row} num_frames", offset=h["ofs_anims"] + row * ANIM.itemsize + 8)
    expected = channel_count(poses["mask"])
    if h["num_frames"] and h["num_framechannels"] != expected:
        raise FormatError(f"num_framechannels is {h['num_framechannels']}, the poses' channel masks set {expected}",
                          field="num_framechannels", offset=_at(HEADER, "num_framechannels"))


def _check_no_overlap(blocks: list[tuple[str, int, int, str, int]]) -> None:
    """Refuse two non-empty blocks that share a byte, as the MD2, MDL and MD3 readers do: a count past
    its block's room would read another block's bytes as its own. The field named is the one whose
    block runs into the other."""
    spans = sorted((ofs, ofs + size, name, where, at) for name, ofs, size, where, at in blocks if size > 0)
    reach = None
    for span in spans:
        if reach is not None and span[0] < reach[1]:
            start, end, name, where, at = reach
            raise FormatError(f"the {name} ({end - start} bytes at offset {start}) run into the {span[2]} at offset "
                              f"{span[0]}: a count or an offset is wrong; the file is not imported",
                              field=where, offset=at)
        if reach is None or span[1] > reach[1]:
            reach = span


def block_sizes(model: IqmModel) -> list[int]:
    """The byte size of every block (-1 for an absent adjacency or bounds block), in the writer's order."""
    def nbytes(a: np.ndarray | None) -> int:
        return -1 if a is None else int(np.asarray(a).nbytes)
    return ([len(model.text), nbytes(model.meshes), len(model.vertex_arrays)]
            + [nbytes(a.data) for a in model.vertex_arrays]
            + [nbytes(model.triangles), nbytes(model.adjacency), nbytes(model.joints), nbytes(model.poses),
               nbytes(model.anims), nbytes(model.frames), nbytes(model.bounds), len(model.comment),
               len(model.extensions)] + [len(e.data) for e in model.extensions])
