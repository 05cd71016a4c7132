"""MD2 export grids in Blender: still vertices do not swim, half a step everywhere, Auto's choice,
untouched imports byte for byte in every mode."""
from __future__ import annotations

import numpy as np
import pytest
from support.environment import corpus_params
from support.md2_synthetic import grid_model

from formats.md2.codec import parse_md2, serialize_md2

GRIDS = ("AUTO", "SHARED", "PER_FRAME")
CORPUS_MD2 = [p for p in corpus_params("md2/*/*.md2")
              if p.values[0] is None or not ("malformed" in p.values[0].name or "corrupt" in str(p.values[0]))]


def export(bpy, obj, path, **options):
    bpy.context.view_layer.update()
    for other in bpy.context.view_layer.objects:
        other.select_set(other == obj)
    options.setdefault("frame_rate", "SCENE")     # the truth is one frame per scene frame
    assert bpy.ops.export_scene.md2(filepath=str(path), **options) == {"FINISHED"}
    return path.read_bytes()


def engine_decode(model) -> np.ndarray:
    """``byte * scale + translate`` with a float32 multiply and a float32 add, as engines do."""
    product = np.multiply(np.float32(model.frame_verts), np.float32(model.frame_scale)[:, None, :], dtype=np.float32)
    return np.add(product, np.float32(model.frame_translate)[:, None, :], dtype=np.float32)


def within_half_step(model, truth) -> bool:
    """Every decoded coordinate within half its frame's step (plus float32 rounding) of the truth."""
    error = np.abs(engine_decode(model).astype(np.float64) - truth)
    rounding = np.spacing(np.float32(np.abs(truth).max() + 1.0))
    return bool(np.all(error <= np.float64(model.frame_scale)[:, None, :] / 2 + rounding))


@pytest.fixture
def animated(bpy_scene):
    """The quality report's model: still pedestal, slow turret, fast flag; its truth per frame."""
    from tools.md2_quality_report import build_animated_model, true_positions
    obj, still = build_animated_model(bpy_scene)
    return obj, still, true_positions(bpy_scene, obj)


@pytest.mark.parametrize("grid", GRIDS)
def test_every_vertex_within_half_a_step(bpy_scene, animated, tmp_path, grid):
    obj, _, truth = animated
    model = parse_md2(export(bpy_scene, obj, tmp_path / "m.md2", grid=grid))
    assert model.num_frames == len(truth) == 40
    assert within_half_step(model, truth)


@pytest.mark.parametrize("grid", ("AUTO", "SHARED"))
def test_still_vertices_decode_identically_in_every_frame(bpy_scene, animated, tmp_path, grid):
    obj, still, truth = animated
    assert np.all(truth[:, still] == truth[:1, still]) and not np.all(truth == truth[:1])
    model = parse_md2(export(bpy_scene, obj, tmp_path / "m.md2", grid=grid))
    decoded = engine_decode(model)[:, still]
    assert np.array_equal(decoded, np.broadcast_to(decoded[:1], decoded.shape))
    assert np.all(model.frame_scale == model.frame_scale[:1])
    normals = model.frame_normals[:, still]
    assert np.array_equal(normals, np.broadcast_to(normals[:1], normals.shape))


def test_per_frame_grids_let_still_vertices_swim(bpy_scene, animated, tmp_path):
    """The model shows the problem: with today's grids the pedestal moves in the file; its normal
    indices, computed from the mesh, still do not change."""
    obj, still, _ = animated
    model = parse_md2(export(bpy_scene, obj, tmp_path / "m.md2", grid="PER_FRAME"))
    decoded = engine_decode(model)[:, still]
    assert not np.array_equal(decoded, np.broadcast_to(decoded[:1], decoded.shape))
    normals = model.frame_normals[:, still]
    assert np.array_equal(normals, np.broadcast_to(normals[:1], normals.shape))


def test_auto_reports_its_choice_and_largest_error(bpy_scene, animated, tmp_path, capsys):
    obj, _, truth = animated
    model = parse_md2(export(bpy_scene, obj, tmp_path / "m.md2"))
    largest = np.linalg.norm(engine_decode(model).astype(np.float64) - truth, axis=-1).max()
    out = capsys.readouterr().out
    assert "MD2 grid: one shared lattice (chosen by Auto) for 40 frame(s)" in out
    reported = float(out.split("largest error ")[1].split()[0])
    assert reported == pytest.approx(largest, rel=1e-3)


