"""MS3D codec without Blender: corpus against the independent decoder, round trips, optional blocks,
bad files."""
from __future__ import annotations

import dataclasses
import itertools
import struct

import numpy as np
import pytest
from support.environment import corpus_params
from support.ms3d_models import synthetic_ms3d as _synthetic
from support.ms3d_reference import decode
from support.work_count import Work, measure

from formats import FormatError
from formats.ms3d.codec import parse_ms3d
from formats.ms3d.text import decode_text, encode_text
from formats.ms3d.write import serialize_ms3d

CORPUS = corpus_params("ms3d/*/*.ms3d")
BLOCK_NAMES = ["comments", "vertex extras", "joint extras", "model extras"]
ALL_FOUR = [("comments", 1), ("vertex extras", 3), ("joint extras", 1), ("model extras", 1)]

# The optional blocks each corpus file carries (all corpus files are version 4).
CORPUS_BLOCKS = {
    "assimp/Wuson.ms3d": ALL_FOUR,
    "assimp/jeep1.ms3d": [],
    "assimp/twospheres.ms3d": ALL_FOUR,
    "assimp/twospheres_withmats.ms3d": ALL_FOUR,
    "glscene/Box.ms3d": [],
    "glscene/Chair.ms3d": ALL_FOUR,
    "glscene/Woman4.ms3d": ALL_FOUR,
    "sge/arrow.ms3d": [],
    "sge/zombie.ms3d": [("comments", 1)],
    "simple3dworld/Model.ms3d": [("comments", 1), ("vertex extras", 1)],
}


def _key(path) -> str:
    return f"{path.parent.name}/{path.name}"


# ---------------------------------------------------------------------------------------------
# corpus

@pytest.mark.parametrize("path", CORPUS)
def test_corpus_matches_independent_decode(path):
    data = path.read_bytes()
    model, ref = parse_ms3d(data), decode(data)
    assert model.version == ref.version
    assert model.vert_flags.tolist() == [v[0] for v in ref.vertices]
    assert model.vert_xyz.tolist() == [list(v[1]) for v in ref.vertices]
    assert model.vert_bone.tolist() == [v[2] for v in ref.vertices]
    assert model.vert_refcount.tolist() == [v[3] for v in ref.vertices]
    assert model.tri_flags.tolist() == [t[0] for t in ref.triangles]
    assert model.tri_vertices.tolist() == [list(t[1]) for t in ref.triangles]
    assert model.tri_normals.tolist() == [[list(n) for n in t[2]] for t in ref.triangles]
    assert model.tri_s.tolist() == [list(t[3]) for t in ref.triangles]
    assert model.tri_t.tolist() == [list(t[4]) for t in ref.triangles]
    assert model.tri_smoothing.tolist() == [t[5] for t in ref.triangles]
    assert model.tri_group.tolist() == [t[6] for t in ref.triangles]
    assert [(g.flags, g.name_raw, g.triangles.tolist(), g.material) for g in model.groups] == ref.groups
    assert len(model.materials) == len(ref.materials)
    for mine, theirs in zip(model.materials, ref.materials):
        assert (mine.name_raw, mine.texture_raw, mine.alphamap_raw, mine.mode) == \
            (theirs["name"], theirs["texture"], theirs["alphamap"], theirs["mode"])
        for name in ("ambient", "diffuse", "specular", "emissive"):
            assert getattr(mine, name).tolist() == list(theirs[name])
        assert (mine.shininess, mine.transparency) == (theirs["shininess"], theirs["transparency"])
    assert (model.animation_fps, model.current_time, model.total_frames) == \
        (ref.fps, ref.current_time, ref.total_frames)
    assert len(model.joints) == len(ref.joints)
    for mine, theirs in zip(model.joints, ref.joints):
        assert (mine.flags, mine.name_raw, mine.parent_raw) == \
            (theirs["flags"], theirs["name"], theirs["parent"])
        assert mine.rotation.tolist() == list(theirs["rotation"])
        assert mine.position.tolist() == list(theirs["position"])
        assert mine.rot_keys.tolist() == [list(k) for k in theirs["rot_keys"]]
        assert mine.pos_keys.tolist() == [list(k) for k in theirs["pos_keys"]]
    assert model.optional_blocks() == ref.blocks
    if model.comments is not None:
        for kind in ("group", "material", "joint"):
            assert [(c.index, c.text_raw) for c in getattr(model.comments, kind)] == \
                getattr(ref, f"{kind}_comments")
        assert model.comments.model_raw == ref.model_comment
    if model.vertex_extras is not None:
        extras = model.vertex_extras
        rows = zip(extras.bone_ids.tolist(), extras.weights.tolist(), extras.extra.tolist())
        assert [(tuple(b), tuple(w), tuple(e)) for b, w, e in rows] == ref.vertex_extras
    if model.joint_extras is not None:
        assert model.joint_extras.colors.tolist() == [list(c) for c in ref.joint_colors]
    if model.model_extras is not None:
        m = model.model_extras
        assert (m.joint_size, m.transparency_mode, m.alpha_ref) == ref.model_extras
    assert model.trailing == ref.rest == b""


