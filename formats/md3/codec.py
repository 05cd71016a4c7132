"""MD3 reader and writer: bytes <-> :class:`~.records.Md3Model` (the layout is in :mod:`.records`).

Checks (ioquake3 renderergl1 ``R_LoadMD3`` and ours): ident "IDP3" and version 15; ``ofs_end`` inside
the file and past the header (the engine copies ``ofsEnd`` bytes, so every block must lie before it);
``num_frames`` at least 1 (the engine refuses a model without frames); every count non-negative and
every block inside ``[0, ofs_end)`` before anything is read or allocated; each surface's ``ofs_end``
at least its header's size (the next surface starts there); every surface has the model's frame count
(the renderer indexes its vertices by the model's frame); triangle indexes inside the surface's
vertices; no two blocks sharing a byte (:func:`_check_no_overlap`: a ``num_tags`` past the tags' room
would read tags out of the surfaces). A failed check raises :class:`~..errors.FormatError` naming the
field and its byte offset.

Not refused, listed in :attr:`Md3Model.warnings` (one line per kind, with a count): counts over the
qfiles.h ``MD3_MAX_*`` limits, surfaces the renderer would refuse (``SHADER_MAX_VERTEXES``), non-finite
floats. Real files go past the renderer's limit (Nexuiz models have surfaces of over 1,000 vertices),
and some (Nexuiz) write 104-byte frames: the engine reads 56-byte ones from ``ofs_frames`` and so does
the reader; the rest of the block is kept as filler.
"""
from __future__ import annotations

import numpy as np

from ..binary import check_span, decode_name, encode_name, read_records, read_struct, uncovered_runs
from ..errors import FormatError
from ..file_tail import tail_record
from ..magics import magic_problem
from .limits import read_warnings
from .records import (
    FRAME,
    FRAME_NAME_SIZE,
    HEADER,
    IDENT,
    NAME_SIZE,
    SHADER,
    ST,
    SURFACE,
    TAG,
    TRIANGLE,
    VERSION,
    XYZ_NORMAL,
    Md3Layout,
    Md3Model,
    Md3Shader,
    Md3Surface,
)

SURFACE_BLOCKS = (   # (count, offset field, record) in the order qfiles.h lists the chunks
    ("num_shaders", "ofs_shaders", SHADER), ("num_triangles", "ofs_triangles", TRIANGLE),
    ("num_verts", "ofs_st", ST), ("num_verts", "ofs_xyznormals", XYZ_NORMAL))


def _at(dtype: np.dtype, name: str) -> int:
    return dtype.fields[name][1]


def _count(record: np.void, name: str, base: int, where: str) -> int:
    value = int(record[name])
    if value < 0:
        raise FormatError(f"negative count {value}", field=f"{where}{name}", offset=base + _at(record.dtype, name))
    return value


def _names(fields: np.ndarray) -> list[str]:
    return [decode_name(f.tobytes()) for f in fields.reshape(-1)]


