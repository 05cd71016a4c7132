"""MDL codec without Blender: corpus against the independent decoder, round trips, bad files."""
from __future__ import annotations

import dataclasses
import struct

import numpy as np
import pytest
from support.environment import CORPUS, corpus_params
from support.mdl_models import H, T, V, W, assert_models_equal, synthetic_model
from support.mdl_models import refused_quickly as _refused_quickly
from support.mdl_reference import decode

from formats import FormatError
from formats.file_tail import kept_tail
from formats.mdl.codec import parse_mdl, serialize_mdl

CORPUS_MDL = corpus_params("mdl/*/*.mdl")

# Header offsets from docs/dev/format-facts.md ("MDL"), spelled here rather than taken from formats.mdl.codec.
HEADER_INT = {"version": 4, "numskins": 48, "skinwidth": 52, "skinheight": 56, "numverts": 60,
              "numtris": 64, "numframes": 68, "synctype": 72, "flags": 76}
HEADER_FLOAT = {"scale": 8, "translate": 20, "boundingradius": 32, "eyeposition": 36, "size": 80}


# ---------------------------------------------------------------- synthetic models


PIX = W * H
SKIN1_COUNT = 84 + (4 + PIX) + 4
TEXCOORDS_AT = 84 + (4 + PIX) + (8 + 3 * 4 + 3 * PIX)
TRIS_AT = TEXCOORDS_AT + 12 * V
FRAMES_AT = TRIS_AT + 16 * T
POSE = 24 + 4 * V
FRAME1_COUNT = FRAMES_AT + 4 + POSE + 4
FRAME1_INTERVALS = FRAME1_COUNT + 12
END = FRAME1_INTERVALS + 3 * 4 + 3 * POSE + 4 + POSE


def test_synthetic_layout_is_what_the_notes_describe():
    data = serialize_mdl(synthetic_model())
    assert len(data) == END
    assert struct.unpack_from("<i", data, SKIN1_COUNT - 4)[0] == 1
    assert struct.unpack_from("<i", data, SKIN1_COUNT)[0] == 3
    assert struct.unpack_from("<ii", data, FRAME1_COUNT - 4) == (1, 3)
    ref = decode(data)
    assert ref.end == len(data)
    assert [len(s.images) for s in ref.skins] == [1, 3]
    assert [f.intervals is None for f in ref.frames] == [True, False, True]


def test_synthetic_round_trip_field_by_field():
    model = synthetic_model()
    data = serialize_mdl(model)
    again = parse_mdl(data)
    assert_models_equal(again, model)
    assert again.trailing_bytes == 0 and again.pose_name_raw is None
    assert serialize_mdl(again) == data


def test_synthetic_written_file_reads_the_same_in_the_reference_decoder():
    model = synthetic_model()
    ref = decode(serialize_mdl(model))
    assert ref.scale == tuple(model.scale.tolist()) and ref.size == model.size
    assert [s.intervals for s in ref.skins] == [None, pytest.approx([0.1, 0.2, 0.35])]
    assert [bytes(img) for s in ref.skins for img in s.images] == \
        [img.tobytes() for s in model.skins for img in s.images]
    assert ref.pose_names == model.pose_names
    assert ref.frames[1].bbox_min == (1, 2, 3, 0) and ref.frames[1].bbox_max == (250, 251, 252, 0)
    assert [list(t[1:]) for t in ref.tris] == model.triangles.tolist()
    assert [t[0] for t in ref.texcoords] == model.onseam.tolist()


def test_positions_decode_on_the_global_grid():
    model = synthetic_model()
    expected = model.pose_verts.astype(np.float32) * model.scale + model.translate
    np.testing.assert_array_equal(model.positions(), expected)
    assert model.positions().dtype == np.float32 and model.positions().shape == (5, V, 3)


# ---------------------------------------------------------------- corpus


def _ref_skin_images(ref) -> list[list[bytes]]:
    return [[bytes(img) for img in skin.images] for skin in ref.skins]