@pytest.mark.parametrize("path", CORPUS)
def test_corpus_serialize_is_byte_exact(path):
    data = path.read_bytes()
    assert serialize_ms3d(parse_ms3d(data)) == data


@pytest.mark.parametrize("path", CORPUS)
def test_corpus_blocks_and_no_warnings(path):
    model = parse_ms3d(path.read_bytes())
    assert model.version == 4
    assert model.optional_blocks() == CORPUS_BLOCKS[_key(path)]
    assert model.warnings == []


@pytest.mark.parametrize("path", CORPUS)
def test_corpus_names_keep_bytes_after_the_nul(path):
    """Several exporters leave old text after the NUL in fixed fields; the raw bytes keep it."""
    model = parse_ms3d(path.read_bytes())
    for material in model.materials:
        assert len(material.name_raw) == 32 and len(material.texture_raw) == 128
        assert material.texture == decode_text(material.texture_raw.split(b"\0")[0])
    for group in model.groups:
        assert len(group.name_raw) == 32 and "\0" not in group.name


# ---------------------------------------------------------------------------------------------
# synthetic models


def _assert_same(a, b, where="model"):
    """Recursive equality over dataclasses, lists and arrays (values and shapes)."""
    if dataclasses.is_dataclass(a):
        assert type(a) is type(b), where
        for f in dataclasses.fields(a):
            if f.compare:
                _assert_same(getattr(a, f.name), getattr(b, f.name), f"{where}.{f.name}")
    elif isinstance(a, list):
        assert len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b)):
            _assert_same(x, y, f"{where}[{i}]")
    elif isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        assert np.shape(a) == np.shape(b) and np.array_equal(a, b), where
    else:
        assert a == b, where


VARIANTS = [(blocks, sub, comment) for blocks in range(5) for sub in (1, 2, 3) for comment in (True, False)
            if (blocks >= 2 or sub == 3) and (blocks >= 1 or comment)]


@pytest.mark.parametrize("blocks,vertex_subversion,model_comment", VARIANTS)
def test_synthetic_round_trip(blocks, vertex_subversion, model_comment):
    model = _synthetic(blocks, vertex_subversion, model_comment)
    data = serialize_ms3d(model)
    again = parse_ms3d(data)
    _assert_same(model, again)
    expected = [("comments", 1), ("vertex extras", vertex_subversion), ("joint extras", 1), ("model extras", 1)]
    assert again.optional_blocks() == expected[:blocks]
    assert again.warnings == []
    assert serialize_ms3d(again) == data
    ref = decode(data)
    assert ref.blocks == again.optional_blocks() and ref.rest == b""


@pytest.mark.parametrize("present", list(itertools.product((False, True), repeat=4)))
def test_only_prefixes_of_the_optional_blocks_can_be_written(present):
    model = _synthetic(4)
    for attribute, keep in zip(("comments", "vertex_extras", "joint_extras", "model_extras"), present):
        if not keep:
            setattr(model, attribute, None)
    is_prefix = list(present) == sorted(present, reverse=True)
    if is_prefix:
        assert len(parse_ms3d(serialize_ms3d(model)).optional_blocks()) == sum(present)
    else:
        with pytest.raises(FormatError, match="positional"):
            serialize_ms3d(model)


