"""MD2 skins both ways, on the tests' own small files: the import's fallback lookup and its report,
Skin Image, PCX Colours; the export's game-path names, PCX/PNG/TGA files checked by independent
decoders, byte-for-byte copies, the replace rule and hostile names writing nothing outside."""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
from support.image_files import read_pcx, read_png, read_tga, reference_palette, write_pcx, write_png
from support.operators import export_md2, import_md2

from formats.md2.codec import parse_md2

RNG = np.random.default_rng(14)


def random_rgba(h: int = 8, w: int = 16) -> np.ndarray:
    rgba = RNG.integers(0, 256, (h, w, 4)).astype(np.uint8)
    rgba[..., 3] = 255
    return rgba


# -- import -----------------------------------------------------------------------------------

def test_own_image_when_the_file_names_none_and_export_stays_byte_identical(bpy_scene, tmp_path, capsys):
    bpy = bpy_scene
    path = md2_file(tmp_path / "in" / "wolf.md2", [])
    rgba = random_rgba()
    write_png(tmp_path / "in" / "wolf_texture.png", rgba)
    obj = import_md2(bpy, path)
    assert "wolf_texture.png beside the model (named after the model); the file names no skin" in capsys.readouterr().out
    np.testing.assert_array_equal(image_rgba(shown_image(obj)), rgba)
    out = tmp_path / "out" / "wolf.md2"
    assert export_md2(bpy, obj, out) == path.read_bytes()
    assert parse_md2(out.read_bytes()).skins == []
    assert files_under(tmp_path / "out") == {out}


def test_own_image_fills_in_for_a_missing_stored_name(bpy_scene, tmp_path, capsys):
    bpy = bpy_scene
    path = md2_file(tmp_path / "gun.md2", ["models/weapons/v_machn/skin.pcx"])
    rgba = random_rgba()
    write_png(tmp_path / "gun.png", rgba)
    obj = import_md2(bpy, path)
    out = capsys.readouterr().out
    assert "gun.png beside the model (the model's own name); the file names 'models/weapons/v_machn/skin.pcx', not found" in out
    assert obj.data.materials[0]["md2_skin"] == "models/weapons/v_machn/skin.pcx"
    np.testing.assert_array_equal(image_rgba(shown_image(obj)), rgba)
    assert export_md2(bpy, obj, tmp_path / "o" / "gun.md2", skins="NAMES") == path.read_bytes()


def test_player_skins_one_material_each_first_on_the_faces(bpy_scene, tmp_path):
    bpy = bpy_scene
    folder = tmp_path / "players" / "zarlag"
    path = md2_file(folder / "tris.md2", ["models/maxx/skin.pcx"])
    palette = RNG.integers(0, 256, (256, 3)).astype(np.uint8)
    for name in ("red", "blue"):
        write_pcx(folder / f"{name}.pcx", RNG.integers(0, 256, (8, 16)).astype(np.uint8), palette)
        write_pcx(folder / f"{name}_i.pcx", np.zeros((4, 4), np.uint8), palette)
    write_pcx(folder / "green.pcx", np.zeros((8, 16), np.uint8), palette)
    obj = import_md2(bpy, path)
    shown = [next(n.image for n in m.node_tree.nodes if n.type == "TEX_IMAGE").name for m in obj.data.materials]
    assert shown == ["blue.pcx", "red.pcx"]
    assert shown_image(obj).name == "blue.pcx"
    assert obj.data.materials[1].get("md2_skin_found")
    assert export_md2(bpy, obj, tmp_path / "o" / "tris.md2", skins="NAMES") == path.read_bytes()


def test_another_models_image_is_not_borrowed(bpy_scene, tmp_path, capsys):
    bpy = bpy_scene
    md2_file(tmp_path / "dolphin.md2", [])
    path = md2_file(tmp_path / "flag.md2", [])
    write_png(tmp_path / "dolphin_f.png", random_rgba())
    obj = import_md2(bpy, path)
    assert len(obj.data.materials) == 0
    assert "flag.md2: no skin image found" in capsys.readouterr().out


def test_skin_image_option(bpy_scene, tmp_path, capsys):
    bpy = bpy_scene
    path = md2_file(tmp_path / "m" / "box.md2", [])
    write_png(tmp_path / "m" / "box.png", random_rgba())
    rgba = random_rgba(4, 4)
    given = write_png(tmp_path / "elsewhere" / "paint.png", rgba)
    obj = import_md2(bpy, path, skin_image=str(given))
    np.testing.assert_array_equal(image_rgba(shown_image(obj)), rgba)
    assert "paint.png given as Skin Image; the file names no skin" in capsys.readouterr().out

    named = md2_file(tmp_path / "n" / "crate.md2", ["crate.pcx"])
    write_pcx(tmp_path / "n" / "crate.pcx", np.zeros((4, 4), np.uint8), np.zeros((256, 3), np.uint8))
    obj = import_md2(bpy, named, skin_image=str(given))
    assert obj.data.materials[0]["md2_skin"] == "crate.pcx"
    np.testing.assert_array_equal(image_rgba(shown_image(obj)), rgba)
    assert "paint.png given as Skin Image; instead of the skins the file names" in capsys.readouterr().out