@pytest.mark.parametrize("path", CORPUS_MDL)
def test_corpus_matches_independent_decode(path):
    data = path.read_bytes()
    model = parse_mdl(data)
    ref = decode(data)
    assert model.scale.tolist() == list(ref.scale)
    assert model.translate.tolist() == list(ref.translate)
    assert model.bounding_radius == ref.radius
    assert model.eye_position.tolist() == list(ref.eye)
    assert (model.skin_width, model.skin_height) == (ref.skin_width, ref.skin_height)
    assert (model.synctype, model.flags, model.size) == (ref.synctype, ref.flags, ref.size)
    assert len(model.skins) == ref.num_skins
    for skin, ref_skin in zip(model.skins, ref.skins):
        assert (skin.intervals is None) == (ref_skin.intervals is None)
        if skin.intervals is not None:
            assert skin.intervals.tolist() == ref_skin.intervals
        assert [img.tobytes() for img in skin.images] == [bytes(i) for i in ref_skin.images]
    assert np.column_stack([model.onseam, model.s, model.t]).tolist() == [list(t) for t in ref.texcoords]
    assert model.facesfront.tolist() == [t[0] for t in ref.tris]
    assert model.triangles.tolist() == [list(t[1:]) for t in ref.tris]
    assert model.pose_names == ref.pose_names
    ref_poses = [p for f in ref.frames for p in f.poses]
    packed = np.array([p.verts for p in ref_poses], dtype=np.uint8)
    assert np.array_equal(model.pose_verts, packed[..., :3])
    assert np.array_equal(model.pose_normals, packed[..., 3])
    assert model.pose_bbox_min.tolist() == [list(p.bbox_min) for p in ref_poses]
    assert model.pose_bbox_max.tolist() == [list(p.bbox_max) for p in ref_poses]
    assert len(model.frames) == ref.num_frames
    first = 0
    for slot, ref_frame in zip(model.frames, ref.frames):
        assert (slot.first_pose, slot.num_poses) == (first, len(ref_frame.poses))
        assert (slot.intervals is None) == (ref_frame.intervals is None)
        if slot.intervals is not None:
            assert slot.intervals.tolist() == ref_frame.intervals
        assert slot.bbox_min.tolist() == list(ref_frame.bbox_min)
        assert slot.bbox_max.tolist() == list(ref_frame.bbox_max)
        first += slot.num_poses
    assert model.trailing_bytes == len(data) - ref.end
    scale, translate = np.float32(ref.scale), np.float32(ref.translate)
    np.testing.assert_array_equal(model.positions(), packed[..., :3].astype(np.float32) * scale + translate)


@pytest.mark.parametrize("path", CORPUS_MDL)
def test_corpus_serialize_is_byte_exact(path):
    data = path.read_bytes()
    model = parse_mdl(data)
    out = serialize_mdl(model)
    assert out == data                        # with any bytes after the last frame (a QME "QMEX" block)
    assert_models_equal(parse_mdl(out), model)
    assert serialize_mdl(dataclasses.replace(model, trailing=b"")) == data[:len(data) - model.trailing_bytes]


def _corpus(name: str):
    path = CORPUS / "mdl" / name
    if not path.is_file():
        pytest.skip(f"{path} not in the corpus")
    return parse_mdl(path.read_bytes())


def test_flame_is_one_group_of_six_poses_with_a_qmex_block():
    model = _corpus("librequake/flame.mdl")
    assert [(s.first_pose, s.num_poses) for s in model.frames] == [(0, 6)]
    assert model.frames[0].intervals == pytest.approx([0.1, 0.2, 0.3, 0.4, 0.5, 0.6])
    assert model.trailing_bytes > 0


def test_flame2_is_two_groups_of_seven_poses():
    model = _corpus("librequake/flame2.mdl")
    assert [(s.first_pose, s.num_poses, s.intervals is not None) for s in model.frames] == \
        [(0, 7, True), (7, 7, True)]
    assert model.num_poses == len(model.pose_names) == 14