def test_text_helpers():
    assert decode_text(b"abc\0old junk") == "abc"
    assert decode_text("café".encode()) == "café"
    assert decode_text(b"\x93quoted\x94") == "\u201cquoted\u201d"         # cp1252, not valid UTF-8
    assert decode_text(b"\x81\x8d") == "\x81\x8d"                        # undefined in cp1252: Latin-1
    for text in ("Bödy", "tête", "日本", "plain"):
        assert decode_text(encode_text(text, 32)) == text
    assert encode_text("Bödy") == b"B\xf6dy"
    with pytest.raises(FormatError):
        encode_text("x" * 32, 32)


def test_decoded_names():
    model = parse_ms3d(serialize_ms3d(_synthetic()))
    assert [g.name for g in model.groups] == ["Bödy", "Head"]
    assert model.groups[1].name_raw.startswith(b"Head\0old name")
    assert [j.name for j in model.joints] == ["root", "tête"] and model.joints[1].parent == "root"
    assert model.materials[0].texture == ".\\skin.tga"
    assert model.comments.material[0].text == "café" and model.comments.joint[1].text == "日本"
    assert model.comments.model == "2,20,walk\r\n"


def test_version_3_is_accepted():
    data = bytearray(serialize_ms3d(_synthetic(0)))
    struct.pack_into("<i", data, 10, 3)
    assert parse_ms3d(bytes(data)).version == 3
    assert serialize_ms3d(parse_ms3d(bytes(data))) == bytes(data)


# ---------------------------------------------------------------------------------------------
# truncation and unknown data

def test_truncation_at_every_byte():
    """A cut at a block boundary parses with the blocks before it; a cut inside an optional block
    parses with the blocks before it, keeps the cut block's bytes as ``trailing`` with a warning naming
    the block and its offset, and writes the file again byte for byte; a cut inside the required
    blocks raises."""
    full = _synthetic(4)
    data = serialize_ms3d(full)
    boundaries = {len(serialize_ms3d(_synthetic(k))): k for k in range(5)}
    assert boundaries[len(data)] == 4
    starts = sorted(boundaries)
    for size in range(len(data)):
        if size in boundaries:
            model = parse_ms3d(data[:size])
            assert model.optional_blocks() == ALL_FOUR[:boundaries[size]], size
            assert model.warnings == [] and model.trailing == b""
            assert serialize_ms3d(model) == data[:size]
        elif size > starts[0]:
            start = max(b for b in starts if b < size)
            model = parse_ms3d(data[:size])
            complete = boundaries[start]
            assert model.optional_blocks() == ALL_FOUR[:complete], size
            assert model.trailing == data[start:size]
            assert len(model.warnings) == 1
            assert model.warnings[0].startswith(f"the {BLOCK_NAMES[complete]} block at offset {start} is cut short")
            assert serialize_ms3d(model) == data[:size]
        else:
            with pytest.raises(FormatError):
                parse_ms3d(data[:size])


def test_released_cut_vertex_extras_keep_what_milkshape_needs():
    """As four models of a released game: the vertex-extras block ends after its subversion and 3 bytes."""
    base = serialize_ms3d(_synthetic(1))
    data = base + struct.pack("<i", 2) + b"\x01\x02\x03"
    model = parse_ms3d(data)
    assert model.optional_blocks() == [("comments", 1)]
    assert model.warnings == [f"the vertex extras block at offset {len(base)} is cut short (vertex extras: needs "
                              f"{4 * 10} bytes at offset {len(base) + 4}, file has {len(data)}): its 7 bytes are "
                              "kept unread and written back as they are"]
    assert serialize_ms3d(model) == data


@pytest.mark.parametrize("blocks", range(4))
def test_unknown_subversion_stops_reading_and_keeps_the_rest(blocks):
    data = serialize_ms3d(_synthetic(blocks)) + struct.pack("<i", 9) + b"from a newer MilkShape"
    model = parse_ms3d(data)
    assert model.optional_blocks() == ALL_FOUR[:blocks]
    assert model.trailing == data[len(data) - 26:]
    assert len(model.warnings) == 1 and f"{BLOCK_NAMES[blocks]} subversion 9" in model.warnings[0]
    assert serialize_ms3d(model) == data


def test_bytes_after_the_last_block_are_kept():
    data = serialize_ms3d(_synthetic(4)) + b"\0\0\0\0extra"
    model = parse_ms3d(data)
    assert model.optional_blocks() == ALL_FOUR and model.trailing == b"\0\0\0\0extra"
    assert "9 bytes after the last optional block" in model.warnings[0]
    assert serialize_ms3d(model) == data


