"""IQM codec without Blender: every corpus file against an independent struct reader and back byte for
byte; frames decoded against the engines' per-channel sum done one value at a time, and re-encoded as
the SDK quantised them; bounds against the skinned vertices; a small file built here read and written."""
from __future__ import annotations

import struct

import numpy as np
import pytest
from support.environment import corpus_params
from support.iqm_files import build, cstr, header_at, reference_read

from formats.iqm.animation import anim_frames, bind_pose, encode_channels, frame_channels, frame_poses, vertex_values
from formats.iqm.codec import read_iqm
from formats.iqm.records import BLENDINDEXES, BLENDWEIGHTS, COLOR, POSITION
from formats.iqm.write import write_iqm

CORPUS = corpus_params("iqm/**/*.iqm")


def corpus_with(field: str) -> list:
    """The corpus files whose header's ``field`` is not 0 (the skipped param when there is no corpus)."""
    out = []
    for param in CORPUS:
        path = param.values[0]
        if path is None:
            out.append(param)
            continue
        with open(path, "rb") as file:
            if struct.unpack_from("<I", file.read(124), header_at(field))[0]:
                out.append(param)
    return out


ANIMATED, BOUNDED = corpus_with("num_frames"), corpus_with("ofs_bounds")


def check_against_reference(model, ref: dict) -> None:
    h = ref["header"]
    assert ref["magic"] == b"INTERQUAKEMODEL\0" and h["version"] == 2
    assert model.text == ref["text"] and model.flags == h["flags"] and model.num_vertexes == h["num_vertexes"]
    assert [tuple(int(x) for x in m) for m in model.meshes] == ref["meshes"]
    assert len(model.vertex_arrays) == len(ref["arrays"])
    for array, expected in zip(model.vertex_arrays, ref["arrays"]):
        assert (array.type, array.format, array.size) == (expected["type"], expected["format"], expected["size"])
        np.testing.assert_array_equal(array.data, np.array(expected["rows"]).reshape(array.data.shape))
    assert [tuple(int(x) for x in t) for t in model.triangles] == ref["triangles"]
    assert len(model.joints) == len(ref["joints"])
    for joint, (name, parent, *floats) in zip(model.joints, ref["joints"]):
        assert (int(joint["name"]), int(joint["parent"])) == (name, parent)
        np.testing.assert_array_equal(np.concatenate([joint["translate"], joint["rotate"], joint["scale"]]), floats)
    for pose, (parent, mask, *floats) in zip(model.poses, ref["poses"]):
        assert (int(pose["parent"]), int(pose["mask"])) == (parent, mask)
        np.testing.assert_array_equal(np.concatenate([pose["channeloffset"], pose["channelscale"]]), floats)
    assert [(int(a["name"]), int(a["first_frame"]), int(a["num_frames"]), float(a["framerate"]), int(a["flags"]))
            for a in model.anims] == ref["anims"]
    np.testing.assert_array_equal(model.frames, np.array(ref["frames"], np.uint16).reshape(model.frames.shape))
    if ref["bounds"] is None:
        assert model.bounds is None
    else:
        got = np.concatenate([model.bounds["bbmin"], model.bounds["bbmax"], model.bounds["xyradius"][:, None],
                              model.bounds["radius"][:, None]], axis=1)
        np.testing.assert_array_equal(got, np.array(ref["bounds"], np.float32).reshape(got.shape))
    assert model.joint_names == [cstr(ref["text"], j[0]) for j in ref["joints"]]
    assert model.anim_names == [cstr(ref["text"], a[0]) for a in ref["anims"]]


def engine_channels(ref: dict) -> list:
    """DarkPlaces' loop: per frame, per pose, per channel, offset + (mask bit ? value * scale : 0) in floats."""
    out = []
    f32 = np.float32
    for values in ref["frames"]:
        it = iter(values)
        frame = []
        for parent, mask, *floats in ref["poses"]:
            offset, scale = floats[:10], floats[10:]
            frame.append([f32(f32(offset[c]) + f32(f32(next(it)) * f32(scale[c]))) if mask & (1 << c)
                          else f32(offset[c]) for c in range(10)])
        out.append(frame)
    return out


@pytest.mark.parametrize("path", CORPUS)
def test_corpus_file_reads_as_struct_does_and_writes_back_byte_for_byte(path):
    data = path.read_bytes()
    model = read_iqm(data)
    check_against_reference(model, reference_read(data))
    assert write_iqm(model) == data
    assert model.warnings == []


