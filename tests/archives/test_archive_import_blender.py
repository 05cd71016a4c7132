"""File > Import > Game Archive on archives the tests build (PAK and PK3, a Quake II layout, a game folder
whose pak0.pak, pak1.pak and loose files override each other) and on the real mod archive: every model
imports from the archive exactly as the same file does loose, skins come from the archive and its game
folder in the engine's order, an untouched export writes the member's bytes under the game folder (with
its unchanged skins and textures copied byte for byte) and a game folder path cannot lead outside."""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from support.blender_helpers import corner_uvs, key_positions, polygon_vertices
from support.environment import CORPUS
from support.game_trees import OPERATORS, pcx_bytes, png_bytes, quake2_tree
from support.md2_synthetic import grid_model
from support.models import md2_bytes
from support.operators import extension_module, import_members

from formats.archives.archive import open_archive, write_archive

QUESS = CORPUS / "pak" / "quess" / "pak0.pak"


def write_loose(root: Path, files: dict[str, bytes]) -> None:
    for name, data in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(data)


def image_rgba(image) -> np.ndarray:
    w, h = image.size
    pixels = np.empty(w * h * 4, np.float32)
    image.pixels.foreach_get(pixels)
    return np.rint(pixels.reshape(h, w, 4) * 255).astype(np.uint8)


def scene_signature(bpy) -> dict:
    """What an import built, by object name: parents, mesh positions, every shape key, polygons, UVs,
    materials with their stored skin names and image pixels, bones; and the scene's markers."""
    found = {}
    for obj in bpy.data.objects:
        item = {"type": obj.type, "parent": obj.parent.name if obj.parent else None}
        if obj.type == "MESH":
            mesh = obj.data
            co = np.empty(len(mesh.vertices) * 3, np.float32)
            mesh.vertices.foreach_get("co", co)
            item["co"], item["polygons"] = co, polygon_vertices(mesh)
            item["uv"] = corner_uvs(mesh) if mesh.uv_layers else None
            keys = mesh.shape_keys.key_blocks if mesh.shape_keys else []
            item["keys"] = {k.name: key_positions(obj, k.name) for k in keys}
            item["materials"] = [
                (m.name, m.get("md2_skin"), m.get("md2_skin_found"),
                 [(n.image.name, image_rgba(n.image)) for n in m.node_tree.nodes if n.type == "TEX_IMAGE"])
                for m in mesh.materials]
        if obj.type == "ARMATURE":
            item["bones"] = [(b.name, tuple(b.head_local)) for b in obj.data.bones]
        found[obj.name] = item
    found["markers"] = sorted((m.name, m.frame) for m in bpy.context.scene.timeline_markers)
    return found


def assert_same_scene(a: dict, b: dict) -> None:
    assert a.keys() == b.keys()
    for name in a:
        x, y = a[name], b[name]
        if name == "markers":
            assert x == y
            continue
        assert x.keys() == y.keys(), name
        for key in x:
            if key in ("co", "polygons", "uv") and x[key] is not None:
                np.testing.assert_array_equal(x[key], y[key], err_msg=f"{name} {key}")
            elif key == "keys":
                assert x[key].keys() == y[key].keys()
                for k in x[key]:
                    np.testing.assert_array_equal(x[key][k], y[key][k], err_msg=f"{name} key {k}")
            elif key == "materials":
                assert [m[:3] for m in x[key]] == [m[:3] for m in y[key]], name
                for mx, my in zip(x[key], y[key]):
                    assert [i[0] for i in mx[3]] == [i[0] for i in my[3]], name
                    for (_, px), (_, py) in zip(mx[3], my[3]):
                        np.testing.assert_array_equal(px, py, err_msg=f"{name} {mx[0]} pixels")
            else:
                assert x[key] == y[key], f"{name} {key}"


def import_loose(bpy, path: Path):
    return getattr(bpy.ops.import_scene, OPERATORS[path.suffix.lower()])(filepath=str(path))