# ---------------------------------------------------------------------------------------------
# corrupted counts, headers, indices and floats

def _patched(fmt: str, field: str, value, blocks: int = 4) -> bytes:
    data = bytearray(serialize_ms3d(_synthetic(blocks)))
    struct.pack_into(fmt, data, decode(bytes(data)).offsets[field], value)
    return bytes(data)


INFLATED = [("<H", name, 0xFFFF) for name in ("nverts", "ntris", "ngroups", "nmaterials", "njoints")] + [
    ("<H", "group0", 0xFFFF), ("<H", "joint0", 0xFFFF), ("<H", "joint1", 0xFFFF),
    ("<i", "group comment count", -1), ("<i", "group comment 0 length", -1), ("<i", "model comment length", -5),
]
# Counts in an optional block that claim more than the file holds read as a block cut short there.
INFLATED_OPTIONAL = [("<i", "group comment count", 2**31 - 1), ("<i", "joint comment count", 2**31 - 1),
                     ("<i", "group comment 0 length", 2**31 - 1), ("<i", "model comment length", 2**31 - 1)]
FIELD_SHIFT = {"group0": 33, "joint0": 89, "joint1": 91}       # group n; joint0 nrot; joint1 npos


def assert_no_more_work_than_the_intact_file(work: Work, size: int) -> None:
    """A count claiming two billion records costs no more calls than parsing the intact file and holds no
    more memory than a few copies of it: nothing loops or allocates by the count (counted, not timed)."""
    intact = measure(parse_ms3d, serialize_ms3d(_synthetic()))
    assert work.calls <= intact.calls + 50, (work.calls, intact.calls)
    assert work.peak <= 4 * size + (1 << 16), work.peak


@pytest.mark.parametrize("fmt,field,value", INFLATED)
def test_inflated_counts_raise_at_once(fmt, field, value):
    data = bytearray(serialize_ms3d(_synthetic()))
    struct.pack_into(fmt, data, decode(bytes(data)).offsets[field] + FIELD_SHIFT.get(field, 0), value)
    work = measure(parse_ms3d, bytes(data), catch=(FormatError,))
    assert isinstance(work.error, FormatError)
    assert_no_more_work_than_the_intact_file(work, len(data))


@pytest.mark.parametrize("fmt,field,value", INFLATED_OPTIONAL)
def test_inflated_counts_in_the_comments_block_stop_at_once_and_keep_the_bytes(fmt, field, value):
    data = bytearray(serialize_ms3d(_synthetic()))
    struct.pack_into(fmt, data, decode(bytes(data)).offsets[field], value)
    work = measure(parse_ms3d, bytes(data))
    assert_no_more_work_than_the_intact_file(work, len(data))
    model = work.result
    comments_at = len(serialize_ms3d(_synthetic(0)))
    assert model.optional_blocks() == [] and model.trailing == bytes(data[comments_at:])
    assert model.warnings[0].startswith(f"the comments block at offset {comments_at} is cut short")
    assert serialize_ms3d(model) == bytes(data)


@pytest.mark.parametrize("ident,version,needle", [
    (b"MS3D000001", 4, "id"), (b"IDP2\0\0\0\0\0\0", 4, "id"), (b"MS3D000000", 2, "version"),
    (b"MS3D000000", 5, "version"), (b"MS3D000000", -1, "version")])
def test_bad_id_or_version(ident, version, needle):
    data = bytearray(serialize_ms3d(_synthetic()))
    struct.pack_into("<10si", data, 0, ident, version)
    with pytest.raises(FormatError) as info:
        parse_ms3d(bytes(data))
    assert info.value.field == needle and needle in str(info.value)


def test_empty_and_tiny_files_raise():
    for data in (b"", b"MS3D", b"MS3D000000\4\0\0\0", b"MS3D000000\4\0\0\0\1"):
        with pytest.raises(FormatError):
            parse_ms3d(data)


def test_triangle_vertex_out_of_range():
    data = bytearray(serialize_ms3d(_synthetic()))
    at = decode(bytes(data)).offsets["triangles"] + 70 + 2 + 2 * 2        # triangle 1, corner 2
    struct.pack_into("<H", data, at, 4)
    with pytest.raises(FormatError) as info:
        parse_ms3d(bytes(data))
    assert info.value.offset == at and "triangle 1 index 4" in str(info.value)


