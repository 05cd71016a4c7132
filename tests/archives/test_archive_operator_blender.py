"""File > Import > Game Archive around the models it imports, on archives the tests build: its list (the
archive's models only, an unreadable directory entry with its problem), broken and truncated members
reported while the others import and nothing left of them, a bad archive that builds nothing, a broken
skin member a warning; and the interface: the file handler, *All Shown*, the dialog's counts and format
options, the sidebar, the archive sheet tool."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from support.blender_helpers import datablock_counts
from support.environment import CHECKOUT, skip_inside_blender
from support.game_trees import OPERATORS, quake2_tree
from support.operators import entry, extension_module, import_members

from formats.archives.archive import write_archive

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


def test_the_dialog_counts_the_models_and_shows_the_options_of_their_formats(bpy_scene, extension):
    from types import SimpleNamespace
    module = extension_module(extension, "importers.archive_operator")
    models = [SimpleNamespace(name=n, format=f, ticked=t, problem="") for n, f, t in
              (("progs/a.mdl", "MDL", True), ("progs/b.mdl", "MDL", False), ("models/c.ms3d", "MS3D", True))]
    lines: list[str] = []
    fake = SimpleNamespace(layout=_Layout(lines), list_error="", models=models, load_skins=True, palette_path="")
    module.IMPORT_SCENE_OT_game_archive.draw(fake, bpy_scene.context)
    assert lines == ["3 models (2 MDL, 1 MS3D), 2 ticked", "MD2 and MDL", "MDL", "MS3D"]
