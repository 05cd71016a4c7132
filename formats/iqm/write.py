"""IQM writer: :class:`~.records.IqmModel` -> bytes, with the records of :mod:`.records`.

An untouched model (every block the size it was read with) is written at the offsets it was read
from, with the bytes between blocks and the header's offsets of empty blocks as the file had them, so
it comes back byte for byte. Otherwise the blocks are packed in the order the SDK's exporter wrote the
corpus's files (text, meshes, vertex arrays and their data, triangles, adjacency, joints, poses, anims,
frames, bounds, comment), extensions last, each block on a 4-byte boundary, an empty block's offset 0:
58 of its 59 files come out byte for byte that way too (the other has 4 unused bytes after its vertex
array records).
"""
from __future__ import annotations

import numpy as np

from ..errors import FormatError
from .codec import OFFSET_FIELDS, block_sizes, channel_count
from .records import (
    ANIM,
    BOUNDS,
    EXTENSION,
    FORMATS,
    HEADER,
    JOINT,
    MAGIC,
    MESH,
    POSE,
    VERSION,
    VERTEX_ARRAY,
    IqmLayout,
    IqmModel,
)


def _check(model: IqmModel) -> None:
    v, t, f = model.num_vertexes, len(model.triangles), model.num_frames
    for i, array in enumerate(model.vertex_arrays):
        if not 0 <= array.format < len(FORMATS) or array.data.dtype != FORMATS[array.format]:
            raise FormatError(f"vertex array {i} holds {array.data.dtype} data for format {array.format}",
                              field=f"vertex array {i} format")
        if array.data.ndim != 2 or array.data.shape[0] != v:
            raise FormatError(f"vertex array {i} has shape {array.data.shape}, expected ({v}, size)",
                              field=f"vertex array {i}")
    shapes = {"triangles": (model.triangles, (t, 3)), "adjacency": (model.adjacency, (t, 3)),
              "bounds": (model.bounds, (f,))}
    for name, (value, shape) in shapes.items():
        if value is not None and np.shape(value) != shape:
            raise FormatError(f"{name} has shape {np.shape(value)}, expected {shape}", field=name)
    for name, dtype in (("meshes", MESH), ("joints", JOINT), ("poses", POSE), ("anims", ANIM)):
        if getattr(model, name).dtype != dtype:
            raise FormatError(f"{name} are not IQM {name} records", field=name)
    if model.frames.ndim != 2 or (f and model.frames.shape[1] != channel_count(model.poses["mask"])):
        raise FormatError(f"frames have shape {model.frames.shape}, the poses' masks set "
                          f"{channel_count(model.poses['mask'])} channels", field="frames")


def _blocks(model: IqmModel) -> dict[str, bytes]:
    def raw(a) -> bytes:
        return b"" if a is None else np.ascontiguousarray(a).tobytes()
    tri = lambda a: None if a is None else np.asarray(a, "<u4")   # noqa: E731
    return {"ofs_text": bytes(model.text), "ofs_meshes": raw(model.meshes), "ofs_triangles": raw(tri(model.triangles)),
            "ofs_adjacency": raw(tri(model.adjacency)), "ofs_joints": raw(model.joints), "ofs_poses": raw(model.poses),
            "ofs_anims": raw(model.anims), "ofs_frames": raw(np.asarray(model.frames, "<u2")),
            "ofs_bounds": raw(None if model.bounds is None else np.asarray(model.bounds, BOUNDS)),
            "ofs_comment": bytes(model.comment)}


def _packed_layout(model: IqmModel, blocks: dict[str, bytes]) -> IqmLayout:
    position = HEADER.itemsize
    offsets = dict.fromkeys(OFFSET_FIELDS, 0)
    arrays, chain = [], []

    def place(size: int, present: bool = False) -> int:
        nonlocal position
        if not size and not present:
            return 0
        position += -position % 4
        start, position = position, position + size
        return start

    for name in ("ofs_text", "ofs_meshes"):
        offsets[name] = place(len(blocks[name]))
    offsets["ofs_vertexarrays"] = place(len(model.vertex_arrays) * VERTEX_ARRAY.itemsize)
    arrays = [place(a.data.nbytes) for a in model.vertex_arrays]
    for name in ("ofs_triangles", "ofs_adjacency", "ofs_joints", "ofs_poses", "ofs_anims", "ofs_frames",
                 "ofs_bounds", "ofs_comment"):
        present = (name == "ofs_adjacency" and model.adjacency is not None) or (
            name == "ofs_bounds" and model.bounds is not None)
        offsets[name] = place(len(blocks[name]), present)
    for extension in model.extensions:
        record = place(EXTENSION.itemsize)
        chain.append([record, place(len(extension.data)), 0])
    for before, after in zip(chain, chain[1:]):
        before[2] = after[0]
    offsets["ofs_extensions"] = chain[0][0] if chain else 0
    return IqmLayout(offsets=offsets, arrays=arrays, extensions=[(c[0], c[1], c[2]) for c in chain], filesize=position,
                     sizes=block_sizes(model))


def write_iqm(model: IqmModel) -> bytes:
    """Encode ``model`` (at the offsets it was read from while every block keeps its size); the
    trailing bytes after ``filesize``."""
    _check(model)
    blocks = _blocks(model)
    layout = model.layout
    if layout is None or layout.sizes != block_sizes(model):
        layout = _packed_layout(model, blocks)
    out = bytearray(layout.filesize)
    for offset, filler in layout.filler:
        out[offset:offset + len(filler)] = filler
    header = np.zeros((), HEADER)
    header["magic"], header["version"] = np.void(MAGIC), VERSION
    counts = {"filesize": layout.filesize, "flags": model.flags, "num_text": len(model.text),
              "num_meshes": len(model.meshes), "num_vertexarrays": len(model.vertex_arrays),
              "num_vertexes": model.num_vertexes, "num_triangles": len(model.triangles),
              "num_joints": len(model.joints), "num_poses": len(model.poses), "num_anims": len(model.anims),
              "num_frames": model.num_frames, "num_framechannels": int(model.frames.shape[1]),
              "num_comment": len(model.comment), "num_extensions": len(model.extensions), **layout.offsets}
    for name, value in counts.items():
        header[name] = value
    out[:HEADER.itemsize] = header.tobytes()
    for name, block in blocks.items():
        out[layout.offsets[name]:layout.offsets[name] + len(block)] = block
    records = np.zeros(len(model.vertex_arrays), VERTEX_ARRAY)
    for record, array, offset in zip(records, model.vertex_arrays, layout.arrays):
        record["type"], record["flags"], record["format"] = array.type, array.flags, array.format
        record["size"], record["offset"] = array.size, offset
        data = np.ascontiguousarray(array.data).tobytes()
        out[offset:offset + len(data)] = data
    start = layout.offsets["ofs_vertexarrays"]
    out[start:start + records.nbytes] = records.tobytes()
    for extension, (offset, ofs_data, next_offset) in zip(model.extensions, layout.extensions):
        record = np.zeros((), EXTENSION)
        record["name"], record["num_data"] = extension.name, len(extension.data)
        record["ofs_data"], record["ofs_extensions"] = ofs_data, next_offset
        out[offset:offset + EXTENSION.itemsize] = record.tobytes()
        out[ofs_data:ofs_data + len(extension.data)] = extension.data
    if len(out) != layout.filesize:
        raise FormatError(f"the blocks reach past the layout's {layout.filesize} bytes", field="filesize")
    return bytes(out) + bytes(model.trailing)
