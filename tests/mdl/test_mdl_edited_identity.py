"""The MDL export's fixed costs cut for issue 33: an unchanged skin's pixels compared with their imported indices
once, not three times; an edited model's frames not checked against the imported grid past the first frame
(both fail on the old code); and each new pose's bounding box the plain per-axis minimum and maximum of its
vertices. The corpus's librequake MDLs and the benchmark's engine-limit MDL. That the skin indices, drift,
warnings, grid, radius and size are the same bytes as before is checked on demand against any base commit by
tests/export/test_edited_export_files_identity.py (tools/edited_identity.py: the MDLs untouched, scaled, squashed
and repainted); their values are proven by tests/mdl/test_mdl_fullbright_blender.py, tests/images/test_palette.py
and tests/mdl/test_mdl_rescaled_blender.py."""
from __future__ import annotations

from importlib import import_module

import numpy as np
import pytest
from support.environment import corpus_files

from formats.images.palette import FULLBRIGHT_START, game_palette, indices_to_rgba
from formats.mdl.codec import parse_mdl, serialize_mdl

MDL_MODELS = ("zombie.mdl", "player.mdl", "oldone.mdl")


def skin_case(seed: int, size=(96, 160), repainted: int = 800):
    """A kept skin (indices, their colours with a few pixels repainted) and a mask as imported, painted white
    over ordinary colours and black over fullbright ones in places, some pixels exactly at the threshold."""
    rng = np.random.default_rng(seed)
    palette = game_palette("QUAKE")
    keep = rng.integers(0, 256, size, dtype=np.uint8)
    rgba = indices_to_rgba(keep, palette)
    rows, cols = rng.integers(0, size[0], repainted), rng.integers(0, size[1], repainted)
    rgba[rows, cols, :3] = rng.integers(0, 256, (repainted, 3), dtype=np.uint8)
    fire = min(50, repainted)
    rgba[rows[:fire], cols[:fire], :3] = palette[rng.integers(224, 256, fire)]     # repainted with fire colours
    mask = np.zeros(rgba.shape, np.uint8)
    mask[..., 3] = 255
    mask[keep >= FULLBRIGHT_START, :3] = 255
    mask[:12, :30, :3] = 255
    mask[60:, 100:, :3] = 0
    mask[rng.random(size) < 0.01, :3] = (127, 128, 129)                      # sums 384: white
    return rgba, mask, keep, palette


def blender_image(bpy, name: str, rgba: np.ndarray, indices: np.ndarray | None = None):
    height, width = rgba.shape[:2]
    image = bpy.data.images.new(name, width, height, alpha=True)
    image.pixels.foreach_set((rgba[::-1].astype(np.float32) / 255.0).ravel())
    if indices is not None:
        image["mdl_indices"] = indices.tobytes()
    return image


def test_an_unchanged_skin_is_compared_with_its_indices_once(bpy_scene, extension, monkeypatch):
    """The previous code compared every pixel with its imported index three times (the fullbright decision,
    the kept pixels, the far-from-fullbright count); now once, and the count looks only at masked pixels
    that did not keep their index."""
    modules = [import_module(f"{extension}.{name}") for name in
               ("exporters.mdl.skin_indices", "exporters.mdl.fullbright", "formats.images.palette")]
    compared = []
    for module in modules:
        original = getattr(module, "shows_index", None)
        if original is not None:
            def counting(rgb, indices, palette, original=original):
                compared.append(indices.size)
                return original(rgb, indices, palette)
            monkeypatch.setattr(module, "shows_index", counting)
    rgba, mask, keep, palette = skin_case(34, (128, 256), repainted=0)
    image = blender_image(bpy_scene, "skin", rgba, keep)
    mask_image = blender_image(bpy_scene, "skin Fullbright", mask)
    converter = import_module(modules[0].__name__).SkinConverter(palette, False, (), [])
    converter.image(image, mask_image)
    assert compared[0] == keep.size and sum(compared[1:]) < keep.size / 20, compared     # before: 3 x the skin


def corpus_models():
    """(name, model) of the corpus librequake MDLs and the benchmark's engine-limit MDL."""
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
    from benchmark import synthetic_mdl
    models = [("synthetic", parse_mdl(serialize_mdl(synthetic_mdl())))]
    for name in MDL_MODELS:
        models += [(name, parse_mdl(path.read_bytes())) for path in corpus_files(f"mdl/librequake/{name}")]
    if len(models) == 1:
        pytest.skip("corpus librequake MDLs not found")
    return models


def corpus_frames():
    """(name, stored grid, positions, file triangles) of :func:`corpus_models`."""
    for name, model in corpus_models():
        stored = [float(x) for x in (*model.scale, *model.translate)]
        yield name, stored, model.positions(), model.triangles


def test_an_edited_model_is_checked_against_its_grid_on_the_first_frame_only(extension, monkeypatch):
    """The previous code quantised every frame onto the imported grid to find the scaled model off it."""
    build = import_module(f"{extension}.exporters.mdl.build")
    checked = []
    original = build.frames_on_grid
    monkeypatch.setattr(build, "frames_on_grid", lambda p, *rest: checked.append(len(p)) or original(p, *rest))
    name, stored, positions, _ = max(corpus_frames(), key=lambda item: item[2].size)
    scaled = (positions * np.float32(1.1)).astype(np.float32)
    if hasattr(build, "_bounds"):
        build._grid({"mdl_grid": stored}, scaled, build._bounds(scaled))
    else:
        build._grid({"mdl_grid": stored}, scaled)
    assert sum(checked) == 1, (name, checked)


def test_pose_bounding_boxes_are_each_poses_minimum_and_maximum(extension):
    """Each new pose's bounding box, now reduced over rows of one axis's bytes, is the plain per-axis
    minimum and maximum over the pose's vertices."""
    build = import_module(f"{extension}.exporters.mdl.build")
    for name, model in corpus_models():
        verts = model.pose_verts
        match, count = np.full(len(verts), -1), verts.shape[1]
        lo, hi, kept = build._poses(verts, match, None,
                                    lambda redo, count=count: np.zeros((len(redo), count), np.uint8))[1:4]
        assert not kept.any()
        np.testing.assert_array_equal(lo[:, :3], verts.min(axis=1))
        np.testing.assert_array_equal(hi[:, :3], verts.max(axis=1))
        assert not lo[:, 3].any() and not hi[:, 3].any(), name
