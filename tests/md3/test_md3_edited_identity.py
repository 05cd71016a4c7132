"""The edited MD3 export (issue 33) writes the previous code's bytes: a model root only scaled carries
positions and normals into model space by scaling each coordinate, not through ``np.einsum``; bit for bit
against einsum (the previous code) on random vectors with zeros of both signs and on diagonal, singular
and full maps; corpus MD3s scaled, squashed and turned through their root exported byte for byte as with
einsum; and the einsum over every vertex of every frame is gone for a scaled root (fails on the old code)."""
from __future__ import annotations

from importlib import import_module
from pathlib import Path

import numpy as np
import pytest

MD3_DIR = Path(__file__).resolve().parents[2].parent / "shared" / "corpus" / "md3"
MODELS = ["nexuiz/models/domination/dom_yellow.md3", "nexuiz/models/turrets/walker_body.md3",
          "openarena081/models/players/major/upper.md3"]
ROOT_EDITS = {"scaled": dict(scale=(1.1, 1.1, 1.1)), "squashed": dict(scale=(1.3, -0.7, 0.0625)),
              "turned": dict(scale=(1.1, 1.1, 1.1), rotation_euler=(0.3, 0.0, 1.2))}


def same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    return a.shape == b.shape and a.dtype == b.dtype and np.array_equal(a.view(np.uint8), b.view(np.uint8))


@pytest.mark.parametrize("subscripts", ["fvk,fjk->fvj", "fvk,fkj->fvj"])
def test_scaled_coordinates_are_einsums_bit_for_bit(extension, subscripts):
    build = import_module(f"{extension}.exporters.md3.build")
    rng = np.random.default_rng(31)
    vectors = rng.normal(size=(12, 400, 3)) * rng.choice([1e-3, 1.0, 300.0], size=(12, 400, 1))
    vectors[rng.random(vectors.shape) < 0.2] = 0.0
    vectors[rng.random(vectors.shape) < 0.2] = -0.0
    diagonals = [np.full(3, 1 / 1.1), np.array([-2.0, 0.5, -1e-3]), np.array([0.0, -1.0, 3.0]),
                 rng.normal(size=(12, 3))]
    for diagonal in diagonals:
        maps = np.zeros((12, 3, 3))
        maps[:, [0, 1, 2], [0, 1, 2]] = diagonal
        maps[:, 0, 1] = -0.0                                    # a negative zero off the diagonal
        assert same_bits(build._times(vectors, maps, subscripts), np.einsum(subscripts, vectors, maps))
    full = rng.normal(size=(12, 3, 3))
    assert same_bits(build._times(vectors, full, subscripts), np.einsum(subscripts, vectors, full))


def import_edited(bpy, name: str, edit: dict):
    path = MD3_DIR / name
    if not path.is_file():
        pytest.skip(f"corpus file not found: {path}")
    bpy.ops.wm.read_homefile(use_empty=True)
    bpy.ops.import_scene.md3(filepath=str(path))
    root = next(o for o in bpy.context.scene.objects if o.parent is None and o.type == "EMPTY")
    for attribute, value in edit.items():
        setattr(root, attribute, value)
    return root


@pytest.mark.parametrize("edit", sorted(ROOT_EDITS))
@pytest.mark.parametrize("name", MODELS)
def test_edited_corpus_md3_bytes_are_the_einsum_exports(bpy_scene, extension, monkeypatch, tmp_path, name, edit):
    build = import_module(f"{extension}.exporters.md3.build")
    import_edited(bpy_scene, name, ROOT_EDITS[edit])
    export = bpy_scene.ops.export_scene.md3
    assert export(filepath=str(tmp_path / "new.md3"), frame_source="TIMELINE") == {"FINISHED"}
    monkeypatch.setattr(build, "_times", lambda vectors, linear, subscripts: np.einsum(subscripts, vectors, linear))
    assert export(filepath=str(tmp_path / "old.md3"), frame_source="TIMELINE") == {"FINISHED"}
    assert (tmp_path / "new.md3").read_bytes() == (tmp_path / "old.md3").read_bytes()


def test_a_scaled_root_needs_no_einsum_over_the_vertices(bpy_scene, extension, monkeypatch, tmp_path):
    import_edited(bpy_scene, MODELS[0], ROOT_EDITS["scaled"])
    seen = []
    original = np.einsum
    monkeypatch.setattr(np, "einsum", lambda subscripts, *operands, **kw: seen.append(subscripts)
                        or original(subscripts, *operands, **kw))
    assert bpy_scene.ops.export_scene.md3(filepath=str(tmp_path / "m.md3"), frame_source="TIMELINE") == {"FINISHED"}
    assert "fvk,fjk->fvj" not in seen and "fvk,fkj->fvj" not in seen      # into model space: positions, normals