@pytest.mark.parametrize("colours", ["FILE", "GAME"])
def test_pcx_colours_option(bpy_scene, tmp_path, colours):
    bpy = bpy_scene
    quake2 = reference_palette("quake2")
    if quake2 is None:
        pytest.skip("reference Quake II palette not found in ../shared/reference")
    stored = quake2.copy()
    stored[:16] = 255 - stored[:16]
    indices = np.tile(np.arange(32, dtype=np.uint8), (4, 1))
    path = md2_file(tmp_path / "thing.md2", ["thing.pcx"])
    write_pcx(tmp_path / "thing.pcx", indices, stored)
    obj = import_md2(bpy, path, pcx_colours=colours)
    expected = (stored if colours == "FILE" else quake2)[indices]
    np.testing.assert_array_equal(image_rgba(shown_image(obj))[..., :3], expected)


# -- export -----------------------------------------------------------------------------------


def palette_exact_image(palette: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """An image made of distinct Quake II colours (first index of each) and transparent pixels."""
    _, first = np.unique(palette[:255], axis=0, return_index=True)
    pick = RNG.choice(np.sort(first), (16, 32)).astype(np.uint8)
    rgba = np.empty((16, 32, 4), np.uint8)
    rgba[..., :3] = palette[pick]
    rgba[..., 3] = 255
    clear = RNG.random((16, 32)) < 0.2
    rgba[clear, 3] = 0
    rgba[0, 0, 3], rgba[0, 1, 3] = 127, 128
    clear[0, 0], clear[0, 1] = True, False
    expected = pick.copy()
    expected[clear] = 255
    return rgba, expected


def test_pcx_skin_under_the_game_folder(bpy_scene, tmp_path, capsys):
    bpy = bpy_scene
    quake2 = reference_palette("quake2")
    if quake2 is None:
        pytest.skip("reference Quake II palette not found in ../shared/reference")
    rgba, expected = palette_exact_image(quake2)
    obj = blender_model(bpy, rgba)
    out = tmp_path / "quake2" / "baseq2" / "models" / "x" / "tris.md2"
    model = parse_md2(export_md2(bpy, obj, out))
    assert model.skins == ["models/x/crate_paint.pcx"]
    assert (model.skin_width, model.skin_height) == (32, 16)
    skin = out.parent / "crate_paint.pcx"
    assert f"wrote skin {skin}" in capsys.readouterr().out
    indices, palette = read_pcx(skin.read_bytes())
    np.testing.assert_array_equal(palette, quake2)
    np.testing.assert_array_equal(indices, expected)
    assert files_under(tmp_path) == {out, skin}


def test_bare_name_outside_a_game_folder_and_skin_path(bpy_scene, tmp_path, capsys):
    bpy = bpy_scene
    obj = blender_model(bpy, random_rgba())
    out = tmp_path / "art" / "crate.md2"
    assert parse_md2(export_md2(bpy, obj, out)).skins == ["crate_paint.pcx"]
    assert "the game will not find them" in capsys.readouterr().out
    assert (tmp_path / "art" / "crate_paint.pcx").is_file()
    assert parse_md2(export_md2(bpy, obj, out, skin_path="models\\crate\\")).skins == ["models/crate/crate_paint.pcx"]


@pytest.mark.parametrize("mode, reader", [("PNG", read_png), ("TGA", read_tga)])
def test_true_colour_skins(bpy_scene, tmp_path, mode, reader):
    bpy = bpy_scene
    rgba = RNG.integers(0, 256, (8, 16, 4)).astype(np.uint8)
    obj = blender_model(bpy, rgba)
    out = tmp_path / "baseq2" / "players" / "x" / "tris.md2"
    assert parse_md2(export_md2(bpy, obj, out, skins=mode)).skins == ["players/x/crate_paint.pcx"]
    np.testing.assert_array_equal(reader((out.parent / f"crate_paint.{mode.lower()}").read_bytes()), rgba)


def test_different_image_sizes_are_refused(bpy_scene, tmp_path):
    bpy = bpy_scene
    obj = blender_model(bpy, random_rgba(8, 8))
    other = bpy.data.materials.new("other")
    if bpy.app.version < (5, 0, 0):
        other.use_nodes = True
    node = other.node_tree.nodes.new("ShaderNodeTexImage")
    node.image = bpy.data.images.new("big", 16, 16)
    obj.data.materials.append(other)
    obj.select_set(True)
    with pytest.raises(RuntimeError, match="differ in size"):
        bpy.ops.export_scene.md2(filepath=str(tmp_path / "m.md2"))
    assert files_under(tmp_path) == set()


def test_unchanged_imported_skin_is_copied_and_an_existing_file_kept(bpy_scene, tmp_path, capsys):
    bpy = bpy_scene
    source = tmp_path / "src" / "baseq2"
    path = md2_file(source / "models" / "x" / "tris.md2", ["models/x/skin.pcx"])
    write_pcx(source / "models" / "x" / "skin.pcx", RNG.integers(0, 256, (32, 64)).astype(np.uint8),
              RNG.integers(0, 256, (256, 3)).astype(np.uint8))
    obj = import_md2(bpy, path)
    out = tmp_path / "dst" / "baseq2" / "models" / "y" / "tris.md2"
    assert export_md2(bpy, obj, out) == path.read_bytes()
    copied = tmp_path / "dst" / "baseq2" / "models" / "x" / "skin.pcx"
    assert copied.read_bytes() == (source / "models" / "x" / "skin.pcx").read_bytes()

    copied.write_bytes(b"someone else's skin")
    capsys.readouterr()
    export_md2(bpy, obj, out)
    assert copied.read_bytes() == b"someone else's skin"
    assert "exists and differs; kept it" in capsys.readouterr().out

    image = shown_image(obj)
    image.pixels[0] = 1.0 - image.pixels[0]
    export_md2(bpy, obj, out)
    indices, _ = read_pcx(copied.read_bytes())
    assert indices.shape == (32, 64)


@pytest.mark.parametrize("name, written_as", [
    ("../../../evil.pcx", "models/x/evil.pcx"), ("../../outside/evil.pcx", "models/x/evil.pcx"),
    ("/tmp/evil.pcx", "models/x/evil.pcx"), ("C:\\quake2\\evil.pcx", "models/x/evil.pcx"),
    ("models/../../../evil.pcx", "models/x/evil.pcx"), ("es/nathan corey/desktop/evil.pcx", "models/x/evil.pcx"),
    ("models/link/evil.pcx", "models/link/evil.pcx")])
def test_hostile_stored_names_write_nothing_outside(bpy_scene, tmp_path, name, written_as, capsys):
    """A name leading out of the game folder or under no folder the game keeps skins in is replaced by the
    model's own game path (and said so); a name whose folder leaves through a symlink is written beside."""
    bpy = bpy_scene
    outside = tmp_path / "outside"
    outside.mkdir()
    game = tmp_path / "game" / "baseq2"
    (game / "models").mkdir(parents=True)
    try:
        (game / "models" / "link").symlink_to(outside, target_is_directory=True)
    except (OSError, NotImplementedError) as exc:
        pytest.skip(f"cannot create symlinks here: {exc}")
    obj = blender_model(bpy, random_rgba())
    obj.data.materials[0]["md2_skin"] = name
    out = game / "models" / "x" / "m.md2"
    before = files_under(tmp_path)
    model = parse_md2(export_md2(bpy, obj, out))
    assert model.skins == [written_as]
    written = files_under(tmp_path) - before
    assert written == {out, out.parent / "evil.pcx"}
    assert not any(outside.iterdir())
    assert not (game / "es").exists()
    said = capsys.readouterr().out
    assert (f"written as {written_as!r}" if written_as != name else "written beside the model") in said
    assert not Path("/tmp/evil.pcx").exists() or Path("/tmp/evil.pcx").stat().st_mtime < out.stat().st_mtime - 60


# -- corpus -----------------------------------------------------------------------------------

from support.environment import corpus_params  # noqa: E402
from support.skins import blender_model, files_under, image_rgba, md2_file, shown_image

IMAGE_SUFFIXES = {".pcx", ".tga", ".png", ".jpg", ".jpeg", ".bmp"}


def has_own_image(path: Path) -> bool:
    """Independently of the product: an image in the folder named after the model, a stored skin's
    file name, ``skin.*``, or a PCX with its ``_i`` icon beside a ``tris.md2``."""
    model = parse_md2(path.read_bytes())
    images = {p.name.lower() for p in path.parent.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES}
    stems = {os.path.splitext(n)[0] for n in images}
    stored = {s.replace("\\", "/").split("/")[-1].lower() for s in model.skins}
    players = path.stem.lower() == "tris" and any(f"{s}_i.pcx" in images for s in stems)
    return (any(s.startswith(path.stem.lower()) for s in stems) or bool(stored & images)
            or "skin" in stems or players)


@pytest.mark.parametrize("path", corpus_params("md2/*/*.md2"))
def test_every_corpus_md2_with_its_own_image_imports_textured(bpy_scene, path):
    bpy = bpy_scene
    try:
        parse_md2(path.read_bytes())
    except Exception as exc:
        pytest.skip(f"{path.name} is deliberately broken: {exc}")
    if not has_own_image(path):
        pytest.skip(f"no image of its own beside {path.name}")
    obj = import_md2(bpy, path)
    image = shown_image(obj)
    assert image.size[0] > 0 and image.size[1] > 0 and image.packed_file is not None
