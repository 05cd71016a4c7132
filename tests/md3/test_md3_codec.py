"""MD3 codec without Blender: the corpus against an independent struct reader, byte-exact round trips,
files built small here (full names, several surfaces, tags without surfaces, empty surfaces, gaps,
trailing bytes), every kind of bad file, the vertex and normal encodings."""
from __future__ import annotations

import math
import struct

import numpy as np
import pytest
from support.environment import corpus_params

from formats import FormatError
from formats.md3.codec import read_md3, write_md3
from formats.md3.limits import limit_problems
from formats.md3.records import MD3_MAX_TAGS, MD3_MAX_VERTS, SHADER_MAX_VERTEXES
from formats.md3.vertices import (
    NORMAL_STEP_RADIANS,
    decode_normals,
    decode_xyz,
    encode_each_normal,
    encode_normals,
    encode_xyz,
)

CORPUS = corpus_params("md3/**/*.md3")


# --- an independent reader and writer (struct, following qfiles.h) ---------------------------------

def reference_read(data: bytes) -> dict:
    (ident, version, name, flags, nf, nt, ns, nskins,
     ofs_frames, ofs_tags, ofs_surfaces, ofs_end) = struct.unpack_from("<4si64si4i4i", data, 0)
    frames = [struct.unpack_from("<10f16s", data, ofs_frames + 56 * i) for i in range(nf)]
    tags = [[struct.unpack_from("<64s12f", data, ofs_tags + 112 * (f * nt + t)) for t in range(nt)]
            for f in range(nf)]
    surfaces, start = [], ofs_surfaces
    for _ in range(ns):
        (sid, sname, sflags, snf, nsh, nv, ntri, otri, osh, ost, oxyz,
         oend) = struct.unpack_from("<4s64s10i", data, start)
        surfaces.append({
            "name": sname, "num_frames": snf, "num_verts": nv,
            "shaders": [struct.unpack_from("<64si", data, start + osh + 68 * i) for i in range(nsh)],
            "tris": [struct.unpack_from("<3i", data, start + otri + 12 * i) for i in range(ntri)],
            "st": [struct.unpack_from("<2f", data, start + ost + 8 * i) for i in range(nv)],
            "xyzn": [[struct.unpack_from("<3hH", data, start + oxyz + 8 * (f * nv + v)) for v in range(nv)]
                     for f in range(snf)]})
        start += oend
    return {"name": name, "frames": frames, "tags": tags, "surfaces": surfaces, "ofs_end": ofs_end}


def cstr(raw: bytes) -> str:
    return raw.split(b"\0", 1)[0].decode("latin-1")


SIN_TABLE = [float(np.float32(math.sin(math.radians(float(np.float32(i * 360.0) / np.float32(1023.0))))))
             for i in range(1024)]     # tr_init.c R_Init: sin(DEG2RAD(i * 360.0f / (FUNCTABLE_SIZE - 1)))


def engine_normal(packed: int) -> tuple[float, float, float]:
    """tr_surface.c LerpMeshVertexes with tr_init.c's sinTable, one vertex at a time."""
    table = SIN_TABLE
    lat, lng = ((packed >> 8) & 0xFF) * 4, (packed & 0xFF) * 4
    return (table[(lat + 256) & 1023] * table[lng], table[lat] * table[lng], table[(lng + 256) & 1023])


