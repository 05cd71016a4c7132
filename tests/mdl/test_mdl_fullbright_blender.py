"""MDL skins in Blender: the fullbright mask (painted -> exactly those pixels in 224-255), pixels that
did not change keeping their index, and new colours kept out of the player colour ranges.

Expected indices come from tests/support/colour_reference.py (a scalar CIEDE2000 written separately from the
exporter's), the written files are read with the independent decoder tests/support/mdl_reference.py."""
from __future__ import annotations

import importlib

import numpy as np
import pytest
from support.colour_reference import ciede2000 as reference_de
from support.colour_reference import lab, nearest
from support.environment import CORPUS, corpus_files, needs_bpy
from support.mdl_reference import decode
from support.operators import export_mdl, import_mdl
from support.skins import NOT_PLAYER, PLAYER, new_model, set_rgb

from formats.images.palette import quake_palette
from formats.mdl.codec import parse_mdl, serialize_mdl

FULLBRIGHT = list(range(224, 256))


def corpus_mdl(name: str):
    found = corpus_files(f"mdl/*/{name}")
    if not found:
        pytest.skip(f"corpus file mdl/*/{name} not found under {CORPUS}")
    return found[0]


def get_rgb(image) -> np.ndarray:
    """(h, w, 3) uint8, top row first."""
    width, height = image.size
    pixels = np.empty(width * height * 4, np.float32)
    image.pixels.foreach_get(pixels)
    return np.rint(pixels.reshape(height, width, 4)[::-1, :, :3] * 255).astype(np.uint8)


def skin_indices(data: bytes, slot: int = 0) -> np.ndarray:
    ref = decode(data)
    return np.frombuffer(ref.skins[slot].images[0], np.uint8).reshape(ref.skin_height, ref.skin_width)


def in_ranges(indices: np.ndarray) -> int:
    return int(np.isin(indices, PLAYER).sum())


def test_painted_mask_is_exactly_the_fullbright_pixels_of_a_new_model(bpy_scene, tmp_path):
    bpy = bpy_scene
    rgb = np.random.default_rng(7).integers(0, 256, (16, 32, 3), dtype=np.uint8)
    obj, image = new_model(bpy, "lamp", rgb)
    assert bpy.ops.classic_models.add_fullbright_mask() == {"FINISHED"}
    tree = obj.active_material.node_tree
    node = tree.nodes["mdl_fullbright_0"]
    mask = node.image
    assert mask.name == "lamp paint Fullbright" and node.label == "Fullbright Mask"
    assert tuple(mask.size) == tuple(image.size) and not get_rgb(mask).any()      # starts all lit
    bsdf = next(n for n in tree.nodes if n.type == "BSDF_PRINCIPLED")
    assert bsdf.inputs["Emission Color"].is_linked
    painted = np.zeros((16, 32), bool)
    painted[3:9, 5:20] = True
    painted[12, :] = True
    set_rgb(mask, np.where(painted[..., None], 255, 0).astype(np.uint8))
    indices = skin_indices(export_mdl(bpy, obj, tmp_path / "lamp.mdl"))
    np.testing.assert_array_equal(indices >= 224, painted)
    palette = quake_palette()
    for y, x in np.argwhere(painted)[::7]:
        assert indices[y, x] == nearest(rgb[y, x], palette, FULLBRIGHT)
    for y, x in np.argwhere(~painted)[::7]:
        assert indices[y, x] == nearest(rgb[y, x], palette, NOT_PLAYER)


