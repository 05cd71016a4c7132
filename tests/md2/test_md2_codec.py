"""MD2 codec without Blender: corpus against the independent decoder, round trips, bad files."""
from __future__ import annotations

import struct

import numpy as np
import pytest
from support.environment import corpus_params
from support.md2_reference import decode
from support.md2_synthetic import grid_model

from formats import FormatError
from formats.file_tail import kept_tail
from formats.md2.codec import HEADER, parse_md2, serialize_md2

GOOD = "md2/[!b]*/*.md2"          # the borregogfuel copy is deliberately corrupted


def _valid(path) -> bool:
    return path is not None and "malformed" not in path.name


@pytest.mark.parametrize("path", [p for p in corpus_params(GOOD) if p.values[0] is None or _valid(p.values[0])])
def test_corpus_matches_independent_decode(path):
    data = path.read_bytes()
    model = parse_md2(data)
    ref = decode(data)
    assert (model.skin_width, model.skin_height) == (ref.skin_width, ref.skin_height)
    assert model.skins == ref.skins
    assert model.frame_names == ref.frame_names
    assert model.st.tolist() == [list(p) for p in ref.st]
    assert model.tri_xyz.tolist() == [list(t[0]) for t in ref.tris]
    assert model.tri_st.tolist() == [list(t[1]) for t in ref.tris]
    packed = np.array(ref.packed, dtype=np.uint8)
    assert np.array_equal(model.frame_verts, packed[..., :3])
    assert np.array_equal(model.frame_normals, packed[..., 3])
    np.testing.assert_array_equal(model.positions(), np.array(ref.positions, dtype=np.float32))
    assert model.glcmds.tolist() == ref.glcmds


@pytest.mark.parametrize("path", [p for p in corpus_params(GOOD) if p.values[0] is None or _valid(p.values[0])])
def test_corpus_serialize_round_trip(path):
    model = parse_md2(path.read_bytes())
    again = parse_md2(serialize_md2(model))
    for name in ("st", "tri_xyz", "tri_st", "frame_scale", "frame_translate", "frame_verts", "frame_normals",
                 "glcmds"):
        assert np.array_equal(getattr(model, name), getattr(again, name)), name
    assert (again.skins, again.frame_names) == (model.skins, model.frame_names)


@pytest.mark.parametrize("path", [p for p in corpus_params(GOOD) if p.values[0] is None or _valid(p.values[0])])
def test_corpus_serializes_byte_for_byte(path):
    data = path.read_bytes()
    assert serialize_md2(parse_md2(data)) == data[:struct.unpack_from("<i", data, 64)[0]]


def test_junk_after_name_nuls_is_kept_until_the_name_changes():
    model = grid_model()
    data = bytearray(serialize_md2(model))
    ofs_frames = struct.unpack_from("<i", data, HEADER.fields["ofs_frames"][1])[0]
    data[ofs_frames + 24 + 14] = ord("Z")                  # junk after "stand01\0" in frame 0's name
    parsed = parse_md2(bytes(data))
    assert parsed.frame_names[0] == "stand01"
    assert serialize_md2(parsed) == bytes(data)
    parsed.frame_names[0] = "renamed"
    clean = serialize_md2(parsed)
    assert clean[ofs_frames + 24: ofs_frames + 40] == b"renamed".ljust(16, b"\0")


def test_synthetic_serialize_is_stable():
    data = serialize_md2(grid_model())
    assert serialize_md2(parse_md2(data)) == data
    assert struct.unpack_from("<i", data, 64)[0] == len(data)


def test_every_truncation_raises_format_error():
    data = serialize_md2(grid_model(nx=3, ny=2, frames=2))
    for size in range(len(data)):
        with pytest.raises(FormatError):
            parse_md2(data[:size])


def test_trailing_bytes_are_ignored_by_the_model_and_written_back():
    data = serialize_md2(grid_model())
    model = parse_md2(data + b"QMEX trailing editor junk")
    assert np.array_equal(model.frame_verts, parse_md2(data).frame_verts)
    assert model.trailing == b"QMEX trailing editor junk"
    assert serialize_md2(model) == data + b"QMEX trailing editor junk"
    assert kept_tail(model.tail_record, data) == model.trailing
    assert kept_tail(model.tail_record, data[:-1] + b"\x7f") == b""