def build(name=b"model", frames=1, tags=(), surfaces=(), trailing=b"", frame_name=b"frame", flags=0) -> bytes:
    """An MD3 in the order of qfiles.h. ``tags``: names; ``surfaces``: dicts with name, shaders
    [(name, index)], tris [(a, b, c)], verts (the vertex count)."""
    frame_block = b"".join(struct.pack("<10f16s", -f, -1, -2, f + 1, 1, 2, 0, 0, 0.5 * f, 3 + f, frame_name)
                           for f in range(frames))
    tag_block = b"".join(struct.pack("<64s12f", t, f, i, 2.5, 1, 0, 0, 0, 1, 0, 0, 0, 1)
                         for f in range(frames) for i, t in enumerate(tags))
    surface_blocks = []
    for s in surfaces:
        nv = s["verts"]
        shaders = b"".join(struct.pack("<64si", n, i) for n, i in s["shaders"])
        tris = b"".join(struct.pack("<3i", *t) for t in s["tris"])
        st = b"".join(struct.pack("<2f", v / 8, 1 - v / 8) for v in range(nv))
        xyz = b"".join(struct.pack("<3hH", (8 * v + f) % 32000, -v % 32000, f * 100 - 32000, (v * 37 + f) & 0xFFFF)
                       for f in range(frames) for v in range(nv))
        o_sh = 108
        o_tri = o_sh + len(shaders)
        o_st = o_tri + len(tris)
        o_xyz = o_st + len(st)
        o_end = o_xyz + len(xyz)
        head = struct.pack("<4s64s10i", b"IDP3", s["name"], s.get("flags", 0), frames, len(s["shaders"]), nv,
                           len(s["tris"]), o_tri, o_sh, o_st, o_xyz, o_end)
        surface_blocks.append(head + shaders + tris + st + xyz)
    ofs_frames = 108
    ofs_tags = ofs_frames + len(frame_block)
    ofs_surfaces = ofs_tags + len(tag_block)
    ofs_end = ofs_surfaces + sum(map(len, surface_blocks))
    header = struct.pack("<4si64si4i4i", b"IDP3", 15, name, flags, frames, len(tags), len(surfaces), 0,
                         ofs_frames, ofs_tags, ofs_surfaces, ofs_end)
    return header + frame_block + tag_block + b"".join(surface_blocks) + trailing


QUAD = {"name": b"body", "shaders": [(b"models/x/skin.tga", 0)], "tris": [(0, 1, 2), (0, 2, 3)], "verts": 4}
FULL64 = bytes(range(0x41, 0x41 + 26)) * 2 + b"0123456789AB"   # 64 bytes, no NUL


# --- the corpus -------------------------------------------------------------------------------------

@pytest.mark.parametrize("path", CORPUS)
def test_corpus_round_trips_byte_for_byte(path):
    data = path.read_bytes()
    assert write_md3(read_md3(data)) == data