def read_md3(data: bytes) -> Md3Model:
    """Decode an MD3 file; raises :class:`FormatError` for anything malformed."""
    data = bytes(data)
    header = read_struct(data, 0, HEADER, "header")
    if header["ident"] != IDENT:
        raise FormatError(magic_problem(data, (IDENT,), "ident"), field="ident", offset=0)
    if int(header["version"]) != VERSION:
        raise FormatError(f"version is {int(header['version'])}, expected {VERSION}", field="version",
                          offset=_at(HEADER, "version"))
    ofs_end = int(header["ofs_end"])
    if not HEADER.itemsize <= ofs_end <= len(data):
        raise FormatError(f"ofs_end {ofs_end} is outside {HEADER.itemsize} .. {len(data)} (the header's end "
                          f"and the file's size)", field="ofs_end", offset=_at(HEADER, "ofs_end"))
    body = data[:ofs_end]
    num_frames = _count(header, "num_frames", 0, "")
    num_tags = _count(header, "num_tags", 0, "")
    num_surfaces = _count(header, "num_surfaces", 0, "")
    if num_frames < 1:
        raise FormatError("num_frames is 0: a model needs at least one frame", field="num_frames",
                          offset=_at(HEADER, "num_frames"))
    spans = [(0, HEADER.itemsize)]

    def block(offset_field: str, dtype: np.dtype, count: int, what: str) -> np.ndarray:
        offset = int(header[offset_field])
        if not 0 <= offset <= ofs_end:
            raise FormatError(f"offset {offset} is outside the model's {ofs_end} bytes", field=offset_field,
                              offset=_at(HEADER, offset_field))
        check_span(body, offset, count * dtype.itemsize, f"{what} at {offset_field}")
        spans.append((offset, count * dtype.itemsize))
        return read_records(body, offset, dtype, count, what)

    frames = block("ofs_frames", FRAME, num_frames, "frames")
    tags = block("ofs_tags", TAG, num_frames * num_tags, "tags").reshape(num_frames, num_tags)
    named = [("header", 0, HEADER.itemsize, "ident", 0),
             ("frames", int(header["ofs_frames"]), num_frames * FRAME.itemsize, "num_frames", _at(HEADER, "num_frames")),
             ("tags", int(header["ofs_tags"]), num_frames * num_tags * TAG.itemsize, "num_tags", _at(HEADER, "num_tags"))]
    offset = int(header["ofs_surfaces"])
    if not 0 <= offset <= ofs_end:
        raise FormatError(f"offset {offset} is outside the model's {ofs_end} bytes", field="ofs_surfaces",
                          offset=_at(HEADER, "ofs_surfaces"))
    surfaces, layouts = [], []
    for index in range(num_surfaces):
        surface, layout = _read_surface(body, offset, index, num_frames, spans)
        surfaces.append(surface)
        layouts.append(layout)
        named += _surface_spans(surface, layout, index, num_frames)
        offset += layout["ofs_end"]
    _check_no_overlap(named)

    frame_raw = frames["name"].copy()
    tag_raw = tags["name"].copy()
    model = Md3Model(
        name=decode_name(header["name"].tobytes()), name_raw=header["name"].tobytes(),
        flags=int(header["flags"]), num_skins=int(header["num_skins"]),
        frame_names=_names(frame_raw), frame_name_raw=frame_raw,
        frame_bounds=np.ascontiguousarray(frames["bounds"]), frame_origin=np.ascontiguousarray(frames["local_origin"]),
        frame_radius=np.ascontiguousarray(frames["radius"]),
        tag_names=_names(tag_raw[0]) if num_tags else [], tag_name_raw=tag_raw,
        tag_origin=np.ascontiguousarray(tags["origin"]), tag_axis=np.ascontiguousarray(tags["axis"]),
        surfaces=surfaces, trailing=data[ofs_end:], tail_record=tail_record(body, data[ofs_end:]))
    model.layout = Md3Layout(
        offsets={name: int(header[name]) for name in ("ofs_frames", "ofs_tags", "ofs_surfaces", "ofs_end")},
        surfaces=layouts, sizes=_block_sizes(model), filler=uncovered_runs(body, spans))
    model.warnings = read_warnings(model)
    return model


