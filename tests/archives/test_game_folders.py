"""Game folders as the engines search them (issue 25): a loose model's skin in its game folder's pak for
``info``/``check`` as for the import; a mod folder, then its base folder (``baseq2``, ``id1``, ``data1``);
other formats' files named; Hexen II folders decode MDL skins with Hexen II's palette (or the folder's
own ``gfx/palette.lmp``), and ``info`` and the import report name it."""
from __future__ import annotations

import json
import struct
from pathlib import Path

import numpy as np
import pytest
from support.archive_builders import pack_bytes, write
from support.environment import needs_bpy
from support.image_files import read_png, reference_palette, write_pcx
from support.md2_synthetic import grid_model
from support.mdl_models import hexen_names_mdl

from formats.md2.codec import serialize_md2

SKIN = "models/monsters/tank/skin.pcx"


def _pcx(tmp_path: Path, width: int = 16, height: int = 8) -> bytes:
    rng = np.random.default_rng(4)
    palette = rng.integers(0, 256, (256, 3)).astype(np.uint8)
    path = write_pcx(tmp_path / "made.pcx", rng.integers(0, 256, (height, width)).astype(np.uint8), palette)
    return path.read_bytes()


def _tank(path: Path) -> Path:
    model = grid_model()
    model.skins = [SKIN]
    return write(path, serialize_md2(model))


def _check_skin_line(run, model: Path) -> str:
    result = run("check", model, block_bpy=True)
    lines = [line for line in result.stdout.splitlines() if ": skin " in line]
    assert result.returncode == 0 and len(lines) == 1, result.stdout + result.stderr
    return lines[0]


def test_check_and_info_find_a_loose_models_skin_in_the_game_folders_pak(run, tmp_path):
    base = tmp_path / "quake2" / "baseq2"
    write(base / "pak0.pak", pack_bytes([(SKIN, _pcx(tmp_path))]))
    model = _tank(base / "models" / "monsters" / "tank" / "tris.md2")
    line = _check_skin_line(run, model)
    assert f"found {base / 'pak0.pak'}:{SKIN}" in line and "PCX 16x8" in line and "MISSING" not in line
    info = json.loads(run("info", model, "--json", block_bpy=True).stdout)["files"][0]
    assert [s["found"] for s in info["skins"]] == [True]
    assert not [p for p in info["problems"] if "skin" in p["message"]]


def test_a_mod_folder_is_searched_then_its_base_folder(run, tmp_path):
    install = tmp_path / "quake2"
    write(install / "baseq2" / "pak0.pak", pack_bytes([(SKIN, _pcx(tmp_path))]))
    model = _tank(install / "holyw" / "models" / "monsters" / "tank" / "tris.md2")
    assert f"found {install / 'baseq2' / 'pak0.pak'}:{SKIN}" in _check_skin_line(run, model)
    write(install / "holyw" / "pak0.pak", pack_bytes([(SKIN, _pcx(tmp_path, 8, 8))]))    # the mod's own wins
    line = _check_skin_line(run, model)
    assert f"found {install / 'holyw' / 'pak0.pak'}:{SKIN}" in line and "PCX 8x8" in line


def test_the_import_finds_a_mod_models_skin_in_the_base_folder(bpy_scene, tmp_path):
    bpy = bpy_scene
    install = tmp_path / "quake2"
    write(install / "baseq2" / "pak0.pak", pack_bytes([(SKIN, _pcx(tmp_path, 16, 8))]))
    model = _tank(install / "holyw" / "models" / "monsters" / "tank" / "tris.md2")
    assert bpy.ops.import_scene.md2(filepath=str(model)) == {"FINISHED"}
    images = [n.image for m in bpy.context.object.data.materials for n in m.node_tree.nodes
              if n.type == "TEX_IMAGE" and n.image is not None]
    assert [tuple(i.size) for i in images] == [(16, 8)]


@pytest.mark.parametrize("name,magic,what,supported", [
    ("x.md2", b"IDP3", "Quake III MD3", True), ("x.mdl", b"IDSP", "Quake sprite", False),
    ("x.bsp", b"IBSP", "BSP map", False)])
