"""The top-left texel fill of Quake's and Quake II's skin loads (formats/images/corner_fill.py): the region
found equals the texels an independent replay of the engines' loop repaints; faces are counted by the
texel under their centre; ``info``/``check`` and the exporters' shared line say it; real skins made for
the games never trip it."""
from __future__ import annotations

import numpy as np
import pytest
from support.environment import CORPUS, corpus_files
from support.md2_synthetic import grid_model
from support.skin_fill import engine_fill

from formats.images.corner_fill import QUAKE2, corner_hits, corner_note, corner_region, faces_in_region
from formats.images.pcx import decode_pcx
from formats.md2.codec import parse_md2, serialize_md2
from formats.md2.skin_fill import corner_fill_note as md2_note
from formats.mdl.codec import parse_mdl
from formats.mdl.skin_fill import corner_fill_note as mdl_note


@pytest.mark.parametrize("seed", range(40))
def test_the_region_is_what_the_engines_repaint(seed):
    rng = np.random.default_rng(seed)
    height, width = rng.integers(1, 48, 2)
    skin = rng.integers(1, 2 + seed % 4, (height, width)).astype(np.uint8)
    skin[rng.random((height, width)) < 0.05] = 255          # holes: the engines never fill across them
    repainted = engine_fill(skin) != skin                   # a filled texel never keeps the fill colour
    assert np.array_equal(corner_region(skin), repainted)


@pytest.mark.parametrize("corner", [0, 255])
def test_a_black_or_transparent_corner_is_left_alone(corner):
    skin = np.full((8, 8), 7, np.uint8)
    skin[0, 0] = corner
    assert not corner_region(skin).any()
    assert np.array_equal(engine_fill(skin), skin)


def test_faces_count_by_the_texel_under_their_centre():
    skin = np.full((16, 16), 9, np.uint8)
    skin[:, 8:] = 40                                  # left half: the corner's colour; right half another
    left = [[1, 1], [7, 1], [1, 7]]
    right = [[9, 1], [15, 1], [9, 7]]
    rim = [[2, 2], [12, 2], [12, 14]]                 # corners on both sides, centre (8.7, 6) on the right
    flat = [[1, 1], [2, 2], [3, 3]]                   # no area
    region = corner_region(skin)
    assert faces_in_region(region, np.array([left, right, rim, flat], float)) == 1
    assert faces_in_region(region, np.array([left, left], float)) == 2
    assert faces_in_region(np.zeros_like(region), np.array([left], float)) == 0


def test_one_line_for_every_skin_with_counts():
    skin = np.full((4, 4), 5, np.uint8)
    triangles = np.array([[[0, 0], [4, 0], [0, 4]]] * 3, float)
    hits = corner_hits([("0", skin), ("1", np.zeros((4, 4), np.uint8)), ("2", skin)], triangles)
    assert [label for label, _, _ in hits] == ["0", "2"]
    lines = corner_note(hits, 3, QUAKE2)
    assert len(lines) == 1
    assert lines[0].startswith("skins 0, 2: up to 3 of the 3 faces are painted in the colour of the skin's "
                               "top-left texel (index 5)")
    assert "IMG_FloodFill" in lines[0] and "make the top-left texel black (index 0)" in lines[0]
    assert corner_note([], 3, QUAKE2) == []


def painted_md2() -> tuple:
    """A grid MD2 and a PCX whose top-left colour reaches every face, and one with a black corner."""
    model = grid_model()
    painted = np.full((model.skin_height, model.skin_width), 100, np.uint8)
    black = painted.copy()
    black[0, 0] = 0
    return model, painted, black


def test_an_md2_skin_whose_corner_colour_paints_the_faces_is_reported():
    model, painted, black = painted_md2()
    lines = md2_note(model, [("a.pcx", painted)])
    assert len(lines) == 1 and lines[0].startswith(f"skin a.pcx: {len(model.tri_st)} of the {len(model.tri_st)} faces")
    assert "Quake II" in lines[0]
    assert md2_note(model, [("a.pcx", black)]) == []


def test_cli_check_reports_the_corner_fill_of_an_md2_skin(run, tmp_path):
    from support.image_files import reference_palette, write_pcx
    palette = reference_palette("quake2")
    if palette is None:
        pytest.skip("reference Quake II palette not found in ../shared/reference")
    model, painted, black = painted_md2()
    folder = tmp_path / "models" / "thing"
    folder.mkdir(parents=True)
    model.skins = ["models/thing/skin.pcx"]
    (folder / "tris.md2").write_bytes(serialize_md2(model))
    write_pcx(folder / "skin.pcx", painted, palette)
    result = run("check", folder / "tris.md2", block_bpy=True)
    assert result.returncode == 1, result.stdout
    assert f"{folder / 'tris.md2'}: warning: skins @ offset 68: skin skin.pcx: " in result.stdout
    assert "drawn black" in result.stdout
    write_pcx(folder / "skin.pcx", black, palette)
    result = run("check", folder / "tris.md2", block_bpy=True)
    assert result.returncode == 0 and "drawn black" not in result.stdout, result.stdout


def test_real_skins_made_for_the_games_are_never_reported():
    """Every corpus MDL (its own skins) and every corpus MD2 beside one PCX only: no face in the fill."""
    mdls, md2s = corpus_files("mdl/**/*.mdl"), corpus_files("md2/**/*.md2")
    if not mdls:
        pytest.skip(f"corpus not found at {CORPUS}")
    checked = 0
    for path in mdls:
        try:
            model = parse_mdl(path.read_bytes())
        except Exception:            # deliberately broken files: their own tests
            continue
        assert mdl_note(model) == [], path
        checked += 1
    for path in md2s:
        pcx = [p for p in path.parent.iterdir() if p.suffix.lower() == ".pcx"]
        models = [p for p in path.parent.iterdir() if p.suffix.lower() == ".md2"]
        if len(pcx) != 1 or len(models) != 1:
            continue                 # which skin is whose is not known
        try:
            model, indices = parse_md2(path.read_bytes()), decode_pcx(pcx[0].read_bytes()).indices
        except Exception:
            continue
        if indices is not None:
            assert md2_note(model, [(pcx[0].name, indices)]) == [], path
            checked += 1
    assert checked >= 10
