"""File > Import > Game Archive on archives the tests build (PAK and PK3, a Quake II layout, a game folder
whose pak0.pak, pak1.pak and loose files override each other) and on the real mod archive: every model
imports from the archive exactly as the same file does loose, skins come from the archive and its
game folder in the engine's order, broken members are reported while the others import, an untouched
export writes the member's bytes under the game folder."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from support.blender_helpers import corner_uvs, datablock_counts, key_positions, polygon_vertices
from support.environment import CHECKOUT, CORPUS, skip_inside_blender
from formats.archives.archive import open_archive, write_archive
from formats.mdl.codec import serialize_mdl
from support.image_files import write_pcx, write_png
from support.md2_synthetic import grid_model
from support.mdl_models import mixed_model
from support.models import md2_bytes, textured_rig
from support.operators import entry, extension_module, import_members

RNG = np.random.default_rng(20)
QUESS = CORPUS / "pak" / "quess" / "pak0.pak"
OPERATORS = {".md2": "md2", ".mdl": "mdl", ".ms3d": "ms3d"}


def pcx_bytes(tmp_path: Path, h: int, w: int, seed: int) -> bytes:
    rng = np.random.default_rng(seed)
    palette = rng.integers(0, 256, (256, 3)).astype(np.uint8)
    return write_pcx(tmp_path / f"skin{seed}.pcx", rng.integers(0, 255, (h, w)).astype(np.uint8), palette).read_bytes()


def png_bytes(tmp_path: Path, h: int, w: int, seed: int) -> bytes:
    rgba = np.random.default_rng(seed).integers(0, 256, (h, w, 4)).astype(np.uint8)
    rgba[..., 3] = 255
    return write_png(tmp_path / f"image{seed}.png", rgba).read_bytes()


def quake2_tree(tmp_path: Path) -> dict[str, bytes]:
    """A Quake II game folder's files: players with skins, icons and weapon models, items, a Quake
    model and a MilkShape model with its texture in a sub-folder."""
    w, h = grid_model().skin_width, grid_model().skin_height
    return {
        "players/male/tris.md2": md2_bytes(["players/male/grunt.pcx"]),
        "players/male/grunt.pcx": pcx_bytes(tmp_path, h, w, 1),
        "players/male/grunt_i.pcx": pcx_bytes(tmp_path, 4, 4, 2),
        "players/male/weapon.md2": md2_bytes(["players/male/weapon.pcx"], seed=2),
        "players/male/weapon.pcx": pcx_bytes(tmp_path, h, w, 3),
        "players/male/w_railgun.md2": md2_bytes([], seed=3),
        "players/female/tris.md2": md2_bytes([], seed=4),
        "players/female/athena.pcx": pcx_bytes(tmp_path, h, w, 4),
        "players/female/athena_i.pcx": pcx_bytes(tmp_path, 4, 4, 5),
        "players/female/venus.pcx": pcx_bytes(tmp_path, h, w, 6),
        "players/female/venus_i.pcx": pcx_bytes(tmp_path, 4, 4, 7),
        "models/items/box/tris.md2": md2_bytes(["Models/Items/Box/Skin.PCX"], seed=5),
        "models/items/box/skin.pcx": pcx_bytes(tmp_path, h, w, 8),
        "models/items/crate/tris.md2": md2_bytes(["models/items/crate/crate.tga"], seed=6),
        "models/items/crate/crate.png": png_bytes(tmp_path, h, w, 9),
        "progs/ogre.mdl": serialize_mdl(mixed_model()),
        "models/thing/thing.ms3d": textured_rig(),
        "models/thing/textures/paint.png": png_bytes(tmp_path, 8, 8, 10),
        "sound/misc/beep.wav": b"RIFF....",
    }


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


# -- the list, bad archives and members ----------------------------------------------------------------

def test_the_list_holds_the_archives_models_only(bpy_scene, tmp_path, extension):
    files = quake2_tree(tmp_path)
    archive = tmp_path / "pak0.pak"
    write_archive(archive, sorted(files.items()) + [("PROGS/Extra.MDL", files["progs/ogre.mdl"])])
    listed, error = extension_module(extension, "importers.archive_operator").archive_models(archive)
    assert error == ""
    expected = sorted([n for n in files if Path(n).suffix in OPERATORS] + ["PROGS/Extra.MDL"], key=str.lower)
    assert [m[0] for m in listed] == expected
    assert [m[1] for m in listed] == [OPERATORS[Path(n).suffix.lower()].upper() for n in expected]
    assert [m[2] for m in listed] == [len((files | {"PROGS/Extra.MDL": files["progs/ogre.mdl"]})[n]) for n in expected]


def test_a_broken_member_is_reported_and_the_others_import(bpy_scene, tmp_path):
    bpy = bpy_scene
    files = quake2_tree(tmp_path)
    archive = tmp_path / "pak0.pak"
    write_archive(archive, [("progs/bad.mdl", files["progs/ogre.mdl"][:200]),
                            ("progs/ogre.mdl", files["progs/ogre.mdl"]),
                            ("models/bad.ms3d", b"MS3D000000")])
    before = None
    with pytest.raises(RuntimeError) as error:
        import_members(bpy, archive, ["progs/bad.mdl", "progs/ogre.mdl", "models/bad.ms3d"])
    message = str(error.value)
    assert f"{archive}:progs/bad.mdl" in message and f"{archive}:models/bad.ms3d" in message
    assert [o["archive_member"] for o in bpy.data.objects] == ["progs/ogre.mdl"]
    bpy.ops.wm.read_homefile(use_empty=True)
    before = datablock_counts(bpy)
    with pytest.raises(RuntimeError, match="bad.mdl"):
        import_members(bpy, archive, ["progs/bad.mdl"])
    assert datablock_counts(bpy) == before


def test_a_bad_archive_names_itself_and_builds_nothing(bpy_scene, tmp_path):
    bpy = bpy_scene
    bad = tmp_path / "pak0.pak"
    bad.write_bytes(b"PACK" + (1000).to_bytes(4, "little") + (64).to_bytes(4, "little"))
    before = datablock_counts(bpy)
    with pytest.raises(RuntimeError, match=f"{bad}.*outside the file"):
        import_members(bpy, bad, ["progs/x.mdl"])
    with pytest.raises(RuntimeError, match="no model ticked"):
        bpy.ops.import_scene.game_archive(filepath=str(tmp_path / "none.pk3"))
    assert datablock_counts(bpy) == before


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


# -- the user interface ------------------------------------------------------------------------------

def test_file_handler_and_menu_route_archives_to_the_operator(bpy_scene):
    bpy = bpy_scene
    handlers = [cls for cls in bpy.types.FileHandler.__subclasses__() if ".pak" in cls.bl_file_extensions]
    assert len(handlers) == 1 and ".pk3" in handlers[0].bl_file_extensions
    assert handlers[0].bl_import_operator == "import_scene.game_archive"
    assert {"REGISTER", "UNDO"} <= set(bpy.types.IMPORT_SCENE_OT_game_archive.bl_options)


class _Layout:
    """Enough of UILayout to record what a panel draws."""

    def __init__(self, lines: list[str]):
        self.lines = lines

    def label(self, text="", **_):
        self.lines.append(text)

    def panel(self, idname, default_closed=False):
        return _Layout(self.lines), _Layout(self.lines)

    def __getattr__(self, name):
        return lambda *args, **kwargs: _Layout(self.lines)


def test_the_sidebar_names_the_archive_and_member(bpy_scene, tmp_path, extension):
    bpy = bpy_scene
    files = quake2_tree(tmp_path)
    archive = tmp_path / "pak0.pak"
    write_archive(archive, sorted(files.items()))
    assert import_members(bpy, archive, ["models/thing/thing.ms3d"]) == {"FINISHED"}
    group = next(o for o in bpy.data.objects if o.type == "MESH")
    lines: list[str] = []
    extension_module(extension, "ui.panel")._draw_archive(_Layout(lines), group)
    assert lines == ["Archive: pak0.pak", "Member: models/thing/thing.ms3d"]


def test_the_archive_sheet_tool_lists_imports_and_errors(bpy_scene, tmp_path):
    files = quake2_tree(tmp_path)
    archive = tmp_path / "pak0.pak"
    write_archive(archive, [("progs/ogre.mdl", files["progs/ogre.mdl"]),
                            ("progs/null.mdl", files["progs/ogre.mdl"][:90])])
    sheet = tmp_path / "sheet.png"
    skip_inside_blender("tools/archive_sheet.py")
    result = subprocess.run([sys.executable, "tools/archive_sheet.py", str(archive), "--markdown", "-o", str(sheet)],
                            cwd=CHECKOUT, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-2000:]
    assert f"| progs/ogre.mdl | MDL | {len(files['progs/ogre.mdl'])} | ogre, 8 frames |" in result.stdout
    assert "| progs/null.mdl | MDL | 90 | error: " in result.stdout
    assert "1 of 2 models imported in one call" in result.stdout
    assert sheet.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


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


def test_all_shown_ticks_the_models_the_filter_shows(bpy_scene, tmp_path):
    bpy = bpy_scene
    files = quake2_tree(tmp_path)
    archive = tmp_path / "pak0.pak"
    write_archive(archive, sorted(files.items()))
    models = [entry(n, ticked=False) for n in files if Path(n).suffix in OPERATORS]
    assert bpy.ops.import_scene.game_archive(filepath=str(archive), models=models, model_filter="ITEMS/",
                                             tick_shown=True) == {"FINISHED"}
    assert sorted(o["archive_member"] for o in bpy.data.objects) == ["models/items/box/tris.md2",
                                                                    "models/items/crate/tris.md2"]


def test_an_unreadable_directory_entry_is_listed_with_its_problem_and_reported(bpy_scene, tmp_path, extension):
    bpy = bpy_scene
    files = quake2_tree(tmp_path)
    archive = tmp_path / "pak0.pak"
    write_archive(archive, [("progs/ogre.mdl", files["progs/ogre.mdl"]), ("progs/far.mdl", files["progs/ogre.mdl"])])
    data = bytearray(archive.read_bytes())
    dirofs = int.from_bytes(data[4:8], "little")
    data[dirofs + 64 + 60:dirofs + 64 + 64] = (10 ** 8).to_bytes(4, "little")      # far.mdl's filelen
    archive.write_bytes(bytes(data))
    listed, error = extension_module(extension, "importers.archive_operator").archive_models(archive)
    assert error == "" and [m[0] for m in listed] == ["progs/ogre.mdl", "progs/far.mdl"]
    assert listed[0][3] == "" and "outside the file" in listed[1][3]
    with pytest.raises(RuntimeError, match=r"pak0\.pak:progs/far\.mdl: data .* outside the file"):
        import_members(bpy, archive, ["progs/ogre.mdl", "progs/far.mdl"])
    assert [o["archive_member"] for o in bpy.data.objects] == ["progs/ogre.mdl"]


def test_the_dialog_counts_the_models_and_shows_the_options_of_their_formats(bpy_scene, extension):
    from types import SimpleNamespace
    module = extension_module(extension, "importers.archive_operator")
    models = [SimpleNamespace(name=n, format=f, ticked=t, problem="") for n, f, t in
              (("progs/a.mdl", "MDL", True), ("progs/b.mdl", "MDL", False), ("models/c.ms3d", "MS3D", True))]
    lines: list[str] = []
    fake = SimpleNamespace(layout=_Layout(lines), list_error="", models=models, load_skins=True, palette_path="")
    module.IMPORT_SCENE_OT_game_archive.draw(fake, bpy_scene.context)
    assert lines == ["3 models (2 MDL, 1 MS3D), 2 ticked", "MD2 and MDL", "MDL", "MS3D"]


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


@pytest.mark.parametrize("cut", [0, 4, 50, 68, 200, 1000, -7, -1])
def test_truncated_members_are_reported_and_leave_nothing(bpy_scene, tmp_path, cut):
    bpy = bpy_scene
    files = quake2_tree(tmp_path)
    archive = tmp_path / "pak0.pk3"
    body = files["players/male/tris.md2"]
    write_archive(archive, [("players/male/tris.md2", body[:cut]),
                            ("models/items/box/tris.md2", files["models/items/box/tris.md2"])])
    before = datablock_counts(bpy)
    with pytest.raises(RuntimeError) as raised:
        import_members(bpy, archive, ["players/male/tris.md2"])
    assert f"{archive}:players/male/tris.md2: " in str(raised.value) and "internal error" not in str(raised.value)
    assert datablock_counts(bpy) == before


def test_a_broken_skin_member_is_a_warning_and_the_model_imports(bpy_scene, tmp_path, capsys):
    bpy = bpy_scene
    files = quake2_tree(tmp_path)
    archive = tmp_path / "pak0.pak"
    write_archive(archive, [("models/items/box/tris.md2", files["models/items/box/tris.md2"]),
                            ("models/items/box/skin.pcx", files["models/items/box/skin.pcx"][:60])])
    assert import_members(bpy, archive, ["models/items/box/tris.md2"]) == {"FINISHED"}
    out = capsys.readouterr().out
    assert f"skin skin.pcx could not be loaded: {archive}:models/items/box/skin.pcx" in out
    material = bpy.context.view_layer.objects.active.data.materials[0]
    assert material["md2_skin"] == "Models/Items/Box/Skin.PCX"
    assert not [n for n in material.node_tree.nodes if n.type == "TEX_IMAGE"]
    assert not bpy.data.images