def test_frames_of_very_different_size_make_auto_choose_per_frame(bpy_scene, tmp_path, capsys):
    """A crouch: a tall thin frame and a long flat one; one lattice would be coarse on every axis."""
    bpy = bpy_scene
    rng = np.random.default_rng(5)
    cloud = rng.uniform(-1, 1, (40, 3))
    standing, lying = cloud * [8, 8, 28], cloud * [28, 8, 6]
    mesh = bpy.data.meshes.new("crouch")
    mesh.from_pydata(standing.tolist(), [], [(i, i + 1, i + 2) for i in range(0, 39, 3)])
    mesh.uv_layers.new(name="UVMap")
    obj = bpy.data.objects.new("crouch", mesh)
    bpy.context.scene.collection.objects.link(obj)
    obj.shape_key_add(name="Basis", from_mix=False)
    for name, shape in (("stand", standing), ("lie", lying), ("stand2", standing * 0.98)):
        key = obj.shape_key_add(name=name, from_mix=False)
        key.data.foreach_set("co", np.float32(shape).ravel())
        key.value = 0.0
    truth = np.stack([standing, lying, standing * 0.98])
    capsys.readouterr()
    auto = parse_md2(export(bpy, obj, tmp_path / "auto.md2", frame_source="SHAPE_KEYS"))
    assert "per-frame grids (chosen by Auto)" in capsys.readouterr().out
    per_frame = parse_md2(export(bpy, obj, tmp_path / "pf.md2", frame_source="SHAPE_KEYS", grid="PER_FRAME"))
    shared = parse_md2(export(bpy, obj, tmp_path / "sh.md2", frame_source="SHAPE_KEYS", grid="SHARED"))
    assert np.array_equal(auto.frame_scale, per_frame.frame_scale)
    assert np.array_equal(auto.frame_verts, per_frame.frame_verts)
    largest = {name: np.linalg.norm(engine_decode(m) - truth, axis=-1).max()
               for name, m in (("per_frame", per_frame), ("shared", shared))}
    assert largest["shared"] > 1.25 * largest["per_frame"]
    assert within_half_step(shared, truth) and within_half_step(per_frame, truth)


@pytest.mark.parametrize("grid", GRIDS)
def test_untouched_import_is_byte_identical_in_every_mode(bpy_scene, tmp_path, grid):
    bpy = bpy_scene
    data = serialize_md2(grid_model(nx=6, ny=5, frames=7))
    (tmp_path / "grid.md2").write_bytes(data)
    assert bpy.ops.import_scene.md2(filepath=str(tmp_path / "grid.md2")) == {"FINISHED"}
    obj = bpy.context.view_layer.objects.active
    assert export(bpy, obj, tmp_path / "again.md2", grid=grid) == data


@pytest.mark.parametrize("path", CORPUS_MD2[:1] + CORPUS_MD2[-1:])
def test_untouched_corpus_import_is_byte_identical_with_shared_grid(bpy_scene, tmp_path, path):
    bpy = bpy_scene
    assert bpy.ops.import_scene.md2(filepath=str(path)) == {"FINISHED"}
    obj = bpy.context.view_layer.objects.active
    data = path.read_bytes()
    end = int.from_bytes(data[64:68], "little")
    assert export(bpy, obj, tmp_path / "again.md2", grid="SHARED") == data[:end]


def test_edited_import_puts_changed_frames_on_the_shared_lattice(bpy_scene, tmp_path):
    """Frames the user changed get the chosen grid; the frames nobody touched keep theirs."""
    bpy = bpy_scene
    original = grid_model(nx=6, ny=5, frames=7)
    (tmp_path / "grid.md2").write_bytes(serialize_md2(original))
    assert bpy.ops.import_scene.md2(filepath=str(tmp_path / "grid.md2")) == {"FINISHED"}
    obj = bpy.context.view_layer.objects.active
    edited = [2, 3, 5]
    for f in edited:
        block = obj.data.shape_keys.key_blocks[original.frame_names[f]]
        co = np.empty(len(block.data) * 3, np.float32)
        block.data.foreach_get("co", co)
        co = co.reshape(-1, 3)
        co[0] += (0.37, -1.9, 2.3)
        block.data.foreach_set("co", co.ravel())
    model = parse_md2(export(bpy, obj, tmp_path / "out.md2", grid="SHARED"))
    others = [f for f in range(7) if f not in edited]
    np.testing.assert_array_equal(model.frame_verts[others], original.frame_verts[others])
    np.testing.assert_array_equal(model.frame_scale[others], original.frame_scale[others])
    assert np.all(model.frame_scale[edited] == model.frame_scale[edited[0]])
    assert not np.array_equal(model.frame_scale[edited], original.frame_scale[edited])
    truth = original.positions()[edited]
    truth[:, 0] += np.float32([0.37, -1.9, 2.3])
    assert within_half_step(model, np.concatenate([original.positions()[:2], truth[:2], original.positions()[4:5],
                                                   truth[2:], original.positions()[6:]]))
    same = np.all(truth == truth[:1], axis=0)                 # (V, 3): coordinates equal in the edited frames
    decoded = engine_decode(model)[edited]
    assert same.sum() >= 2 * truth.shape[1] - 2
    assert np.all(np.all(decoded == decoded[:1], axis=0)[same])