def _read_surface(body: bytes, start: int, index: int, num_frames: int,
                  spans: list[tuple[int, int]]) -> tuple[Md3Surface, dict[str, int]]:
    where = f"surface {index} "
    check_span(body, start, SURFACE.itemsize, f"{where}header")
    head = read_struct(body, start, SURFACE, f"{where}header")
    spans.append((start, SURFACE.itemsize))
    counts = {name: _count(head, name, start, where)
              for name in ("num_frames", "num_shaders", "num_verts", "num_triangles")}
    if counts["num_frames"] != num_frames:
        raise FormatError(f"{counts['num_frames']} frames, the model has {num_frames}",
                          field=f"{where}num_frames", offset=start + _at(SURFACE, "num_frames"))
    end = int(head["ofs_end"])
    if end < SURFACE.itemsize or start + end > len(body):
        raise FormatError(f"ofs_end {end} puts the next surface outside {start + SURFACE.itemsize} .. "
                          f"{len(body)}", field=f"{where}ofs_end", offset=start + _at(SURFACE, "ofs_end"))
    blocks = {}
    for count_name, offset_name, dtype in SURFACE_BLOCKS:
        offset = int(head[offset_name])
        count = counts[count_name] * (num_frames if offset_name == "ofs_xyznormals" else 1)
        if offset < 0 or start + offset > len(body):
            raise FormatError(f"offset {offset} from the surface at {start} is outside the model's "
                              f"{len(body)} bytes", field=f"{where}{offset_name}",
                              offset=start + _at(SURFACE, offset_name))
        check_span(body, start + offset, count * dtype.itemsize, f"{where}{count_name} at {offset_name}")
        spans.append((start + offset, count * dtype.itemsize))
        blocks[offset_name] = read_records(body, start + offset, dtype, count, f"{where}{offset_name}")
    num_verts = counts["num_verts"]
    triangles = np.ascontiguousarray(blocks["ofs_triangles"]["indexes"])
    bad = (triangles < 0) | (triangles >= num_verts)
    if bad.any():
        tri, corner = (int(i) for i in np.argwhere(bad)[0])
        raise FormatError(f"triangle {tri} vertex index {int(triangles[tri, corner])} is outside 0 .. {num_verts - 1}",
                          field=f"{where}triangles", offset=start + int(head["ofs_triangles"]) + tri * 12 + corner * 4)
    shaders = blocks["ofs_shaders"]
    xyz_normals = blocks["ofs_xyznormals"].reshape(num_frames, num_verts)
    surface = Md3Surface(
        name=decode_name(head["name"].tobytes()), name_raw=head["name"].tobytes(), flags=int(head["flags"]),
        ident=head["ident"].tobytes(),
        shaders=[Md3Shader(decode_name(s["name"].tobytes()), int(s["shader_index"]), s["name"].tobytes())
                 for s in shaders],
        triangles=triangles, st=np.ascontiguousarray(blocks["ofs_st"]["st"]),
        xyz=np.ascontiguousarray(xyz_normals["xyz"]), normal=np.ascontiguousarray(xyz_normals["normal"]))
    layout = {"start": start, **{name: int(head[name]) for name in
                                 ("ofs_triangles", "ofs_shaders", "ofs_st", "ofs_xyznormals", "ofs_end")}}
    return surface, layout


def _surface_spans(surface: Md3Surface, layout: dict[str, int], index: int, num_frames: int) -> list[tuple]:
    """(block, offset, size, field, field's offset) of each block of one surface, for :func:`_check_no_overlap`."""
    start, verts, where = layout["start"], surface.num_verts, f"surface {index} "
    sizes = {"ofs_shaders": len(surface.shaders) * SHADER.itemsize,
             "ofs_triangles": len(surface.triangles) * TRIANGLE.itemsize, "ofs_st": verts * ST.itemsize,
             "ofs_xyznormals": num_frames * verts * XYZ_NORMAL.itemsize}
    names = {"ofs_shaders": "shaders", "ofs_triangles": "triangles", "ofs_st": "st", "ofs_xyznormals": "xyz normals"}
    return [(f"{where}header", start, SURFACE.itemsize, f"{where}header", start)] + [
        (where + names[name], start + layout[name], size, where + name, start + _at(SURFACE, name))
        for name, size in sizes.items()]


def _check_no_overlap(blocks: list[tuple[str, int, int, str, int]]) -> None:
    """Refuse two non-empty blocks that share a byte (``num_tags`` past the tags' room reads them out of the
    surfaces: tag names like ``IDP3h_head``), as the MD2 and MDL readers do. ioquake3's ``R_LoadMD3``
    (``code/renderergl1/tr_model.c``) checks only the version, ``numFrames`` and each surface's vertex and
    triangle counts: it reads each block at its offset, whatever lies there. The file is refused here
    rather than read as data it does not hold; the field named places the block that runs into the other."""
    spans = sorted((ofs, ofs + size, name, where, at) for name, ofs, size, where, at in blocks if size > 0)
    reach = None                                   # the span reaching furthest so far
    for span in spans:
        if reach is not None and span[0] < reach[1]:
            start, end, name, where, at = reach
            raise FormatError(f"the {name} block ({end - start} bytes at offset {start}) runs into the {span[2]} "
                              f"block at offset {span[0]}: a count or an offset is wrong, so one block would be read "
                              "out of the other's bytes; the file is not imported", field=where, offset=at)
        if reach is None or span[1] > reach[1]:
            reach = span