def test_repainting_follows_the_colour_unless_the_mask_is_painted(bpy_scene, tmp_path, capsys):
    """Issue 26: repainting a fullbright area with an ordinary colour must not keep it fullbright.
    Fullbright pixels repainted brown with the mask left as imported come out lit, repainted with a
    fire colour stay fullbright; brown under a mask cleared by hand is lit, ordinary pixels under a
    mask painted white are fullbright; every other pixel keeps its byte."""
    bpy = bpy_scene
    path = corpus_mdl("b_g_key.mdl")
    original = skin_indices(path.read_bytes())
    obj = import_mdl(bpy, path)
    nodes = obj.data.materials[0].node_tree.nodes
    image, mask = nodes["mdl_skin_0"].image, nodes["mdl_fullbright_0"].image
    assert mask.name.endswith(" Fullbright")
    np.testing.assert_array_equal(get_rgb(mask)[..., 0] == 255, original >= 224)
    fullbright = np.argwhere(original >= 224)
    cleared, browned, fired = fullbright[0::3], fullbright[1::3], fullbright[2::3]
    lit = np.argwhere(original < 224)[:40]                       # colour kept, mask painted white
    rgb, mask_rgb = get_rgb(image), get_rgb(mask)
    palette = quake_palette()
    brown, fire = np.array([90, 60, 40], np.uint8), palette[250]
    for y, x in np.concatenate([cleared, browned]):
        rgb[y, x] = brown
    for y, x in fired:
        rgb[y, x] = fire
    for y, x in cleared:
        mask_rgb[y, x] = 0
    for y, x in lit:
        mask_rgb[y, x] = 255
    set_rgb(image, rgb)
    set_rgb(mask, mask_rgb)
    capsys.readouterr()
    indices = skin_indices(export_mdl(bpy, obj, tmp_path / "key.mdl"))
    report = capsys.readouterr().out
    # masked pixels more than 10 (CIEDE2000) from their fullbright colour are reported: those of the
    # newly masked pixels whose own colour is that far
    def far(colour) -> bool:
        return reference_de(lab(colour), lab(palette[nearest(colour, palette, FULLBRIGHT)])) > 10
    assert far(brown) and nearest(brown, palette, range(256)) < 224 and nearest(fire, palette, range(256)) == 250
    count = sum(far(palette[original[y, x]]) for y, x in lit)
    assert (f"{image.name!r}: {count} pixel(s) white in its fullbright mask are far from every "
            "fullbright colour") in report
    assert {int(indices[y, x]) for y, x in np.concatenate([cleared, browned])} == {nearest(brown, palette, NOT_PLAYER)}
    assert {int(indices[y, x]) for y, x in fired} == {250}
    for y, x in lit:
        assert indices[y, x] == nearest(palette[original[y, x]], palette, FULLBRIGHT)
    untouched = np.ones(original.shape, bool)
    for y, x in np.concatenate([cleared, browned, fired, lit]):
        untouched[y, x] = False
    np.testing.assert_array_equal(indices[untouched], original[untouched])
    assert np.isin(original[untouched], PLAYER).any()           # kept even inside the player ranges


