"""MD16 and RAPO without Blender: layout against the independent decoder, round trips, bad files."""
from __future__ import annotations

import dataclasses
import struct

import numpy as np
import pytest
from support.mdl_models import V, assert_models_equal, md16_model, rapo_model, synthetic_model
from support.mdl_models import refused_quickly as _refused_quickly
from support.mdl_reference import decode

from formats import FormatError
from formats.mdl.codec import parse_mdl, serialize_mdl
from formats.mdl.texcoords import assign_st_table, effective_st
from formats.mdl.variants import hexen2_flag_names, quantize16


def test_md16_layout_matches_the_reference_decoder():
    model = md16_model()
    data = serialize_mdl(model)
    assert data[:8] == b"MD16" + struct.pack("<i", 6)
    ref = decode(data)
    assert ref.end == len(data)
    poses = [p for f in ref.frames for p in f.poses]
    assert [len(f.poses) for f in ref.frames] == [1, 3, 1]
    np.testing.assert_array_equal([[v[:3] for v in p.verts] for p in poses], model.pose_verts)
    np.testing.assert_array_equal([p.low for p in poses], model.pose_low)
    scale, translate = np.array(ref.scale), np.array(ref.translate)
    expected = np.array([[np.array(v[:3]) + np.array(lo[:3]) / 256.0 for v, lo in zip(p.verts, p.low)]
                         for p in poses]) * scale + translate
    np.testing.assert_allclose(parse_mdl(data).positions(), expected, rtol=0, atol=1e-5)


def test_md16_round_trips_field_by_field_and_byte_for_byte():
    data = serialize_mdl(md16_model())
    model = parse_mdl(data)
    assert model.variant == "MD16"
    assert_models_equal(model, md16_model())
    assert serialize_mdl(model) == data


def test_rapo_layout_matches_the_reference_decoder():
    model = rapo_model()
    data = serialize_mdl(model)
    assert data[:8] == b"RAPO" + struct.pack("<i", 50)
    assert struct.unpack_from("<i", data, 84)[0] == 7
    ref = decode(data)
    assert ref.end == len(data)
    assert ref.texcoords == [tuple(r) for r in np.stack([model.onseam, model.s, model.t], 1).tolist()]
    assert ref.tris == [(int(f), *map(int, v), *map(int, st)) for f, v, st in
                        zip(model.facesfront, model.triangles, model.st_triangles)]


def test_rapo_round_trips_field_by_field_and_byte_for_byte():
    data = serialize_mdl(rapo_model())
    model = parse_mdl(data)
    assert model.variant == "RAPO" and model.st_triangles.dtype == np.int32
    assert_models_equal(model, rapo_model())
    assert serialize_mdl(model) == data
    assert hexen2_flag_names(model.flags) == ["transparent", "face_view"]


def test_rapo_seam_rule_reads_the_st_record():
    model = parse_mdl(serialize_mdl(rapo_model()))
    st = effective_st(model.onseam, model.s, model.t, model.st_triangles, model.facesfront, model.skin_width)
    # triangle 1 faces back: record 5 is onseam (s 0 -> 0 + 8 / 2), records 6 and 3 are not
    assert st[1].tolist() == [[6, 1], [7, 3], [4, 3]]
    assert st[0].tolist() == [[1, 1], [2, 0], [3, 2]]      # front: the seam record reads s as stored


def test_idpo_stays_idpo():
    data = serialize_mdl(synthetic_model())
    assert data[:4] == b"IDPO" and parse_mdl(data).variant == "IDPO"


@pytest.mark.parametrize("build", [md16_model, rapo_model])
def test_every_truncation_is_refused(build):
    data = serialize_mdl(build())
    for size in range(len(data)):
        with pytest.raises(FormatError):
            parse_mdl(data[:size])


def test_rapo_inflated_num_st_verts_is_refused_quickly():
    data = serialize_mdl(rapo_model())
    for value in (2**31 - 1, 1 << 24, -1):
        error = _refused_quickly(data[:84] + struct.pack("<i", value) + data[88:])
        assert error.field in ("num_st_verts", "numtris", "stindex", "triangles", "numframes")


@pytest.mark.parametrize("corner,field", [(0, "vertindex"), (3, "stindex")])
def test_rapo_index_out_of_range_names_its_field(corner, field):
    model = rapo_model()
    data = bytearray(serialize_mdl(model))
    tris_at = _rapo_tris_offset(model)
    struct.pack_into("<H", data, tris_at + 4 + 2 * corner, 999)
    with pytest.raises(FormatError) as info:
        parse_mdl(bytes(data))
    assert info.value.field == field and info.value.offset == tris_at + 4 + 2 * corner


def _rapo_tris_offset(model) -> int:
    pixels = model.skin_width * model.skin_height
    skins = sum(4 + pixels if s.intervals is None else 8 + len(s.images) * (4 + pixels) for s in model.skins)
    return 88 + skins + 12 * len(model.s)


@pytest.mark.parametrize("ident,version", [(b"MD16", 50), (b"RAPO", 6), (b"MD16", 7)])
def test_variant_with_the_wrong_version_is_refused(ident, version):
    data = serialize_mdl(synthetic_model())
    with pytest.raises(FormatError, match="version"):
        parse_mdl(ident + struct.pack("<i", version) + data[8:])


def test_md16_inflated_counts_are_refused_quickly():
    data = serialize_mdl(md16_model())
    for offset in (60, 64, 68):                         # numverts, numtris, numframes
        _refused_quickly(data[:offset] + struct.pack("<i", 2**31 - 1) + data[offset + 4:])


def test_quantize16_is_within_half_a_step():
    rng = np.random.default_rng(1)
    positions = rng.uniform(-40, 60, (3, 50, 3))
    lo, hi = positions.reshape(-1, 3).min(0), positions.reshape(-1, 3).max(0)
    scale = ((hi - lo) / 255).astype(np.float32)
    fine = quantize16(positions, scale, lo.astype(np.float32))
    decoded = (fine.astype(np.float64) / 256) * scale + lo.astype(np.float32)
    assert np.all(np.abs(decoded - positions) <= scale / 512 * (1 + 1e-4) + 1e-6)


def test_st_table_keeps_the_stored_one_and_rebuilds_when_corners_move():
    model = rapo_model()
    corner = effective_st(model.onseam, model.s, model.t, model.st_triangles, model.facesfront, model.skin_width)
    stored = (model.onseam, model.s, model.t, model.st_triangles)
    kept = assign_st_table(model.triangles, corner, model.facesfront, V, model.skin_width, stored)
    np.testing.assert_array_equal(kept.st_triangles, model.st_triangles)
    moved = corner.copy()
    moved[0, 0] = [1, 1]
    rebuilt = assign_st_table(model.triangles, moved, model.facesfront, V, model.skin_width, stored)
    got = effective_st(rebuilt.onseam, rebuilt.s, rebuilt.t, rebuilt.st_triangles, model.facesfront,
                       model.skin_width)
    np.testing.assert_array_equal(got, moved)
    assert len(rebuilt.source_vertex) == V and rebuilt.vertices_added == 0


def test_rapo_warnings_name_hexen2_and_its_limits():
    model = rapo_model()
    assert model.warnings() == []
    big = dataclasses.replace(model, onseam=np.zeros(2001, np.int32), s=np.zeros(2001, np.int32),
                              t=np.zeros(2001, np.int32))
    assert big.warnings() == ["2001 texture coordinates exceed Hexen II's 2000"]
    odd = dataclasses.replace(model, skin_width=7)
    assert any("Hexen II refuses" in w for w in odd.warnings())