def test_other_formats_are_named_not_quoted(run, tmp_path, name, magic, what, supported):
    """A file holding another format than its extension says is named; "not supported" only for a format
    the extension cannot read (an MD3 saved as .md2 is one it reads as .md3)."""
    path = write(tmp_path / name, magic + struct.pack("<i", 15) + bytes(300))
    result = run("check", path, block_bpy=True)
    assert result.returncode == 1 and what in result.stdout, result.stdout
    assert ("not supported" in result.stdout) is not supported, result.stdout


def _hexen_tree(tmp_path: Path, base: str = "data1", lump: np.ndarray | None = None, loose: bool = False) -> Path:
    """<install>/<base>/ and a mod folder 'mymod' beside it holding progs/m.mdl (IDPO) in its pak0.pak
    (or loose), with ``gfx/palette.lmp`` in the pak when ``lump`` is given."""
    install = tmp_path / "hexen2"
    (install / base).mkdir(parents=True)
    members = [("progs/m.mdl", hexen_names_mdl(["stand1", "stand2"]))]
    members += [("gfx/palette.lmp", lump.tobytes())] if lump is not None else []
    if loose:
        for name, data in members:
            write(install / "mymod" / name, data)
        return install / "mymod" / "progs" / "m.mdl"
    return write(install / "mymod" / "pak0.pak", pack_bytes(members))


def _skin_indices() -> np.ndarray:
    from formats.mdl.codec import parse_mdl
    return parse_mdl(hexen_names_mdl(["stand1", "stand2"])).skins[0].images[0]


def _reference(name: str) -> np.ndarray:
    palette = reference_palette(name)
    if palette is None:
        pytest.skip(f"reference {name} palette not found in ../shared/reference")
    return palette


def _shown_rgb(bpy) -> np.ndarray:
    image = bpy.context.view_layer.objects.active.data.materials[0].node_tree.nodes["mdl_skin_0"].image
    w, h = image.size
    pixels = np.empty(w * h * 4, np.float32)
    image.pixels.foreach_get(pixels)
    return np.rint(pixels.reshape(h, w, 4)[::-1, :, :3] * 255).astype(np.uint8)


@pytest.mark.parametrize("base,loose,palette", [("data1", False, "hexen2"), ("data1", True, "hexen2"),
                                                ("id1", False, "quake")])
def test_mdl_skins_decode_with_the_game_folders_palette(bpy_scene, tmp_path, base, loose, palette):
    bpy = bpy_scene
    expected = _reference(palette)
    path = _hexen_tree(tmp_path, base, loose=loose)
    if loose:
        assert bpy.ops.import_scene.mdl(filepath=str(path)) == {"FINISHED"}
    else:
        from support.operators import import_members
        assert import_members(bpy, path, ["progs/m.mdl"]) == {"FINISHED"}
    np.testing.assert_array_equal(_shown_rgb(bpy), expected[_skin_indices()])
    # exported with Palette left alone, the skin goes back through the same palette: the same indices
    from support.operators import export_mdl

    from formats.mdl.codec import parse_mdl
    written = parse_mdl(export_mdl(bpy, bpy.context.view_layer.objects.active, tmp_path / "back.mdl"))
    np.testing.assert_array_equal(written.skins[0].images[0], _skin_indices())


def test_the_folders_palette_lump_is_the_final_word(bpy_scene, tmp_path):
    bpy = bpy_scene
    own = _reference("quake")[::-1].copy()
    path = _hexen_tree(tmp_path, "data1", lump=own)
    from support.operators import import_members
    assert import_members(bpy, path, ["progs/m.mdl"]) == {"FINISHED"}
    np.testing.assert_array_equal(_shown_rgb(bpy), own[_skin_indices()])