def test_null_model_has_an_odd_skin_width_warning():
    model = _corpus("copper/null.mdl")
    assert model.skin_width == 2
    assert any("multiple of 4" in w for w in model.warnings())


# ---------------------------------------------------------------- trailing data, warnings, names


def test_qmex_trailing_block_is_counted_and_kept():
    data = serialize_mdl(synthetic_model())
    junk = b"QMEX" + struct.pack("<i", 4) + bytes(range(200))
    model = parse_mdl(data + junk)
    assert model.trailing_bytes == len(junk) and model.trailing == junk
    assert_models_equal(dataclasses.replace(model, trailing_bytes=0, trailing=b"", tail_record=None), parse_mdl(data))
    assert serialize_mdl(model) == data + junk
    assert kept_tail(model.tail_record, data) == junk and kept_tail(model.tail_record, data[:-1] + b"\1") == b""


def test_odd_skin_width_is_a_warning_not_an_error():
    model = parse_mdl(serialize_mdl(synthetic_model(skin_width=6)))
    assert model.skin_width == 6 and model.skins[1].images.shape == (3, H, 6)
    assert any("skin width 6" in w for w in model.warnings())
    assert synthetic_model().warnings() == []


def test_quake_limits_are_warnings():
    model = synthetic_model()
    model.facesfront, model.triangles = model.facesfront[:0], model.triangles[:0]
    model.skins[1].intervals[0] = 0.0
    model.pose_normals[0, 0] = 200
    again = parse_mdl(serialize_mdl(model))
    text = " | ".join(again.warnings())
    assert "no triangles" in text and "skin 1 has an interval <= 0" in text and "normal index 200" in text


def test_name_bytes_after_the_nul_round_trip_byte_for_byte():
    data = bytearray(serialize_mdl(synthetic_model()))
    name_at = FRAMES_AT + 4 + 8
    data[name_at:name_at + 16] = b"stand1\0garbage!\0"
    model = parse_mdl(bytes(data))
    assert model.pose_names[0] == "stand1"
    assert model.pose_name_raw is not None and model.pose_name_raw[0] == b"stand1\0garbage!\0"
    assert serialize_mdl(model) == bytes(data)
    model.pose_names[0] = "renamed"
    renamed = decode(serialize_mdl(model)).frames[0].poses[0].name_raw
    assert renamed == b"renamed".ljust(16, b"\0")


def test_sixteen_character_name_without_nul_round_trips():
    data = bytearray(serialize_mdl(synthetic_model()))
    name_at = FRAMES_AT + 4 + 8
    data[name_at:name_at + 16] = b"abcdefghijklmnop"
    model = parse_mdl(bytes(data))
    assert model.pose_names[0] == "abcdefghijklmnop"
    assert serialize_mdl(model) == bytes(data)


# ---------------------------------------------------------------- corrupt files


def test_every_truncation_raises_format_error():
    data = serialize_mdl(synthetic_model())
    for size in range(len(data)):
        with pytest.raises(FormatError):
            parse_mdl(data[:size])


def _patch_int(data: bytes, offset: int, value: int) -> bytes:
    return data[:offset] + struct.pack("<i", value) + data[offset + 4:]


COUNT_FIELDS = ["numskins", "skinwidth", "skinheight", "numverts", "numtris", "numframes"]


@pytest.mark.parametrize("field", COUNT_FIELDS)
@pytest.mark.parametrize("value", [2**31 - 1, 1 << 20, -1])
def test_inflated_or_negative_header_counts_raise(field, value):
    data = _patch_int(serialize_mdl(synthetic_model()), HEADER_INT[field], value)
    error = _refused_quickly(data)
    assert error.field is not None and error.offset is not None


@pytest.mark.parametrize("field", COUNT_FIELDS)
def test_inflated_counts_name_their_field(field):
    error = _refused_quickly(_patch_int(serialize_mdl(synthetic_model()), HEADER_INT[field], 2**31 - 1))
    assert field in error.field.split("/")