def _block_sizes(model: Md3Model) -> list[int]:
    sizes = [len(model.surfaces), model.num_frames * FRAME.itemsize, model.num_frames * model.num_tags * TAG.itemsize]
    for s in model.surfaces:
        sizes += [len(s.shaders) * SHADER.itemsize, len(s.triangles) * TRIANGLE.itemsize, s.num_verts * ST.itemsize,
                  s.num_frames * s.num_verts * XYZ_NORMAL.itemsize]
    return sizes


# --- writing ---------------------------------------------------------------------------------------

def kept_field(name: str, raw: bytes | None, size: int, what: str) -> bytes:
    """The field for ``name``: the one it was read from while that still holds ``name``, else new."""
    if raw is not None and len(raw) == size and decode_name(raw) == name:
        return bytes(raw)
    return encode_name(name, size, what)


def _kept_column(names: list[str], raw: np.ndarray | None, rows: int, size: int, what: str) -> np.ndarray:
    """(rows, len(names)) fields: a name's column as read while its first row still holds the name."""
    out = np.zeros((rows, len(names)), f"V{size}")
    for i, name in enumerate(names):
        if raw is not None and raw.shape == (rows, len(names)) and decode_name(raw[0, i].tobytes()) == name:
            out[:, i] = raw[:, i]
        else:
            out[:, i] = np.void(encode_name(name, size, what))
    return out


def _check_shapes(model: Md3Model) -> None:
    f, t = model.num_frames, model.num_tags
    if f < 1:
        raise FormatError("no frames: the engine refuses a model without frames (R_LoadMD3)", field="num_frames")
    expected = {"frame_bounds": (f, 2, 3), "frame_origin": (f, 3), "frame_radius": (f,),
                "tag_origin": (f, t, 3), "tag_axis": (f, t, 3, 3)}
    for name, shape in expected.items():
        if np.shape(getattr(model, name)) != shape:
            raise FormatError(f"{name} has shape {np.shape(getattr(model, name))}, expected {shape}", field=name)
    for i, s in enumerate(model.surfaces):
        v = s.num_verts
        for name, shape in {"xyz": (f, v, 3), "normal": (f, v), "st": (v, 2)}.items():
            if np.shape(getattr(s, name)) != shape:
                raise FormatError(f"{name} has shape {np.shape(getattr(s, name))}, expected {shape}",
                                  field=f"surface {i} {name}")
        tris = np.asarray(s.triangles)
        if tris.size and (tris.min() < 0 or tris.max() >= v):
            raise FormatError(f"a triangle index is outside 0 .. {v - 1}", field=f"surface {i} triangles")


def _surface_blocks(surface: Md3Surface, index: int) -> list[bytes]:
    """[header (offsets unset), shaders, triangles, st, xyz_normals] of one surface."""
    shaders = np.zeros(len(surface.shaders), SHADER)
    for i, shader in enumerate(surface.shaders):
        shaders[i] = (np.void(kept_field(shader.name, shader.name_raw, NAME_SIZE, f"surface {index} shader name")),
                      shader.shader_index)
    tris = np.zeros(len(surface.triangles), TRIANGLE)
    tris["indexes"] = np.asarray(surface.triangles).reshape(-1, 3)
    st = np.zeros(surface.num_verts, ST)
    st["st"] = surface.st
    xyz = np.zeros((surface.num_frames, surface.num_verts), XYZ_NORMAL)
    xyz["xyz"], xyz["normal"] = surface.xyz, surface.normal
    return [shaders.tobytes(), tris.tobytes(), st.tobytes(), xyz.tobytes()]