def test_info_names_the_palette(run, tmp_path):
    path = _hexen_tree(tmp_path / "a", "data1", loose=True)
    assert "skins in Hexen II's palette (built in: mymod is a Hexen II game folder)" in run("info", path, block_bpy=True).stdout
    pak = _hexen_tree(tmp_path / "b", "data1")
    assert "skins in Hexen II's palette" in run("info", f"{pak}:progs/m.mdl", block_bpy=True).stdout
    quake = _hexen_tree(tmp_path / "c", "id1", loose=True)
    assert "skins in Quake's palette (built in)" in run("info", quake, block_bpy=True).stdout


def test_convert_of_a_hexen2_archive_member_keeps_its_colours(run, tmp_path):
    needs_bpy()
    hexen = _reference("hexen2")
    pak = _hexen_tree(tmp_path, "data1")
    result = run("convert", f"{pak}:progs/m.mdl", "--to", "ms3d", "-o", tmp_path / "out")
    assert result.returncode == 0, result.stdout + result.stderr
    pngs = sorted((tmp_path / "out").rglob("*.png"))
    assert len(pngs) == 1, pngs
    np.testing.assert_array_equal(read_png(pngs[0].read_bytes())[..., :3], hexen[_skin_indices()])


def _quake_folder(tmp_path: Path) -> Path:
    """id1/ with pak0.pak (a model and a sound), pak1.pak (a model) and a loose model."""
    root = tmp_path / "quake" / "id1"
    model = hexen_names_mdl(["stand1", "stand2"])
    write(root / "pak0.pak", pack_bytes([("progs/a.mdl", model), ("sound/x.wav", b"RIFF")]))
    write(root / "pak1.pak", pack_bytes([("progs/b.mdl", model)]))
    write(root / "pak2.pak", pack_bytes([("sound/y.wav", b"RIFF")]))           # no model: no error
    write(root / "progs" / "c.mdl", model)
    return root


def test_list_folder_lists_its_archives_in_search_order_then_loose_models(run, tmp_path):
    root = _quake_folder(tmp_path)
    result = run("list", root, block_bpy=True)
    assert result.returncode == 0, result.stderr
    headers = [line.split(":")[0] for line in result.stdout.splitlines() if not line.startswith(" ")]
    assert headers == [str(root / "pak2.pak"), str(root / "pak1.pak"), str(root / "pak0.pak"), str(root)]
    assert "progs/c.mdl" in result.stdout.split(f"{root}: loose files")[1]
    document = json.loads(run("list", root, "--json").stdout)
    assert [a.get("archive", a.get("folder")) for a in document["archives"]] == headers


def test_info_and_check_of_a_folder_include_its_archives_models(run, tmp_path):
    root = _quake_folder(tmp_path)
    files = [f["file"] for f in json.loads(run("info", root, "--json", block_bpy=True).stdout)["files"]]
    assert files == [str(root / "progs" / "c.mdl"), f"{root / 'pak1.pak'}:progs/b.mdl",
                     f"{root / 'pak0.pak'}:progs/a.mdl"]
    result = run("check", root, block_bpy=True)
    assert result.returncode == 0 and "checked 3 file(s): 3 clean" in result.stdout, result.stdout + result.stderr


def test_new_colours_of_a_model_from_a_hexen2_folder_may_use_quakes_player_ranges(bpy_scene, tmp_path):
    """Quake's shirt/pants ranges (16-31, 96-111) mean nothing in Hexen II's palette: a model imported from
    a Hexen II folder (its palette remembered, Palette left alone) repainted with the colour of an index in
    16-31 gets that index, as with Palette: Hexen II."""
    bpy = bpy_scene
    palette = _reference("hexen2")
    index = next(i for i in range(16, 32) if (palette == palette[i]).all(axis=1).sum() == 1)
    assert bpy.ops.import_scene.mdl(filepath=str(_hexen_tree(tmp_path, "data1", loose=True))) == {"FINISHED"}
    obj = bpy.context.view_layer.objects.active
    image = obj.data.materials[0].node_tree.nodes["mdl_skin_0"].image
    width, height = image.size
    pixels = np.ones((height, width, 4), np.float32)
    pixels[..., :3] = palette[index] / 255.0
    image.pixels.foreach_set(pixels.ravel())
    from support.operators import export_mdl

    from formats.mdl.codec import parse_mdl
    written = parse_mdl(export_mdl(bpy, obj, tmp_path / "back.mdl")).skins[0].images[0]
    assert (written[:, :width] == index).all()