def loose_and_archive(tmp_path: Path, files: dict[str, bytes], kind: str) -> tuple[Path, Path]:
    """The same game files as a loose ``baseq2`` folder and as ``baseq2/pak0.<kind>`` of another folder."""
    loose = tmp_path / "loose" / "baseq2"
    write_loose(loose, files)
    archive = tmp_path / "archive" / "baseq2" / f"pak0.{kind}"
    archive.parent.mkdir(parents=True)
    write_archive(archive, sorted(files.items()))
    return loose, archive


def imported_as_loose(bpy, loose: Path, archive: Path, name: str) -> dict:
    """Import ``name`` loose, then from the archive into an empty scene; the two scenes are the same.
    Returns the archive import's :func:`scene_signature`."""
    bpy.ops.wm.read_homefile(use_empty=True)
    assert import_loose(bpy, loose / name) == {"FINISHED"}
    expected = scene_signature(bpy)
    bpy.ops.wm.read_homefile(use_empty=True)
    assert import_members(bpy, archive, [name]) == {"FINISHED"}
    got = scene_signature(bpy)
    assert_same_scene(expected, got)
    return got


# -- the same result as loose ------------------------------------------------------------------------

@pytest.mark.parametrize("kind", ["pak", "pk3"])
def test_every_model_imports_from_the_archive_as_it_does_loose(bpy_scene, tmp_path, kind):
    bpy = bpy_scene
    files = quake2_tree(tmp_path)
    loose, archive = loose_and_archive(tmp_path, files, kind)
    models = [n for n in files if Path(n).suffix in OPERATORS]
    textured = 0
    for name in models:
        got = imported_as_loose(bpy, loose, archive, name)
        textured += any(m[3] for item in got.values() if isinstance(item, dict) for m in item.get("materials", []))
        top = [o for o in bpy.data.objects if o.parent is None]
        assert all(o["archive_path"] == str(archive) for o in bpy.data.objects)
        assert {o["archive_member"] for o in top} == {name}
    assert textured == 7      # both players, box (any case), crate (other extension), ogre's own skin, thing


@pytest.mark.parametrize("kind", ["pak", "pk3"])
def test_skins_by_folder_prefix_and_size_inside_archives(bpy_scene, tmp_path, kind):
    """The sized skin rules (named after the folder, a prefix of the model's name, the folder's only
    image; each only at the header's 64x32) find the same images in an archive as on disk."""
    bpy = bpy_scene
    files = {"models/jorg/tris.md2": md2_bytes([]), "models/jorg/jorg.pcx": pcx_bytes(tmp_path, 32, 64, 1),
             "models/jorg/logo.png": png_bytes(tmp_path, 16, 16, 2),
             "models/storm/stormtrooper.md2": md2_bytes([], seed=2),
             "models/storm/Storm.pcx": pcx_bytes(tmp_path, 32, 64, 3),
             "models/lone/tris.md2": md2_bytes([], seed=3), "models/lone/abarlith.png": png_bytes(tmp_path, 32, 64, 4),
             "models/wrong/tris.md2": md2_bytes([], seed=4), "models/wrong/other.png": png_bytes(tmp_path, 64, 64, 5)}
    loose, archive = loose_and_archive(tmp_path, files, kind)
    expected_images = {"models/jorg/tris.md2": "jorg.pcx", "models/storm/stormtrooper.md2": "Storm.pcx",
                       "models/lone/tris.md2": "abarlith.png", "models/wrong/tris.md2": None}
    for name, image in expected_images.items():
        got = imported_as_loose(bpy, loose, archive, name)
        shown = [i[0] for item in got.values() if isinstance(item, dict)
                 for m in item.get("materials", []) for i in m[3]]
        assert (shown[0].lower().startswith(Path(image).stem.lower()) if image else not shown), (name, shown)