def write_md3(model: Md3Model) -> bytes:
    """Encode ``model``: at the offsets it was read from while every block keeps its size (the bytes
    between blocks written back too), else header, frames, tags, then each surface as header, shaders,
    triangles, st, xyzNormals; ``model.trailing`` after ``ofs_end``."""
    _check_shapes(model)
    frames = np.zeros(model.num_frames, FRAME)
    frames["bounds"], frames["local_origin"], frames["radius"] = model.frame_bounds, model.frame_origin, model.frame_radius
    frames["name"] = _frame_names(model)
    tags = np.zeros((model.num_frames, model.num_tags), TAG)
    tags["name"] = _kept_column(model.tag_names, model.tag_name_raw, model.num_frames, NAME_SIZE, "tag name")
    tags["origin"], tags["axis"] = model.tag_origin, model.tag_axis
    surface_blocks = [_surface_blocks(s, i) for i, s in enumerate(model.surfaces)]
    layout = model.layout
    if layout is None or layout.sizes != _block_sizes(model):
        layout = _packed_layout(model, surface_blocks)
    out = bytearray(layout.offsets["ofs_end"])
    for offset, filler in layout.filler:
        out[offset:offset + len(filler)] = filler
    header = np.zeros((), HEADER)
    header["ident"], header["version"] = IDENT, VERSION
    header["name"] = np.void(kept_field(model.name, model.name_raw, NAME_SIZE, "model name"))
    header["flags"], header["num_skins"] = model.flags, model.num_skins
    header["num_frames"], header["num_tags"], header["num_surfaces"] = model.num_frames, model.num_tags, len(model.surfaces)
    for name, value in layout.offsets.items():
        header[name] = value
    _put(out, 0, header.tobytes())
    _put(out, layout.offsets["ofs_frames"], frames.tobytes())
    _put(out, layout.offsets["ofs_tags"], tags.tobytes())
    for index, (surface, blocks, where) in enumerate(zip(model.surfaces, surface_blocks, layout.surfaces)):
        head = np.zeros((), SURFACE)
        head["ident"] = np.void(bytes(surface.ident)[:4].ljust(4, b"\0"))
        head["name"] = np.void(kept_field(surface.name, surface.name_raw, NAME_SIZE, f"surface {index} name"))
        head["flags"], head["num_frames"] = surface.flags, model.num_frames
        head["num_shaders"], head["num_verts"], head["num_triangles"] = (len(surface.shaders), surface.num_verts,
                                                                         len(surface.triangles))
        for name in ("ofs_triangles", "ofs_shaders", "ofs_st", "ofs_xyznormals", "ofs_end"):
            head[name] = where[name]
        start = where["start"]
        _put(out, start, head.tobytes())
        for block, name in zip(blocks, ("ofs_shaders", "ofs_triangles", "ofs_st", "ofs_xyznormals")):
            _put(out, start + where[name], block)
    return bytes(out) + bytes(model.trailing)


def _frame_names(model: Md3Model) -> np.ndarray:
    raw = model.frame_name_raw
    if raw is None or len(raw) != model.num_frames:
        raw = [None] * model.num_frames
    return np.array([np.void(kept_field(name, None if field is None else bytes(field), FRAME_NAME_SIZE, "frame name"))
                     for name, field in zip(model.frame_names, raw)], f"V{FRAME_NAME_SIZE}").reshape(-1)


def _put(out: bytearray, offset: int, block: bytes) -> None:
    out[offset:offset + len(block)] = block


def _packed_layout(model: Md3Model, surface_blocks: list[list[bytes]]) -> Md3Layout:
    """Blocks one after the other in the order of qfiles.h, no gaps."""
    ofs_frames = HEADER.itemsize
    ofs_tags = ofs_frames + model.num_frames * FRAME.itemsize
    ofs_surfaces = ofs_tags + model.num_frames * model.num_tags * TAG.itemsize
    start, surfaces = ofs_surfaces, []
    for shaders, tris, st, xyz in surface_blocks:
        where = {"start": start, "ofs_shaders": SURFACE.itemsize}
        where["ofs_triangles"] = where["ofs_shaders"] + len(shaders)
        where["ofs_st"] = where["ofs_triangles"] + len(tris)
        where["ofs_xyznormals"] = where["ofs_st"] + len(st)
        where["ofs_end"] = where["ofs_xyznormals"] + len(xyz)
        surfaces.append(where)
        start += where["ofs_end"]
    offsets = {"ofs_frames": ofs_frames, "ofs_tags": ofs_tags, "ofs_surfaces": ofs_surfaces, "ofs_end": start}
    return Md3Layout(offsets=offsets, surfaces=surfaces, sizes=_block_sizes(model))