@pytest.mark.parametrize("path", CORPUS)
def test_corpus_file_packed_anew_reads_back_the_same_model(path):
    data = path.read_bytes()
    model = read_iqm(data)
    alignment_only = all(len(run) < 4 and not run.strip(b"\0") for _, run in model.layout.filler)
    model.layout = None                     # as an edited model: written in the SDK's order
    assert (write_iqm(model) == data) == alignment_only     # the same bytes, but for unused ones
    again = read_iqm(write_iqm(model))
    check_against_reference(again, reference_read(write_iqm(model)))
    for name in ("meshes", "triangles", "joints", "poses", "anims", "frames"):
        np.testing.assert_array_equal(getattr(again, name), getattr(model, name))
    assert again.text == model.text


@pytest.mark.parametrize("path", ANIMATED)
def test_corpus_frames_decode_as_the_engine_sums_them_and_encode_as_the_sdk_wrote_them(path):
    data = path.read_bytes()
    model = read_iqm(data)
    assert model.num_frames
    channels = frame_channels(model)
    np.testing.assert_array_equal(channels, np.array(engine_channels(reference_read(data)), np.float32))
    translate, rotate, scale = frame_poses(model)
    np.testing.assert_allclose(np.linalg.norm(rotate, axis=-1), 1, atol=1e-4)
    np.testing.assert_array_equal(np.concatenate([translate, rotate, scale], axis=-1), channels)
    poses, frames = encode_channels(channels)
    for name in ("mask", "channeloffset", "channelscale"):
        np.testing.assert_array_equal(poses[name], model.poses[name])
    np.testing.assert_array_equal(frames, model.frames)


def quat_matrix(q) -> np.ndarray:
    x, y, z, w = (float(c) for c in q)
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                     [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                     [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])


def world_matrices(parents, trs) -> list:
    out = []
    for parent, (t, r, s) in zip(parents, trs):
        local = np.eye(4)
        local[:3, :3] = quat_matrix(np.asarray(r) / np.linalg.norm(r)) * np.asarray(s, float)
        local[:3, 3] = t
        out.append(out[parent] @ local if parent >= 0 else local)
    return out


@pytest.mark.parametrize("path", BOUNDED)
def test_corpus_bounds_hold_the_skinned_vertices_of_each_frame(path):
    """Each frame's bounds hold the vertices skinned by that frame's poses: the box, the largest distance
    from the z axis and from the origin (as DarkPlaces reads them: bbmin, bbmax, xyradius, radius)."""
    model = read_iqm(path.read_bytes())
    assert model.bounds is not None and model.num_vertexes
    parents, *bind = bind_pose(model)
    inverse = [np.linalg.inv(m) for m in world_matrices(parents, zip(*bind))]
    positions = np.c_[vertex_values(model, POSITION).astype(float), np.ones(model.num_vertexes)]
    indexes, weights = vertex_values(model, BLENDINDEXES), vertex_values(model, BLENDWEIGHTS)
    translate, rotate, scale = frame_poses(model)
    for f in range(model.num_frames):
        skin = [w @ i for w, i in zip(world_matrices(parents, zip(translate[f], rotate[f], scale[f])), inverse)]
        points = np.array([sum(weights[v, k] * (skin[indexes[v, k]] @ positions[v]) for k in range(4))[:3]
                           for v in range(model.num_vertexes)])
        b = model.bounds[f]
        np.testing.assert_allclose(points.min(axis=0), b["bbmin"], atol=1e-3)
        np.testing.assert_allclose(points.max(axis=0), b["bbmax"], atol=1e-3)
        np.testing.assert_allclose(np.hypot(points[:, 0], points[:, 1]).max(), b["xyradius"], atol=1e-3)
        np.testing.assert_allclose(np.linalg.norm(points, axis=1).max(), b["radius"], atol=1e-3)