def test_huge_skin_fails_without_allocating():
    data = serialize_mdl(synthetic_model())
    data = _patch_int(_patch_int(data, HEADER_INT["skinwidth"], 65535), HEADER_INT["skinheight"], 65535)
    assert _refused_quickly(data).field == "skinwidth/skinheight"


@pytest.mark.parametrize("where,label", [(SKIN1_COUNT, "skin 1 count"), (FRAME1_COUNT, "frame 1 count")])
@pytest.mark.parametrize("value", [2**31 - 1, 1 << 20, 0, -1, -(2**31)])
def test_bad_group_counts_raise(where, label, value):
    error = _refused_quickly(_patch_int(serialize_mdl(synthetic_model()), where, value))
    assert error.field == label
    if value <= 0:
        assert error.offset == where


@pytest.mark.parametrize("field", ["numverts", "numframes", "skinwidth", "skinheight"])
def test_zero_where_something_is_needed_raises(field):
    error = _refused_quickly(_patch_int(serialize_mdl(synthetic_model()), HEADER_INT[field], 0))
    assert error.field == field and error.offset == HEADER_INT[field]


@pytest.mark.parametrize("ident,version,needle", [(b"IDP2", 6, "magic"), (b"IDPO", 8, "version"),
                                                  (b"\0\0\0\0", 6, "magic")])
def test_bad_ident_or_version(ident, version, needle):
    data = serialize_mdl(synthetic_model())
    data = ident + struct.pack("<i", version) + data[8:]
    with pytest.raises(FormatError, match=needle):
        parse_mdl(data)


@pytest.mark.parametrize("value", [V, V + 100, -1, 2**31 - 1])
def test_vertex_index_out_of_range_raises_with_offset(value):
    offset = TRIS_AT + 16 * 2 + 4 + 4 * 1
    with pytest.raises(FormatError) as info:
        parse_mdl(_patch_int(serialize_mdl(synthetic_model()), offset, value))
    assert info.value.offset == offset and info.value.field == "vertindex"


@pytest.mark.parametrize("field,offset", [("scale", 8 + 4), ("translate", 20), ("boundingradius", 32),
                                          ("eyeposition", 36 + 8), ("size", 80),
                                          ("skin 1 intervals", SKIN1_COUNT + 4 + 4),
                                          ("frame 1 intervals", FRAME1_INTERVALS + 8)])
@pytest.mark.parametrize("bad", [float("nan"), float("inf"), float("-inf")])
def test_non_finite_floats_raise(field, offset, bad):
    data = bytearray(serialize_mdl(synthetic_model()))
    struct.pack_into("<f", data, offset, bad)
    with pytest.raises(FormatError, match="non-finite") as info:
        parse_mdl(bytes(data))
    assert info.value.field == field


def test_header_only_file_raises():
    with pytest.raises(FormatError):
        parse_mdl(serialize_mdl(synthetic_model())[:84])


# ---------------------------------------------------------------- writer refuses inconsistent models


@pytest.mark.parametrize("breakage", [
    lambda m: m.pose_names.pop(),
    lambda m: setattr(m.frames[1], "num_poses", 2),
    lambda m: setattr(m.frames[0], "num_poses", 2),
    lambda m: m.frames.pop(),
    lambda m: setattr(m.skins[0], "images", m.skins[0].images[:, :, :4]),
    lambda m: setattr(m.skins[0], "images", np.concatenate([m.skins[0].images] * 2)),
    lambda m: setattr(m.skins[1], "intervals", m.skins[1].intervals[:2]),
    lambda m: setattr(m, "onseam", m.onseam[:2]),
    lambda m: setattr(m, "facesfront", m.facesfront[:1]),
    lambda m: m.pose_names.__setitem__(0, "a name far too long"),
])
def test_serialize_refuses_inconsistent_models(breakage):
    model = synthetic_model()
    breakage(model)
    with pytest.raises(FormatError):
        serialize_mdl(model)