def test_player_skins_weapons_and_member_names(bpy_scene, tmp_path):
    bpy = bpy_scene
    files = quake2_tree(tmp_path)
    archive = tmp_path / "baseq2" / "pak0.pak"
    archive.parent.mkdir()
    write_archive(archive, sorted(files.items()))
    assert import_members(bpy, archive, ["players/male/tris.md2", "players/male/w_railgun.md2",
                                         "players/female/tris.md2"]) == {"FINISHED"}
    objects = {o["archive_member"]: o for o in bpy.data.objects}
    assert set(objects) == {"players/male/tris.md2", "players/male/weapon.md2", "players/male/w_railgun.md2",
                            "players/female/tris.md2"}
    assert objects["players/male/weapon.md2"].parent == objects["players/male/tris.md2"]
    assert objects["players/male/w_railgun.md2"].parent is None     # ticked itself: not brought in twice
    female = objects["players/female/tris.md2"].data.materials
    assert [m.name for m in female] == ["athena", "venus"] and all(m["md2_skin_found"] for m in female)
    image = next(n.image for n in female[0].node_tree.nodes if n.type == "TEX_IMAGE")
    assert image.name == "athena.pcx" and image["source_path"] == f"{archive}:players/female/athena.pcx"


def test_the_real_mod_archive(bpy_scene, tmp_path, extension):
    if not QUESS.is_file():
        pytest.skip(f"corpus archive {QUESS} not found")
    bpy = bpy_scene
    listed, error = extension_module(extension, "importers.archive_operator").archive_models(QUESS)
    names = [m[0] for m in listed]
    assert error == "" and len(names) == 8 and all(n.startswith("progs/") and n.endswith(".mdl") for n in names)
    with pytest.raises(RuntimeError) as raised:
        import_members(bpy, QUESS, names)
    assert f"{QUESS}:progs/null.mdl" in str(raised.value)
    got = scene_signature(bpy)
    assert sorted(o["archive_member"] for o in bpy.data.objects) == sorted(set(names) - {"progs/null.mdl"})
    with open_archive(QUESS) as archive:
        write_loose(tmp_path, {n: archive.read(n) for n in names if n != "progs/null.mdl"})
    bpy.ops.wm.read_homefile(use_empty=True)
    for name in names:
        if name != "progs/null.mdl":
            assert import_loose(bpy, tmp_path / name) == {"FINISHED"}
    assert_same_scene(scene_signature(bpy), got)


# -- the game folder's search order ------------------------------------------------------------------

def test_skins_follow_the_engine_order_of_the_game_folder(bpy_scene, tmp_path, capsys):
    bpy = bpy_scene
    w, h = grid_model().skin_width, grid_model().skin_height
    game = tmp_path / "baseq2"
    game.mkdir()
    skins = {tag: pcx_bytes(tmp_path, h, w, seed) for seed, tag in enumerate(["pak0", "pak1", "loose", "pak0b",
                                                                                "looseb", "loosec"], 30)}
    write_archive(game / "pak0.pak", [("models/x/tris.md2", md2_bytes(["models/x/skin.pcx", "models/x/other.pcx",
                                                                        "models/x/third.pcx"])),
                                      ("models/x/skin.pcx", skins["pak0"]), ("models/x/other.pcx", skins["pak0b"])])
    write_archive(game / "pak1.pak", [("models/x/skin.pcx", skins["pak1"])])
    write_loose(game, {"models/x/skin.pcx": skins["loose"], "models/x/other.pcx": skins["looseb"],
                       "models/x/third.pcx": skins["loosec"], "models/z/tris.md2": md2_bytes(["models/x/skin.pcx"])})
    assert import_members(bpy, game / "pak0.pak", ["models/x/tris.md2"]) == {"FINISHED"}
    obj = bpy.context.view_layer.objects.active
    sources = [next(n.image for n in m.node_tree.nodes if n.type == "TEX_IMAGE")["source_path"]
               for m in obj.data.materials]
    # pak1 over pak0 (the model's own archive) over loose files, as the game shows it
    assert sources == [f"{game / 'pak1.pak'}:models/x/skin.pcx", f"{game / 'pak0.pak'}:models/x/other.pcx",
                       str(game / "models/x/third.pcx")]
    bpy.ops.wm.read_homefile(use_empty=True)
    write_archive(game / "pak2.pak", [("models/y/tris.md2", md2_bytes(["models/x/skin.pcx"]))])
    assert import_members(bpy, game / "pak2.pak", ["models/y/tris.md2"]) == {"FINISHED"}
    image = next(n.image for n in bpy.context.view_layer.objects.active.data.materials[0].node_tree.nodes
                 if n.type == "TEX_IMAGE")
    assert image["source_path"] == f"{game / 'pak1.pak'}:models/x/skin.pcx"
    bpy.ops.wm.read_homefile(use_empty=True)
    (game / "pak3.pak").write_bytes(b"PACK" + bytes(4))                    # a broken archive beside them
    capsys.readouterr()
    assert import_members(bpy, game / "pak2.pak", ["models/y/tris.md2"]) == {"FINISHED"}
    out = capsys.readouterr().out          # one line per kind, the full message in the Info editor
    assert "Warning: skipped 1 broken archive in the skin search of the game folder: pak3.pak" in out
    assert re.search(r"Info: \u2022 skipped in the skin search of the game folder: .*pak3\.pak: truncated", out)