def test_soldier_like_edit_keeps_every_untouched_index(bpy_scene, tmp_path):
    """A skin using repeated palette colours (175 = 16, 48 = 0, 80-82 = 51-53...) and the shirt range:
    editing one region must not move any other pixel (the issue: 377 pixels went from 175 to 16)."""
    bpy = bpy_scene
    model = parse_mdl(corpus_mdl("zombie.mdl").read_bytes())
    skin = model.skins[0].images[0]
    repeats = np.array([175, 48, 80, 81, 82, 192, 207, 157, 158, 159, 223], np.uint8)
    skin[:20, :66] = np.resize(repeats, (20, 66))
    path = tmp_path / "soldier.mdl"
    path.write_bytes(serialize_mdl(model))
    original = skin_indices(path.read_bytes())
    obj = import_mdl(bpy, path)
    image = obj.data.materials[0].node_tree.nodes["mdl_skin_0"].image
    rgb = get_rgb(image)
    region = np.zeros(original.shape, bool)
    region[200:240, 40:200] = True
    ys, xs = np.nonzero(region)
    rgb[ys, xs] = np.stack([xs * 255 // 200, (ys - 200) * 6, np.full_like(xs, 120)], -1).clip(0, 255)
    set_rgb(image, rgb)
    indices = skin_indices(export_mdl(bpy, obj, tmp_path / "soldier_edit.mdl"))
    np.testing.assert_array_equal(indices[~region], original[~region])
    assert np.isin(original[~region], repeats).sum() >= 1320 and in_ranges(original[~region]) > 1000
    assert in_ranges(indices[region]) == 0 and int(indices[region].max()) < 224


def gradient(size: int = 64) -> np.ndarray:
    x = np.linspace(0, 255, size)
    return np.stack([np.broadcast_to(x, (size, size)), np.broadcast_to(x[:, None], (size, size)),
                     np.full((size, size), 60.0)], -1).round().astype(np.uint8)


@pytest.mark.parametrize("name, option, player, palette", [
    ("crate", "AUTO", False, "QUAKE"), ("crate", "ON", True, "QUAKE"), ("player", "AUTO", True, "QUAKE"),
    ("player", "OFF", False, "QUAKE"), ("crate", "OFF", True, "HEXEN2")])     # Hexen II: Quake's ranges do not apply
def test_gradient_stays_out_of_the_player_ranges_unless_a_player(bpy_scene, tmp_path, name, option, player, palette):
    bpy = bpy_scene
    rgb = gradient()
    obj, _ = new_model(bpy, name, rgb)
    indices = skin_indices(export_mdl(bpy, obj, tmp_path / f"{name}.mdl", player_colours=option, palette=palette))
    count = in_ranges(indices)
    if player:
        assert count > 0.05 * indices.size       # the gradient put 12 % there
    else:
        assert count == 0
        palette = quake_palette()
        for y, x in [(0, 0), (10, 50), (40, 20), (63, 63), (31, 32)]:
            assert indices[y, x] == nearest(rgb[y, x], palette, NOT_PLAYER)


def test_quake_player_is_a_player_by_default(bpy_scene, tmp_path):
    bpy = bpy_scene
    path = corpus_mdl("player.mdl")
    original = skin_indices(path.read_bytes())
    obj = import_mdl(bpy, path)
    image = obj.data.materials[0].node_tree.nodes["mdl_skin_0"].image
    rgb = get_rgb(image)
    region = np.zeros(original.shape, bool)
    region[100:164, 0:64] = True
    rgb[region] = gradient().reshape(-1, 3)
    set_rgb(image, rgb)
    indices = skin_indices(export_mdl(bpy, obj, tmp_path / "player.mdl"))
    np.testing.assert_array_equal(indices[~region], original[~region])
    assert in_ranges(indices[region]) > 0
    off = skin_indices(export_mdl(bpy, obj, tmp_path / "player_off.mdl", player_colours="OFF"))
    assert in_ranges(off[region]) == 0
    np.testing.assert_array_equal(off[~region], original[~region])


def test_a_mask_node_made_by_hand_still_counts(bpy_scene, tmp_path):
    """Files saved before the mask had a button: a node named mdl_fullbright_0 holding any image."""
    bpy = bpy_scene
    rgb = np.random.default_rng(3).integers(0, 256, (8, 16, 3), dtype=np.uint8)
    obj, image = new_model(bpy, "old", rgb)
    mask = bpy.data.images.new("old_fullbright", 16, 8)
    painted = np.zeros((8, 16), bool)
    painted[:, :5] = True
    set_rgb(mask, np.where(painted[..., None], 255, 0).astype(np.uint8))
    tree = obj.active_material.node_tree
    node = tree.nodes.new("ShaderNodeTexImage")
    node.name, node.image = "mdl_fullbright_0", mask
    tree.nodes.active = node                      # first in no particular order: the skin is still found
    indices = skin_indices(export_mdl(bpy, obj, tmp_path / "old.mdl"))
    np.testing.assert_array_equal(indices >= 224, painted)


def test_panels_draw(bpy_scene, extension):
    """Both panels poll and draw for a material with and without a mask (no exception in draw)."""
    bpy = bpy_scene
    obj, _ = new_model(bpy, "drawn", gradient(8))
    panels = (bpy.types.VIEW3D_PT_classic_model_fullbright, bpy.types.MATERIAL_PT_classic_model_fullbright)
    assert all(panel.poll(bpy.context) for panel in panels)
    draw_fullbright = importlib.import_module(f"{extension}.ui.fullbright").draw_fullbright

    class Layout:                       # records what draw asks for
        def __init__(self):
            self.texts = []

        def column(self, **_):
            return self

        def row(self, **_):
            return self

        def label(self, text="", **_):
            self.texts.append(text)

        def operator(self, idname, text="", **_):
            self.texts.append(text or idname)
            return type("Props", (), {})()
    before = Layout()
    draw_fullbright(before, bpy.context)
    assert "classic_models.add_fullbright_mask" in before.texts
    assert bpy.ops.classic_models.add_fullbright_mask() == {"FINISHED"}
    after = Layout()
    draw_fullbright(after, bpy.context)
    assert "Mask: drawn paint Fullbright" in after.texts and "Paint Mask" in after.texts


def test_add_mask_on_an_import_starts_from_its_fullbright_pixels_and_paint_selects_it(bpy_scene):
    bpy = bpy_scene
    path = corpus_mdl("missile.mdl")
    original = skin_indices(path.read_bytes())
    obj = import_mdl(bpy, path)
    material = obj.data.materials[0]
    old = material.node_tree.nodes["mdl_fullbright_0"]
    material.node_tree.nodes.remove(old)
    assert bpy.ops.classic_models.add_fullbright_mask() == {"FINISHED"}
    mask = material.node_tree.nodes["mdl_fullbright_0"].image
    np.testing.assert_array_equal(get_rgb(mask)[..., 0] == 255, original >= 224)
    assert bpy.ops.classic_models.paint_fullbright(target="MASK") == {"FINISHED"}
    assert material.texture_paint_images[material.paint_active_slot] == mask
    assert bpy.context.object.mode == "TEXTURE_PAINT"
    assert bpy.ops.classic_models.paint_fullbright(target="SKIN") == {"FINISHED"}
    assert material.texture_paint_images[material.paint_active_slot] == material.node_tree.nodes["mdl_skin_0"].image


def test_command_line_player_colours_flag(run, tmp_path):
    """convert --to mdl --player-colours: a Quake II player's skin in Quake's palette, as a player or not."""
    needs_bpy()
    found = corpus_files("md2/petaaar88-zarlag/tris.md2")
    if not found:
        pytest.skip(f"corpus file md2/petaaar88-zarlag/tris.md2 not found under {CORPUS}")
    counts = {}
    for choice in ("on", "off", "auto"):
        result = run("convert", found[0], "--to", "mdl", "-o", tmp_path / choice, "--player-colours", choice)
        assert result.returncode == 0, result.stdout + result.stderr
        counts[choice] = in_ranges(skin_indices((tmp_path / choice / "tris.mdl").read_bytes()))
    assert counts["on"] > 0 and counts["off"] == 0 and counts["auto"] == 0      # tris.mdl: not named player