def test_group_triangle_out_of_range():
    data = bytearray(serialize_ms3d(_synthetic()))
    at = decode(bytes(data)).offsets["group1.tris"]
    struct.pack_into("<H", data, at, 2)
    with pytest.raises(FormatError) as info:
        parse_ms3d(bytes(data))
    assert info.value.offset == at and "group 1" in info.value.field


@pytest.mark.parametrize("material", [1, 5, -2, -128])
def test_group_material_out_of_range(material):
    data = _patched("<b", "group0.material", material)
    with pytest.raises(FormatError) as info:
        parse_ms3d(data)
    assert info.value.offset == decode(serialize_ms3d(_synthetic())).offsets["group0.material"]


def test_triangle_group_byte_out_of_range_is_a_warning():
    data = bytearray(serialize_ms3d(_synthetic()))
    struct.pack_into("<B", data, decode(bytes(data)).offsets["triangles"] + 69, 200)
    model = parse_ms3d(bytes(data))
    assert len(model.warnings) == 2            # outside the groups, and contradicting group 0's list
    assert "1 triangles name a group >= 2" in model.warnings[0]
    assert serialize_ms3d(model) == bytes(data)


def test_bone_out_of_range_is_a_warning():
    data = bytearray(serialize_ms3d(_synthetic()))
    struct.pack_into("<b", data, decode(bytes(data)).offsets["vertices"] + 13, 7)
    model = parse_ms3d(bytes(data))
    assert model.warnings == ["vertex bone ids outside -1..1: such vertices are unbound"]
    assert serialize_ms3d(model) == bytes(data)


@pytest.mark.parametrize("base,shift,needle", [
    ("vertices", 15 + 1 + 4, "vertex xyz 1"),              # vertex 1 y
    ("triangles", 70 + 8 + 4 * 5, "triangle normals 1"),   # triangle 1, corner 1 normal z
    ("triangles", 44 + 8, "triangle s 0"),
    ("triangles", 70 + 56, "triangle t 1"),
    ("joint0", 65 + 4, "joint 0 rotation 0"),
    ("joint1", 77 + 8, "joint 1 position 0"),
    ("joint0", 93 + 16, "joint 0 rotation key time 1"),
    ("joint1", 93 + 32 + 12, "joint 1 position key 2"),
])
@pytest.mark.parametrize("bad", [float("nan"), float("inf")])
def test_non_finite_floats_name_field_and_offset(base, shift, needle, bad):
    data = bytearray(serialize_ms3d(_synthetic()))
    at = decode(bytes(data)).offsets[base] + shift
    struct.pack_into("<f", data, at, bad)
    with pytest.raises(FormatError, match="non-finite") as info:
        parse_ms3d(bytes(data))
    assert info.value.offset == at and info.value.field == needle


# ---------------------------------------------------------------------------------------------
# the writer refuses what the reader would refuse

@pytest.mark.parametrize("spoil", [
    lambda m: setattr(m.groups[0], "name_raw", b"x" * 33),
    lambda m: setattr(m.materials[0], "texture_raw", b"x" * 129),
    lambda m: m.tri_vertices.__setitem__((0, 0), 4),
    lambda m: setattr(m.groups[1], "triangles", np.array([2], np.uint16)),
    lambda m: setattr(m.groups[1], "material", 3),
    lambda m: setattr(m.groups[0], "triangles", np.zeros(70000, np.uint32)),
    lambda m: setattr(m, "vert_bone", np.array([0, 0, 200, 0])),
    lambda m: setattr(m, "vert_refcount", np.zeros(3, np.uint8)),
    lambda m: m.vert_xyz.__setitem__((2, 1), np.nan),
    lambda m: setattr(m.joint_extras, "colors", np.zeros((3, 3), np.float32)),
    lambda m: setattr(m.vertex_extras, "subversion", 4),
    lambda m: setattr(m.comments, "model_flag", 0),
])
def test_serialize_rejects_models_that_would_not_read_back(spoil):
    model = _synthetic()
    spoil(model)
    with pytest.raises(FormatError):
        serialize_ms3d(model)