def test_a_loose_model_finds_its_skin_in_the_game_folders_archives(bpy_scene, tmp_path, capsys):
    bpy = bpy_scene
    w, h = grid_model().skin_width, grid_model().skin_height
    game = tmp_path / "baseq2"
    skin = pcx_bytes(tmp_path, h, w, 40)
    write_loose(game, {"models/x/tris.md2": md2_bytes(["models/x/skin.pcx"])})
    write_archive(game / "pak0.pak", [("models/x/skin.pcx", skin)])
    assert import_loose(bpy, game / "models/x/tris.md2") == {"FINISHED"}
    material = bpy.context.view_layer.objects.active.data.materials[0]
    image = next(n.image for n in material.node_tree.nodes if n.type == "TEX_IMAGE")
    assert image["source_path"] == f"{game / 'pak0.pak'}:models/x/skin.pcx"
    write_loose(tmp_path / "check", {"skin.pcx": skin, "tris.md2": md2_bytes(["skin.pcx"])})
    assert import_loose(bpy, tmp_path / "check" / "tris.md2") == {"FINISHED"}
    same = next(n.image for n in bpy.context.view_layer.objects.active.data.materials[0].node_tree.nodes
                if n.type == "TEX_IMAGE")
    np.testing.assert_array_equal(image_rgba(image), image_rgba(same))
    assert "found in" in capsys.readouterr().out


def test_hexen2_folders_read_loose_files_before_their_paks(bpy_scene, tmp_path):
    bpy = bpy_scene
    w, h = grid_model().skin_width, grid_model().skin_height
    game = tmp_path / "data1"
    write_loose(game, {"models/x/skin.pcx": pcx_bytes(tmp_path, h, w, 50),
                       "models/x/skin_i.pcx": pcx_bytes(tmp_path, 4, 4, 51)})
    write_archive(game / "pak0.pak", [("models/x/tris.md2", md2_bytes(["models/x/skin.pcx"])),
                                      ("models/x/skin.pcx", pcx_bytes(tmp_path, h, w, 52)),
                                      ("models/y/tris.md2", md2_bytes([]))])
    assert import_members(bpy, game / "pak0.pak", ["models/x/tris.md2"]) == {"FINISHED"}
    image = next(n.image for n in bpy.context.view_layer.objects.active.data.materials[0].node_tree.nodes
                 if n.type == "TEX_IMAGE")
    assert image["source_path"] == str(game / "models/x/skin.pcx")


# -- export back into a game folder -------------------------------------------------------------------