def test_the_import_report_names_the_palette(bpy_scene, tmp_path, capfd):
    bpy = bpy_scene
    capfd.readouterr()
    assert bpy.ops.import_scene.mdl(filepath=str(_hexen_tree(tmp_path / "a", "data1", loose=True))) == {"FINISHED"}
    assert ("m.mdl: skins decoded with Hexen II's palette (built in: mymod is a Hexen II game folder)"
            in capfd.readouterr().out)
    assert bpy.ops.import_scene.mdl(filepath=str(_hexen_tree(tmp_path / "b", "id1", loose=True))) == {"FINISHED"}
    assert "m.mdl: skins decoded with Quake's palette (built in)" in capfd.readouterr().out


def test_list_folder_names_a_model_file_it_cannot_read(run, tmp_path):
    """A loose model that cannot be read (a broken link) is an error line naming it, not a traceback."""
    root = tmp_path / "game"
    write(root / "progs" / "ok.mdl", b"IDPO")
    (root / "progs" / "gone.mdl").symlink_to(tmp_path / "missing.mdl")
    result = run("list", root, block_bpy=True)
    assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr
    assert "progs/ok.mdl" in result.stdout
    assert "error: progs/gone.mdl: cannot be read" in result.stdout, result.stdout
    document = json.loads(run("list", root, "--json", block_bpy=True).stdout)
    assert any("progs/gone.mdl" in e for e in document["archives"][-1]["errors"])


def test_a_folders_lookups_find_what_the_sorted_paths_found(tmp_path):
    """The listings read names, not a ``Path`` and a stat per entry (issue 44's one-frame MD3 import), and find
    what the sorted paths found: among names differing only in case the first in path order, a name with
    ``.pak`` after its last dot an archive, a mod's base folder beside it in any case (passes on the old code too:
    the same results)."""
    from formats.archives.game_folder import GameFolder, base_folder_beside, search_archives
    game = tmp_path / "quake2"
    mod = game / "mymod"
    (mod / "Models" / "Tank").mkdir(parents=True)
    (game / "BaseQ2").mkdir()
    for name in ("b.txt", "B.txt", "a.TXT"):
        (mod / "Models" / "Tank" / name).write_bytes(name.encode())
    for name in ("pak0.pak", ".pak", "x.pak.", "y.PK3", "zz.pk3.txt"):
        (mod / name).write_bytes(b"")
    (mod / "dir.pak").mkdir()
    assert sorted(p.name for p in search_archives(mod)) == ["pak0.pak", "y.PK3"]
    assert base_folder_beside(mod) == game / "BaseQ2"
    folder = GameFolder(mod)
    assert folder.find("models/tank/b.txt").name == "Models/Tank/B.txt"
    assert folder.find("MODELS\\TANK\\A.txt").name == "Models/Tank/a.TXT"
    assert folder.find("models/tank") is None and folder.find("models/tank/c.txt") is None


def test_a_folder_is_searched_without_a_path_per_entry(tmp_path):
    """Issue 44 (a one-frame MD3 outside a game folder searched every folder above it): listing a folder of 300
    files for its archives and finding a loose file in it make a few calls an entry (the code at ba326de made a
    ``Path`` and a stat of each: about 40 and 97 calls an entry)."""
    from support.work_count import measure

    from formats.archives.game_folder import GameFolder, search_archives
    root = tmp_path / "game" / "mod"
    root.mkdir(parents=True)
    for i in range(300):
        (root / f"skin{i:03d}.tga").write_bytes(b"")
    (root / "pak0.pak").write_bytes(b"")
    listed = measure(search_archives, root, memory=False)
    assert [p.name for p in listed.result] == ["pak0.pak"] and listed.calls < 6 * 301, listed.calls
    found = measure(lambda: GameFolder(root).find("SKIN007.tga"), memory=False)
    assert found.result.name == "skin007.tga" and found.calls < 15 * 301, found.calls