@pytest.mark.parametrize("path", CORPUS)
def test_corpus_matches_independent_reader(path):
    data = path.read_bytes()
    model, ref = read_md3(data), reference_read(data)
    assert model.name == cstr(ref["name"])
    assert model.frame_names == [cstr(f[10]) for f in ref["frames"]]
    assert model.num_tags == (len(ref["tags"][0]) if ref["tags"] else 0)
    for f in (0, model.num_frames - 1):
        np.testing.assert_array_equal(model.frame_radius[f], np.float32(ref["frames"][f][9]))
        for t, tag in enumerate(ref["tags"][f]):
            assert model.tag_names[t] == cstr(ref["tags"][0][t][0])
            np.testing.assert_array_equal(model.tag_origin[f, t], np.float32(tag[1:4]))
            np.testing.assert_array_equal(model.tag_axis[f, t], np.float32(tag[4:13]).reshape(3, 3))
    assert len(model.surfaces) == len(ref["surfaces"])
    for surface, rs in zip(model.surfaces, ref["surfaces"]):
        assert surface.name == cstr(rs["name"])
        assert [s.name for s in surface.shaders] == [cstr(s[0]) for s in rs["shaders"]]
        assert surface.triangles.tolist() == [list(t) for t in rs["tris"]]
        assert surface.num_verts == rs["num_verts"] and surface.num_frames == rs["num_frames"]
        for f in {0, surface.num_frames - 1}:
            for v in {0, surface.num_verts // 2, surface.num_verts - 1} if surface.num_verts else ():
                x, y, z, n = rs["xyzn"][f][v]
                np.testing.assert_array_equal(decode_xyz(surface.xyz[f, v]), np.float32([x, y, z]) / 64)
                np.testing.assert_allclose(decode_normals(surface.normal[f, v]), engine_normal(n), atol=1e-6)
                np.testing.assert_array_equal(surface.st[v], np.float32(rs["st"][v]))


@pytest.mark.parametrize("path", CORPUS)
def test_corpus_renderer_limit_is_a_warning(path):
    """Surfaces over the renderer's SHADER_MAX_VERTEXES are read, and reported."""
    data = path.read_bytes()
    big = [s for s in reference_read(data)["surfaces"] if s["num_verts"] >= SHADER_MAX_VERTEXES]
    warnings = read_md3(data).warnings
    assert any("SHADER_MAX_VERTEXES" in w for w in warnings) == bool(big)


# --- files built here ---------------------------------------------------------------------------------

def test_full_names_several_surfaces_trailing_bytes():
    data = build(name=FULL64, frames=3, tags=[FULL64, b"tag_weapon"], frame_name=b"F" * 16,
                 surfaces=[dict(QUAD, name=FULL64, shaders=[(FULL64, 7), (b"", 0)]),
                           {"name": b"empty", "shaders": [], "tris": [], "verts": 0},
                           dict(QUAD, name=b"second_1")], trailing=b"editor tag\0")
    model = read_md3(data)
    assert model.name == FULL64.decode() and model.frame_names == ["F" * 16] * 3
    assert model.tag_names == [FULL64.decode(), "tag_weapon"]
    assert [s.name for s in model.surfaces] == [FULL64.decode(), "empty", "second_1"]
    assert [(s.name, s.shader_index) for s in model.surfaces[0].shaders] == [(FULL64.decode(), 7), ("", 0)]
    assert model.surfaces[1].xyz.shape == (3, 0, 3) and model.surfaces[1].triangles.shape == (0, 3)
    assert model.trailing == b"editor tag\0"
    assert write_md3(model) == data
    np.testing.assert_array_equal(model.tag_origin[2, 1], [2, 1, 2.5])
    np.testing.assert_array_equal(decode_xyz(model.surfaces[0].xyz[1, 3]), [(8 * 3 + 1) / 64, 31997 / 64, -31900 / 64])


def test_tags_without_surfaces():
    data = build(frames=2, tags=[b"tag_torso", b"tag_head"])
    model = read_md3(data)
    assert model.surfaces == [] and model.tag_origin.shape == (2, 2, 3)
    assert write_md3(model) == data


def test_new_model_is_written_in_qfiles_order():
    data = build(frames=2, tags=[b"tag_a"], surfaces=[QUAD, dict(QUAD, name=b"b")], trailing=b"xy")
    model = read_md3(data)
    model.layout = None                  # as an exporter builds it
    assert write_md3(model) == data


def test_gaps_and_block_order_are_kept():
    """Triangles before shaders, 4 bytes between them and 12 between the header and the frames."""
    frames = struct.pack("<10f16s", 0, 0, 0, 1, 1, 1, 0, 0, 0, 2, b"idle")
    tags = struct.pack("<64s12f", b"tag_a", 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1)
    tris = struct.pack("<6i", 0, 1, 2, 0, 2, 3)
    shaders = struct.pack("<64si", b"models/x/skin.tga", 0)
    st = struct.pack("<8f", *range(8))
    xyz = b"".join(struct.pack("<3hH", v, 2 * v, 3 * v, v) for v in range(4))
    o_tri, o_sh = 108, 108 + len(tris) + 4
    o_st = o_sh + len(shaders)
    o_xyz = o_st + len(st)
    surface = struct.pack("<4s64s10i", b"IDP3", b"s", 0, 1, 1, 4, 2, o_tri, o_sh, o_st, o_xyz,
                          o_xyz + len(xyz)) + tris + b"\xAA" * 4 + shaders + st + xyz
    gap = b"GAP!" * 3
    ofs_frames = 108 + len(gap)
    ofs_tags = ofs_frames + len(frames)
    ofs_surfaces = ofs_tags + len(tags)
    header = struct.pack("<4si64si4i4i", b"IDP3", 15, b"m", 0, 1, 1, 1, 0, ofs_frames, ofs_tags, ofs_surfaces,
                         ofs_surfaces + len(surface))
    data = header + gap + frames + tags + surface
    model = read_md3(data)
    assert model.surfaces[0].triangles.tolist() == [[0, 1, 2], [0, 2, 3]]
    assert model.surfaces[0].shaders[0].name == "models/x/skin.tga" and model.frame_names == ["idle"]
    assert [f for _, f in model.layout.filler] == [gap, b"\xAA" * 4]
    assert write_md3(model) == data
    model.surfaces[0].xyz[0, 0] = (1, 2, 3)           # same sizes: same offsets, gaps kept
    edited = write_md3(model)
    assert len(edited) == len(data) and edited[ofs_frames - 12:ofs_frames] == gap
    assert read_md3(edited).surfaces[0].xyz[0, 0].tolist() == [1, 2, 3]
    model.surfaces[0].shaders.append(model.surfaces[0].shaders[0])   # a size changes: written packed
    packed = write_md3(model)
    assert struct.unpack_from("<i", packed, 92)[0] == 108 and b"GAP!" not in packed
    assert [s.name for s in read_md3(packed).surfaces[0].shaders] == ["models/x/skin.tga"] * 2


def test_edits_are_written():
    model = read_md3(build(frames=2, tags=[b"tag_a"], surfaces=[QUAD]))
    model.surfaces[0].name, model.tag_names[0], model.frame_names[1] = "renamed", "tag_b", "jump2"
    model.surfaces[0].shaders[0].name = "models/y.tga"
    again = read_md3(write_md3(model))
    assert again.surfaces[0].name == "renamed" and again.tag_names == ["tag_b"]
    assert again.frame_names == ["frame", "jump2"] and again.surfaces[0].shaders[0].name == "models/y.tga"
    assert reference_read(write_md3(model))["tags"][1][0][0].rstrip(b"\0") == b"tag_b"


def test_limits_for_the_exporter():
    model = read_md3(build(frames=1, tags=[b"t%d" % i for i in range(MD3_MAX_TAGS + 1)]))
    assert limit_problems(model) == [f"{MD3_MAX_TAGS + 1} tags, over the limit of {MD3_MAX_TAGS} (MD3_MAX_TAGS)"]
    big = read_md3(build(surfaces=[dict(QUAD, verts=MD3_MAX_VERTS + 1)]))
    assert any("MD3_MAX_VERTS" in p for p in limit_problems(big))
    assert any("MD3_MAX_VERTS" in w for w in big.warnings) and any("SHADER_MAX_VERTEXES" in w for w in big.warnings)


# --- bad files -----------------------------------------------------------------------------------------

SMALL = build(frames=2, tags=[b"tag_a"], surfaces=[QUAD, dict(QUAD, name=b"b")])
HEADER_FIELDS = ["num_frames", "num_tags", "num_surfaces"]


def _expect_error(data: bytes, field_part: str | None = None) -> FormatError:
    with pytest.raises(FormatError) as info:
        read_md3(data)
    err = info.value
    assert err.field and err.offset is not None, str(err)
    if field_part:
        assert field_part in err.field, str(err)
    return err


def test_truncated_at_every_length():
    for n in range(len(SMALL)):
        _expect_error(SMALL[:n])


def test_every_block_cut_short_with_a_consistent_ofs_end():
    """ofs_end rewritten to each shorter length: the block the cut falls in is named."""
    for n in range(108, len(SMALL)):
        data = bytearray(SMALL[:n])
        struct.pack_into("<i", data, 104, n)
        _expect_error(bytes(data))


@pytest.mark.parametrize("index, name", [(4, "num_frames"), (5, "num_tags"), (6, "num_surfaces")])
@pytest.mark.parametrize("value", [-1, -2 ** 31, 2 ** 31 - 1, 10 ** 6])
def test_header_counts(index, name, value):
    data = bytearray(SMALL)
    struct.pack_into("<i", data, 4 * 2 + 64 + 4 * (index - 3), value)
    err = _expect_error(bytes(data))
    if value < 0:
        assert err.field == name and err.offset == 72 + 4 * (index - 3)


@pytest.mark.parametrize("offset_field, at", [("ofs_frames", 92), ("ofs_tags", 96), ("ofs_surfaces", 100)])
@pytest.mark.parametrize("value", [-1, len(SMALL) + 1, 2 ** 31 - 1])
def test_header_offsets_outside(offset_field, at, value):
    data = bytearray(SMALL)
    struct.pack_into("<i", data, at, value)
    err = _expect_error(bytes(data), offset_field)
    assert err.offset == at


@pytest.mark.parametrize("field, index", [("num_frames", 3), ("num_shaders", 4), ("num_verts", 5),
                                          ("num_triangles", 6), ("ofs_triangles", 7), ("ofs_shaders", 8),
                                          ("ofs_st", 9), ("ofs_xyznormals", 10), ("ofs_end", 11)])
@pytest.mark.parametrize("value", [-1, -2 ** 31, 2 ** 31 - 1, 5000])
def test_surface_fields(field, index, value):
    data = bytearray(SMALL)
    start = struct.unpack_from("<i", data, 100)[0]
    second = start + struct.unpack_from("<i", data, start + 104)[0]
    struct.pack_into("<i", data, second + 4 + 64 + 4 * (index - 2), value)
    err = _expect_error(bytes(data), "surface 1")
    assert second <= err.offset < len(data)


def test_bad_version_ident_and_index():
    assert _expect_error(b"IDP2" + SMALL[4:], "ident").offset == 0
    assert _expect_error(SMALL[:4] + struct.pack("<i", 16) + SMALL[8:], "version").offset == 4
    data = bytearray(SMALL)
    start = struct.unpack_from("<i", data, 100)[0]
    o_tri = struct.unpack_from("<i", data, start + 88)[0]
    struct.pack_into("<i", data, start + o_tri + 16, 4)
    assert _expect_error(bytes(data), "triangles").offset == start + o_tri + 16


def test_random_corruption_gives_only_our_error():
    rng = np.random.default_rng(31)
    for _ in range(400):
        data = bytearray(SMALL)
        for at in rng.integers(0, len(data), rng.integers(1, 4)):
            data[at] = int(rng.integers(0, 256))
        try:
            write_md3(read_md3(bytes(data)))
        except FormatError as err:
            assert err.field and err.offset is not None
        # any other exception type fails the test


# --- vertices and normals --------------------------------------------------------------------------------

def test_decode_normals_matches_the_engine_for_every_byte_pair():
    packed = np.arange(0, 65536, 7, dtype=np.uint16)
    expected = np.array([engine_normal(int(p)) for p in packed])
    np.testing.assert_allclose(decode_normals(packed), expected, atol=1e-6)


def test_encode_picks_the_nearest_decoded_pair():
    rng = np.random.default_rng(5)
    normals = rng.normal(size=(600, 3))
    normals = np.vstack([normals, [[0, 0, 1], [0, 0, -1], [1, 0, 0], [-1, 0, 0], [0, -1, 0], [1e-4, 0, -1]]])
    normals /= np.linalg.norm(normals, axis=1)[:, None]
    packed = encode_normals(normals)
    table = decode_normals(np.arange(65536, dtype=np.uint16)).astype(np.float64)
    squared = (table ** 2).sum(axis=1)
    best = np.concatenate([np.min(squared[None] - 2 * chunk @ table.T, axis=1) + 1     # |t - n|^2, |n| = 1
                           for chunk in np.array_split(normals, 6)])
    got = ((decode_normals(packed) - normals) ** 2).sum(axis=1)
    assert np.all(got <= best + 1e-6)
    decoded = decode_normals(packed)
    angle = np.arccos(np.clip((decoded * normals).sum(1) / np.linalg.norm(decoded, axis=1), -1, 1))
    assert angle.max() <= NORMAL_STEP_RADIANS


def _encode_normals_summed(normals: np.ndarray) -> np.ndarray:
    """The encoding as first written (before issue 33's table): every candidate decoded by the engine's
    formula and its squared distance summed over a (normals, 18, 3) array by ``np.sum``."""
    from formats.md3.vertices import _decode_bytes, pack_normals
    unit = normals / np.linalg.norm(normals, axis=1)[:, None]
    step = 1.0 / NORMAL_STEP_RADIANS
    azimuth, polar = np.arctan2(unit[:, 1], unit[:, 0]), np.arccos(np.clip(unit[:, 2], -1.0, 1.0))
    lat0 = np.rint(np.mod(np.stack([azimuth, azimuth + np.pi], 1), 2 * np.pi) * step).astype(np.int64)
    lng0 = np.rint(np.stack([polar, 2 * np.pi - polar], 1) * step).astype(np.int64)
    offsets = np.array([-1, 0, 1])
    lat = (lat0[:, :, None, None] + offsets[None, None, :, None]) % 256
    lng = np.clip(lng0[:, :, None, None] + offsets[None, None, None, :], 0, 255)
    lat, lng = (a.reshape(len(unit), -1) for a in np.broadcast_arrays(lat, lng))
    distance = np.sum((_decode_bytes(lat, lng).astype(np.float64) - unit[:, None, :]) ** 2, axis=2)
    best = np.argmin(distance, axis=1)
    rows = np.arange(len(unit))
    return pack_normals(lat[rows, best], lng[rows, best])


def test_encode_normals_makes_the_summed_search_s_choices():
    """Over more normals than one chunk holds, ties included (the decoded table's own vectors, the poles,
    the axes, a normal halfway between two pairs), every pair is the one the whole (normals, 18, 3) search
    picks."""
    rng = np.random.default_rng(11)
    table = decode_normals(np.arange(65536, dtype=np.uint16)).astype(np.float64)
    halfway = (table[1000:1200] + table[1001:1201]) / 2
    normals = np.vstack([rng.normal(size=(40000, 3)), table[::5], halfway,
                         [[0, 0, 1], [0, 0, -1], [1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0], [1e-300, 0, 1]]])
    assert np.array_equal(encode_normals(normals), _encode_normals_summed(normals))


def test_frames_encode_each_normal_as_it_alone_encodes():
    """(frames, vertices, 3) normals, some vertices still from frame to frame (bit for bit, or only equal:
    -0.0 against 0.0 and a NaN), others moving, one frame all still: each frame's pairs are the ones the
    normals give one by one (the frames path encodes a still vertex once and copies it)."""
    rng = np.random.default_rng(5)
    frames = rng.normal(size=(7, 300, 3))
    frames[:, :120] = frames[0, :120]                     # still
    frames[3:5, 200:] = frames[2, 200:]                   # still for two frames, then moving again
    frames[4] = frames[3]                                 # a frame the same as the one before
    frames[:, 150] = [-1.0, 0.0, 0.0]
    frames[1::2, 150, 1] = -0.0                           # equal to 0.0, not the same bits
    frames[:, 151] = [np.nan, 0.0, 1.0]
    encoded = encode_normals(frames)
    assert encoded.shape == (7, 300)
    assert np.array_equal(encoded, encode_each_normal(frames.reshape(-1, 3)).reshape(7, 300))
    assert np.array_equal(encode_normals(frames[:1]), encode_each_normal(frames[0])[None])


def test_encode_normals_round_trips_corpus_like_pairs():
    packed = np.arange(0, 65536, 3, dtype=np.uint16)
    decoded = decode_normals(packed)
    again = decode_normals(encode_normals(decoded))
    np.testing.assert_allclose(again, decoded, atol=1e-5)


def test_encode_xyz_rounds_and_reports_clipping():
    positions = np.array([[1 / 128 + 1e-9, -1 / 64, 511.99], [600.0, 0, 0], [0, -513, 700]])
    xyz, clipped = encode_xyz(positions)
    assert xyz.tolist() == [[1, -1, 32767], [32767, 0, 0], [0, -32768, 32767]] and clipped == 2
    assert np.abs(decode_xyz(xyz[0]) - positions[0]).max() <= 1 / 128


def test_lod_names_follow_r_register_md3():
    from formats.md3.lods import lod_names
    assert lod_names("models/players/major/lower.md3") == [
        "models/players/major/lower.md3", "models/players/major/lower_1.md3", "models/players/major/lower_2.md3"]
    assert lod_names("models/x.v2/gun.md3")[1] == "models/x_1.v2/gun.md3"     # cut at the first '.'


@pytest.mark.parametrize("path", corpus_params("md3/openarena081/models/players/merman/*_1.md3"))
def test_corpus_lods_share_frames_and_tags(path):
    from formats.md3.lods import lod_names
    base = path.with_name(path.name.replace("_1.md3", ".md3"))
    names = [base.parent / n for n in lod_names(base.name)]
    models = [read_md3(p.read_bytes()) for p in names]
    assert names[1] == path and all(p.exists() for p in names)
    assert len({m.num_frames for m in models}) == 1 and len({tuple(m.tag_names) for m in models}) == 1
    assert sum(s.num_verts for s in models[2].surfaces) < sum(s.num_verts for s in models[0].surfaces)


@pytest.mark.parametrize("path", corpus_params("md3/openarena081/models/players/*/lower.md3"))
def test_tag_transform_matches_cg_position_entity_on_tag(path):
    from formats.md3.tags import find_tag, tag_matrices
    data = path.read_bytes()
    model, ref = read_md3(data), reference_read(data)
    last = model.num_frames - 1
    index = find_tag(model, "tag_torso", last)
    raw = ref["tags"][last][index]
    assert cstr(raw[0]) == "tag_torso"
    axis = [np.array(raw[4 + 3 * i:7 + 3 * i], np.float64) for i in range(3)]
    axis = [a / np.linalg.norm(a) for a in axis]                          # R_LerpTag
    point = np.array([3.0, -2.0, 5.0])
    expected = np.array(raw[1:4], np.float64) + sum(point[i] * axis[i] for i in range(3))   # the VectorMA loop
    got = tag_matrices(model.tag_origin[last, index], model.tag_axis[last, index]) @ np.append(point, 1)
    np.testing.assert_allclose(got[:3], expected, atol=1e-9)


def test_duplicate_tag_names_find_the_first():
    from formats.md3.tags import find_tag
    model = read_md3(build(frames=2, tags=[b"tag_a", b"tag_b", b"tag_a"]))
    assert find_tag(model, "tag_a", 1) == 0 and find_tag(model, "tag_b", 9) == 1 and find_tag(model, "x") is None
    assert write_md3(model) == build(frames=2, tags=[b"tag_a", b"tag_b", b"tag_a"])


def test_writer_refuses_a_model_without_frames():
    model = read_md3(build(frames=1, tags=[b"tag_a"]))
    model.frame_names, model.frame_bounds = [], model.frame_bounds[:0]
    model.frame_origin, model.frame_radius = model.frame_origin[:0], model.frame_radius[:0]
    model.tag_origin, model.tag_axis = model.tag_origin[:0], model.tag_axis[:0]
    with pytest.raises(FormatError, match="no frames"):
        write_md3(model)


def test_filler_is_every_byte_no_block_covers():
    """The reader's filler runs (computed from the blocks' spans, overlapping, touching, empty or out of
    order) against the byte-by-byte definition: the maximal runs of bytes no span covers."""
    from formats.binary import uncovered_runs
    rng = np.random.default_rng(7)
    for _ in range(3000):
        body = bytes(rng.integers(0, 256, int(rng.integers(0, 40)), dtype=np.uint8))
        spans = []
        for _ in range(int(rng.integers(0, 6))):
            start = int(rng.integers(0, len(body) + 1))
            spans.append((start, int(rng.integers(0, len(body) - start + 1))))
        covered = [any(s <= i < s + n for s, n in spans) for i in range(len(body))]
        runs, i = [], 0
        while i < len(body):
            if covered[i]:
                i += 1
                continue
            j = i
            while j < len(body) and not covered[j]:
                j += 1
            runs.append((i, body[i:j]))
            i = j
        assert uncovered_runs(body, spans) == runs, (body, spans)
