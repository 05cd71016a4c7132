"""Skins by folder, prefix and size (issue 19): MD2 models that name no skin, or a missing one, and
whose image lies beside them under a looser name, taken only at the header's skin size.

Image sizes are checked against files Blender itself writes (BMP, JPEG, TGA, PNG) and against the
tests' own PCX/PNG writers; the lookup and the import use small folders built here."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from support.image_files import write_pcx, write_png
from support.md2_synthetic import grid_model

from formats.archives.skin_lookup import find_sized_skin
from formats.images.image_size import image_size
from formats.md2.codec import serialize_md2

WIDTH, HEIGHT = 64, 32          # grid_model's skin size


def pcx(path: Path, width: int = WIDTH, height: int = HEIGHT) -> Path:
    return write_pcx(path, np.zeros((height, width), np.uint8), np.zeros((256, 3), np.uint8))


def png(path: Path, width: int = WIDTH, height: int = HEIGHT) -> Path:
    return write_png(path, np.zeros((height, width, 4), np.uint8))


def model(path: Path, skins: list[str] | None = None) -> Path:
    md2 = grid_model()
    md2.skins = [] if skins is None else skins
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(serialize_md2(md2))
    return path


def found(path: Path) -> tuple[list[str], str] | None:
    result = find_sized_skin(path, WIDTH, HEIGHT)
    return ([p.name for p in result.paths], result.reason) if result else None


# -- image sizes from headers ----------------------------------------------------------------

def test_sizes_of_the_tests_own_pcx_and_png(tmp_path):
    assert image_size(pcx(tmp_path / "a.pcx", 37, 5)) == (37, 5)
    assert image_size(png(tmp_path / "a.png", 3, 70)) == (3, 70)


def test_not_what_the_extension_says_or_cut_short(tmp_path):
    (tmp_path / "fake.pcx").write_bytes(b"GIF89a" + bytes(40))
    (tmp_path / "short.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    (tmp_path / "empty.jpg").write_bytes(b"")
    (tmp_path / "text.bmp").write_bytes(b"hello")
    (tmp_path / "cut.jpg").write_bytes(b"\xff\xd8\xff\xe0\x00\x10JFIF")
    for name in ("fake.pcx", "short.png", "empty.jpg", "text.bmp", "cut.jpg", "missing.tga"):
        assert image_size(tmp_path / name) is None, name


@pytest.mark.parametrize("fmt,ext", [("BMP", ".bmp"), ("JPEG", ".jpg"), ("TARGA", ".tga"), ("TARGA_RAW", ".tga"),
                                     ("PNG", ".png")])
def test_sizes_of_images_blender_writes(bpy_scene, tmp_path, fmt, ext):
    bpy = bpy_scene
    image = bpy.data.images.new("probe", 48, 20)
    image.filepath_raw = str(tmp_path / f"probe{ext}")
    image.file_format = fmt
    image.save()
    loaded = bpy.data.images.load(str(tmp_path / f"probe{ext}"))
    assert image_size(tmp_path / f"probe{ext}") == tuple(loaded.size) == (48, 20)


# -- the rules --------------------------------------------------------------------------------

def test_image_named_after_the_folder(tmp_path):
    folder = tmp_path / "players" / "jorg"
    tris = model(folder / "tris.md2")
    weapon = model(folder / "weapon.md2")
    pcx(folder / "jorg.pcx")
    assert found(tris) == (["jorg.pcx"], f"jorg.pcx beside the model (named after its folder, "
                                         f"{WIDTH}x{HEIGHT}, the header's skin size)")
    assert found(weapon)[0] == ["jorg.pcx"]


def test_image_named_after_the_folder_of_another_size_is_not_taken(tmp_path):
    folder = tmp_path / "jorg"
    tris = model(folder / "tris.md2")
    pcx(folder / "jorg.pcx", 256, 256)
    assert found(tris) is None


def test_image_whose_name_starts_the_models(tmp_path):
    trooper = model(tmp_path / "stormtrooper.md2")
    png(tmp_path / "Storm.png")
    png(tmp_path / "S.png", 16, 16)             # a shorter prefix of another size: not taken
    assert found(trooper) == (["Storm.png"], f"Storm.png beside the model (its name starts the model's name, "
                                             f"{WIDTH}x{HEIGHT}, the header's skin size)")


def test_longest_prefix_wins_and_another_models_image_is_left_to_it(tmp_path):
    trooper = model(tmp_path / "stormtrooper.md2")
    model(tmp_path / "storm.md2")
    png(tmp_path / "storm.png")                 # storm.md2's own skin
    png(tmp_path / "st.png")
    png(tmp_path / "stormt.png")
    assert found(trooper)[0] == ["stormt.png"]


def test_the_folders_only_image(tmp_path):
    folder = tmp_path / "abarlith"
    tris = model(folder / "models" / "tris.md2")
    png(folder / "models" / "abarlith.png")
    assert found(tris) == (["abarlith.png"], f"abarlith.png beside the model (the folder's only image, "
                                             f"{WIDTH}x{HEIGHT}, the header's skin size)")


def test_the_only_image_of_another_size_or_one_of_two_is_not_taken(tmp_path):
    logo = model(tmp_path / "a" / "tris.md2")
    png(tmp_path / "a" / "logo.png", 128, 128)
    assert found(logo) is None
    two = model(tmp_path / "b" / "tris.md2")
    png(tmp_path / "b" / "one.png")
    png(tmp_path / "b" / "two.png")
    assert found(two) is None


# -- the import and `info` -------------------------------------------------------------------

def test_import_shows_the_image_and_names_the_rule(bpy_scene, tmp_path, capfd):
    bpy = bpy_scene
    folder = tmp_path / "players" / "jorg"
    tris = model(folder / "tris.md2", ["players/jorg/missing.pcx"])
    model(folder / "weapon.md2", ["players/jorg/weapon.pcx"])
    pcx(folder / "jorg.pcx")
    capfd.readouterr()
    assert bpy.ops.import_scene.md2(filepath=str(tris)) == {"FINISHED"}
    out = capfd.readouterr().out
    assert "tris.md2: skin jorg.pcx beside the model (named after its folder, 64x32, the header's skin size)" in out
    objects = {o.name: o for o in bpy.context.scene.objects}
    for name in ("tris", "weapon"):
        images = [m.node_tree.nodes["Image Texture"].image for m in objects[name].data.materials
                  if m.node_tree is not None and "Image Texture" in m.node_tree.nodes]
        assert [Path(i["source_path"]).name for i in images if i is not None] == ["jorg.pcx"], name


def test_import_of_another_size_stays_grey(bpy_scene, tmp_path, capfd):
    bpy = bpy_scene
    trooper = model(tmp_path / "stormtrooper.md2")
    png(tmp_path / "Storm.png", 32, 32)
    capfd.readouterr()
    assert bpy.ops.import_scene.md2(filepath=str(trooper)) == {"FINISHED"}
    assert "no skin image found" in capfd.readouterr().out
    assert not bpy.data.images


def test_info_names_the_same_rule(extension, tmp_path):
    import sys
    inspect = sys.modules[f"{extension}.cli.inspect"] if f"{extension}.cli.inspect" in sys.modules else None
    if inspect is None:
        import importlib
        inspect = importlib.import_module(f"{extension}.cli.inspect")
    trooper = model(tmp_path / "stormtrooper.md2")
    png(tmp_path / "Storm.png")
    info = inspect.inspect_file(trooper)
    lines = inspect.check_lines(info)
    assert any("Storm.png" in line and "its name starts the model's name, 64x32, the header's skin size" in line
               for line in lines), lines