def test_built_file_reads_every_block_and_writes_back_byte_for_byte():
    data, facts = build(trailing=b"tool tag", gap=b"GAP!")
    model = read_iqm(data)
    check_against_reference(model, reference_read(data))
    assert model.trailing == b"tool tag" and write_iqm(model) == data
    assert [model.text_at(int(m["name"])) for m in model.meshes] == ["body", "head"]
    assert [model.text_at(int(m["material"])) for m in model.meshes] == ["skin.tga", "skin.tga"]
    assert model.joint_names == ["root", "spine", "neck"] and model.anim_names == ["walk", "idle"]
    assert list(anim_frames(model, 0)) == [0, 1, 2] and list(anim_frames(model, 1)) == [3]
    assert int(model.anims[0]["flags"]) == 1 and float(model.anims[1]["framerate"]) == 10.0
    custom = model.vertex_arrays[-1]
    assert (custom.type, custom.format, custom.data.dtype, custom.data.shape) == (0x10, 3, np.dtype("<u2"), (5, 2))
    assert custom.data[4].tolist() == [1004, 65531]
    np.testing.assert_array_equal(model.adjacency, np.array(facts["adjacency"], np.uint32))
    np.testing.assert_allclose(vertex_values(model, COLOR)[2], np.array([20, 20, 30, 255]) / 255)
    np.testing.assert_array_equal(vertex_values(model, BLENDWEIGHTS)[:, 0], 1.0)
    assert model.comment == facts["comment"]
    assert [e.data for e in model.extensions] == facts["ext_data"]
    assert [model.text_at(e.name) for e in model.extensions] == ["ext.a", "ext.b"]
    assert (facts["offsets"]["joints"] + 3 * 48, b"GAP!") in model.layout.filler
    translate, rotate, scale = frame_poses(model)
    value = facts["frames"][2][4]                      # pose 1's second animated channel: rotate y
    assert rotate[2, 1, 1] == np.float32(np.float32(-1) + np.float32(value) * np.float32(2 / 65535))
    np.testing.assert_array_equal(translate[:, 2], np.tile([0, 1, 4], (4, 1)))   # pose 2 animates nothing


def test_built_file_edited_is_packed_anew_and_reads_back():
    data, facts = build(gap=b"GAP!")
    model = read_iqm(data)
    model.text += b"more\0"                             # a block changes size: the file's layout no longer holds
    model.comment = b""
    model.bounds = None
    out = write_iqm(model)
    again = read_iqm(out)
    ref = reference_read(out)
    assert ref["header"]["ofs_bounds"] == 0 and ref["header"]["ofs_comment"] == 0
    assert ref["header"]["filesize"] == len(out) and b"GAP!" not in out
    assert again.text == facts["text"] + b"more\0" and again.bounds is None
    np.testing.assert_array_equal(again.frames, model.frames)
    assert [e.data for e in again.extensions] == facts["ext_data"]
    assert all(offset % 4 == 0 for key, offset in ref["header"].items() if key.startswith("ofs_"))


def test_built_file_untouched_fields_kept_beside_the_edited_ones():
    """A change that keeps every block's size keeps the file's layout (offsets and filler)."""
    data, _ = build(gap=b"GAP!")
    model = read_iqm(data)
    model.joints["translate"][1] = (1, 2, 3)
    out = write_iqm(model)
    assert len(out) == len(data) and b"GAP!" in out
    changed = [i for i in range(len(data)) if out[i] != data[i]]
    start = reference_read(data)["header"]["ofs_joints"] + 48 + 8
    assert changed and min(changed) >= start and max(changed) < start + 12
    assert struct.unpack_from("<3f", out, start) == (1, 2, 3)


def test_channels_encoded_and_decoded_stay_within_half_a_step():
    rng = np.random.default_rng(47)
    channels = rng.uniform(-50, 50, (6, 4, 10)).astype(np.float32)
    channels[:, 1, 3:7] = (0, 0, 0, 1)                  # constant: no mask bit, no value in the frames
    channels[:, 2] = channels[0, 2]
    poses, frames = encode_channels(channels)
    assert [int(m) for m in poses["mask"]] == [0x3FF, 0x3FF & ~0b1111000, 0, 0x3FF]
    assert frames.shape == (6, 26) and frames.min() == 0 and frames.max() == 0xFFFF
    model = read_iqm(build()[0])
    poses["parent"] = (-1, 0, 1, 2)
    model.poses, model.frames, model.bounds = poses, frames, None
    model.anims = model.anims[:0]
    model.joints = np.resize(model.joints, 4)
    model.joints["parent"] = (-1, 0, 1, 2)
    decoded = frame_channels(read_iqm(write_iqm(model)))
    step = poses["channelscale"][None].astype(np.float64)
    assert (np.abs(decoded - channels) <= step / 2 + 1e-5).all()
    np.testing.assert_array_equal(decoded[:, 2], channels[:, 2])
    np.testing.assert_array_equal(decoded[:, 1, 3:7], np.tile([0, 0, 0, 1], (6, 1)))