@pytest.mark.parametrize("name", ["players/male/tris.md2", "progs/ogre.mdl", "models/thing/thing.ms3d"])
def test_an_untouched_export_writes_the_members_bytes_under_the_game_folder(bpy_scene, tmp_path, extension, name):
    bpy = bpy_scene
    files = quake2_tree(tmp_path)
    archive = tmp_path / "baseq2" / "pak0.pk3"
    archive.parent.mkdir()
    write_archive(archive, sorted(files.items()))
    assert import_members(bpy, archive, [name], load_weapons=False) == {"FINISHED"}
    exported = [o for o in bpy.data.objects if o.get("archive_member") == name]
    run_export = extension_module(extension, "exporters.run_export")
    game_path = extension_module(extension, "exporters.game_path")
    source = run_export.archive_source(bpy.context, exported)
    assert source == (str(archive), name)
    extension_name = Path(name).suffix
    filepath, folders = game_path.export_dialog_path("", *source, extension_name)
    assert filepath == str(archive.parent / Path(name).name) and folders == str(Path(name).parent)
    mod = tmp_path / "mymod"
    assert game_path.export_dialog_path(str(mod / Path(name).name), *source, extension_name) == (
        str(mod / Path(name).name), folders)                   # the last export's folder is kept
    assert game_path.export_dialog_path(str(mod / "other.mdl"), *source, extension_name)[0] == filepath
    mod.mkdir()
    for obj in bpy.context.view_layer.objects:
        obj.select_set(obj in exported)
    operator = getattr(bpy.ops.export_scene, OPERATORS[extension_name])
    options = {".md2": {"skins": "NAMES"}, ".ms3d": {"textures": "NAMES"}}.get(extension_name, {})
    assert operator(filepath=str(mod / Path(name).name), game_folder_path=folders, **options) == {"FINISHED"}
    assert (mod / name).read_bytes() == files[name]
    assert operator(filepath=str(mod / name), game_folder_path=folders, **options) == {"FINISHED"}
    assert sorted(p.relative_to(mod).as_posix() for p in mod.rglob("*") if p.is_file()) == [name]


def test_a_game_folder_path_cannot_lead_outside(bpy_scene, tmp_path):
    bpy = bpy_scene
    files = quake2_tree(tmp_path)
    archive = tmp_path / "pak0.pak"
    write_archive(archive, sorted(files.items()))
    assert import_members(bpy, archive, ["progs/ogre.mdl"]) == {"FINISHED"}
    chosen = tmp_path / "out" / "inner"
    chosen.mkdir(parents=True)
    for bad in ("../escape", "/abs/olute", "a/../../b"):
        with pytest.raises(RuntimeError, match="must stay under the chosen folder"):
            bpy.ops.export_scene.mdl(filepath=str(chosen / "ogre.mdl"), game_folder_path=bad)
    assert not any((tmp_path / "out").rglob("*.mdl")) and not (tmp_path / "escape").exists()
    for obj in bpy.data.objects:
        obj.select_set(False)
    with pytest.raises(RuntimeError, match="nothing to export"):
        bpy.ops.export_scene.mdl(filepath=str(chosen / "ogre.mdl"), game_folder_path="progs/new")
    assert list(chosen.iterdir()) == []          # the folders made for the failed export are gone


def test_unchanged_skins_and_textures_from_an_archive_are_copied_byte_for_byte(bpy_scene, tmp_path):
    bpy = bpy_scene
    files = quake2_tree(tmp_path)
    archive = tmp_path / "baseq2" / "pak0.pak"
    archive.parent.mkdir()
    write_archive(archive, sorted(files.items()))
    mod = tmp_path / "mymod"
    mod.mkdir()
    for name, operator, options in (("players/male/tris.md2", bpy.ops.export_scene.md2, {"skins": "PCX"}),
                                    ("models/thing/thing.ms3d", bpy.ops.export_scene.ms3d, {"textures": "COPY"})):
        bpy.ops.wm.read_homefile(use_empty=True)
        assert import_members(bpy, archive, [name], load_weapons=False) == {"FINISHED"}
        for obj in bpy.data.objects:
            obj.select_set(True)
        folders = str(Path(name).parent)
        assert operator(filepath=str(mod / Path(name).name), game_folder_path=folders, **options) == {"FINISHED"}
        assert (mod / name).read_bytes() == files[name]
    assert (mod / "players/male/grunt.pcx").read_bytes() == files["players/male/grunt.pcx"]
    assert (mod / "models/thing/Paint.PNG").read_bytes() == files["models/thing/textures/paint.png"]