def _patch(data: bytes, field: str, value) -> bytes:
    offset = HEADER.fields[field][1]
    fmt = "<4s" if field == "ident" else "<i"
    return data[:offset] + struct.pack(fmt, value) + data[offset + struct.calcsize(fmt):]


COUNTS = ["num_skins", "num_xyz", "num_st", "num_tris", "num_glcmds", "num_frames"]
OFFSETS = ["ofs_skins", "ofs_st", "ofs_tris", "ofs_frames", "ofs_glcmds", "ofs_end"]


@pytest.mark.parametrize("field", COUNTS)
@pytest.mark.parametrize("value", [2**31 - 1, 1 << 20, -1])
def test_inflated_or_negative_counts_raise(field, value):
    data = serialize_md2(grid_model())
    with pytest.raises(FormatError):
        parse_md2(_patch(data, field, value))


@pytest.mark.parametrize("field", OFFSETS)
@pytest.mark.parametrize("value", [-4, 2**31 - 1])
def test_offsets_outside_the_file_raise(field, value):
    with pytest.raises(FormatError) as info:
        parse_md2(_patch(serialize_md2(grid_model()), field, value))
    assert info.value.field is not None


@pytest.mark.parametrize("field,value,needle", [
    ("ident", b"IDPO", "magic"), ("version", 6, "version"), ("skinwidth", 0, "skin size"),
    ("framesize", 8, "framesize"), ("num_xyz", 0, "num_xyz"), ("num_frames", 0, "num_frames")])
def test_bad_header_fields_name_the_problem(field, value, needle):
    with pytest.raises(FormatError) as info:
        parse_md2(_patch(serialize_md2(grid_model()), field, value))
    assert needle in str(info.value)


def test_index_out_of_range_raises_with_offset():
    model = grid_model()
    data = bytearray(serialize_md2(model))
    ofs_tris = struct.unpack_from("<i", data, HEADER.fields["ofs_tris"][1])[0]
    struct.pack_into("<H", data, ofs_tris + 12 * 3 + 2, model.num_vertices)
    with pytest.raises(FormatError) as info:
        parse_md2(bytes(data))
    assert info.value.offset == ofs_tris + 12 * 3 and "index_xyz" in str(info.value)


@pytest.mark.parametrize("bad", [float("nan"), float("inf")])
def test_non_finite_scale_raises(bad):
    data = bytearray(serialize_md2(grid_model()))
    ofs_frames = struct.unpack_from("<i", data, HEADER.fields["ofs_frames"][1])[0]
    struct.pack_into("<f", data, ofs_frames + 4, bad)
    with pytest.raises(FormatError, match="non-finite"):
        parse_md2(bytes(data))


@pytest.mark.parametrize("path", [p for p in corpus_params("md2/*/*.md2")
                                  if p.values[0] is None or not _valid(p.values[0]) or "corrupt" in str(p.values[0])])
def test_known_bad_corpus_files_raise(path):
    with pytest.raises(FormatError):
        parse_md2(path.read_bytes())


def test_overlapping_blocks_raise():
    data = serialize_md2(grid_model())
    ofs_st = struct.unpack_from("<i", data, HEADER.fields["ofs_st"][1])[0]
    with pytest.raises(FormatError, match="overlaps") as info:
        parse_md2(_patch(data, "ofs_tris", ofs_st))
    assert info.value.field in ("ofs_tris", "ofs_st")


def test_unterminated_gl_commands_raise_with_their_offset():
    model = grid_model()
    model.glcmds = model.glcmds[:-1]                     # drop the 0 terminator
    data = serialize_md2(model)
    ofs_glcmds = struct.unpack_from("<i", data, HEADER.fields["ofs_glcmds"][1])[0]
    with pytest.raises(FormatError, match="terminator") as info:
        parse_md2(data)
    assert info.value.field == "glcmds" and info.value.offset >= ofs_glcmds


def test_a_file_without_gl_commands_still_parses():
    model = grid_model()
    model.glcmds = np.zeros(0, "<i4")
    assert parse_md2(serialize_md2(model)).glcmds.size == 0
