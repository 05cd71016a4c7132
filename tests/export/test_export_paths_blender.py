"""Paths on both sides of an export (issue 29), on the tests' own small files:

- a skin file whose name on disk is not UTF-8 (a Latin-1 ``sk\\xe9n.pcx`` of an old Windows mod unpacked
  on Linux) is found, imported textured, named as a person reads it, found by ``info``, and copied back
  under the very bytes the model stores;
- an export into folders that do not exist yet creates them (File > Export, a Quake II player, a
  Collection Exporter), and names the folder it cannot create;
- a Collection Exporter with a relative path in an unsaved .blend file is refused, writing nothing;
- the export dialog of a model imported from a loose file opens at that file's folder and name.
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from support.environment import CHECKOUT
from support.image_files import read_pcx, write_pcx
from support.operators import extension_module, import_md2
from support.skins import files_under, image_rgba, md2_file, shown_image

from formats.md2.codec import parse_md2

LATIN1 = b"sk\xe9n.pcx"            # the bytes of the name on disk and in the model
RNG = np.random.default_rng(29)


def bytes_path(folder: Path, name: bytes) -> Path:
    """``folder / name`` for a name given as the bytes on disk (os.fsencode / surrogate escapes)."""
    return Path(os.fsdecode(os.fsencode(folder) + b"/" + name))


def latin1_model(root: Path) -> tuple[Path, Path, np.ndarray]:
    """``<root>/baseq2/models/x/tris.md2`` naming ``models/x/sk\\xe9n.pcx``, the PCX beside it under
    that Latin-1 name; also the colours the PCX holds (its own palette through its indices)."""
    folder = root / "baseq2" / "models" / "x"
    model = md2_file(folder / "tris.md2", ["models/x/" + LATIN1.decode("latin-1")])
    parsed = parse_md2(model.read_bytes())
    indices = RNG.integers(0, 256, (parsed.skin_height, parsed.skin_width)).astype(np.uint8)
    palette = RNG.integers(0, 256, (256, 3)).astype(np.uint8)
    skin = write_pcx(bytes_path(folder, LATIN1), indices, palette)
    decoded_indices, decoded_palette = read_pcx(skin.read_bytes())
    return model, skin, decoded_palette[decoded_indices]


def test_a_latin1_named_skin_imports_textured_and_is_copied_under_its_own_bytes(bpy_scene, tmp_path, capsys):
    bpy = bpy_scene
    model, skin, colours = latin1_model(tmp_path / "src")
    obj = import_md2(bpy, model)
    out = capsys.readouterr().out
    assert "not found" not in out and "internal error" not in out
    image = shown_image(obj)
    assert image.name == "skén.pcx"
    np.testing.assert_array_equal(image_rgba(image)[..., :3], colours)

    target = tmp_path / "dst" / "baseq2" / "models" / "y" / "tris.md2"
    target.parent.mkdir(parents=True)
    assert bpy.ops.export_scene.md2(filepath=str(target)) == {"FINISHED"}
    assert target.read_bytes() == model.read_bytes()
    copied = bytes_path(tmp_path / "dst" / "baseq2" / "models" / "x", LATIN1)
    assert copied.read_bytes() == skin.read_bytes()
    assert files_under(tmp_path / "dst") == {target, copied}
    assert "copied from" in capsys.readouterr().out


def test_info_finds_a_latin1_named_skin(tmp_path):
    model, skin, _ = latin1_model(tmp_path)
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "classic_models").symlink_to(CHECKOUT, target_is_directory=True)
    block_bpy = ("import runpy, sys; sys.modules['bpy'] = None; sys.argv[0] = 'classic_models'; "
                 "runpy.run_module('classic_models', run_name='__main__', alter_sys=True)")
    run = subprocess.run([sys.executable, "-c", block_bpy, "info", str(model)], capture_output=True,
                         env=dict(os.environ, PYTHONPATH=str(tmp_path / "pkg")), timeout=300)
    out = run.stdout.decode("utf-8")
    assert run.returncode == 0, run.stderr.decode("utf-8", "replace")
    assert "MISSING" not in out
    assert f"models/x/skén.pcx: found {os.fsencode(skin).decode('latin-1')}" in out


def nested(tmp_path: Path) -> Path:
    return tmp_path / "new" / "baseq2" / "models" / "crate" / "tris.md2"


def test_export_into_missing_folders_creates_them(bpy_scene, tmp_path):
    bpy = bpy_scene
    obj = import_md2(bpy, md2_file(tmp_path / "in" / "m.md2", []))
    out = nested(tmp_path)
    assert bpy.ops.export_scene.md2(filepath=str(out), skins="NAMES") == {"FINISHED"}
    assert parse_md2(out.read_bytes()).frame_names == parse_md2((tmp_path / "in" / "m.md2").read_bytes()).frame_names

    player = tmp_path / "q2" / "baseq2" / "players" / "newguy" / "tris.md2"
    obj.select_set(True)
    assert bpy.ops.export_scene.md2(filepath=str(player), player=True, skins="NAMES", icons="NONE") == {"FINISHED"}
    assert player.is_file()

    models = bpy.data.collections.new("Models")
    bpy.context.scene.collection.children.link(models)
    models.objects.link(obj)
    collected = tmp_path / "coll" / "a" / "b" / "c.md2"
    with bpy.context.temp_override(collection=models):
        bpy.ops.collection.exporter_add(name="IO_FH_classic_models_md2")
        models.exporters[0].export_properties.filepath = str(collected)
        models.exporters[0].export_properties.skins = "NAMES"
        assert bpy.ops.collection.exporter_export(index=0) == {"FINISHED"}
    assert collected.is_file()


def test_a_folder_that_cannot_be_made_is_named(bpy_scene, tmp_path):
    bpy = bpy_scene
    import_md2(bpy, md2_file(tmp_path / "in" / "m.md2", []))
    (tmp_path / "blocker").write_bytes(b"a file where a folder should be")
    with pytest.raises(RuntimeError) as raised:
        bpy.ops.export_scene.md2(filepath=str(tmp_path / "blocker" / "sub" / "m.md2"), skins="NAMES")
    message = str(raised.value)
    assert f"cannot create folder {tmp_path / 'blocker' / 'sub'}" in message
    assert "old file" not in message
    assert files_under(tmp_path) == {tmp_path / "in" / "m.md2", tmp_path / "blocker"}


@pytest.mark.filterwarnings("ignore:.*does not support blend relative")
def test_a_collection_exporter_in_an_unsaved_file_refuses_a_relative_path(bpy_scene, tmp_path, monkeypatch, capfd):
    bpy = bpy_scene
    assert not bpy.data.filepath
    obj = import_md2(bpy, md2_file(tmp_path / "in" / "m.md2", []))
    models = bpy.data.collections.new("Models")
    bpy.context.scene.collection.children.link(models)
    models.objects.link(obj)
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    with bpy.context.temp_override(collection=models):
        bpy.ops.collection.exporter_add(name="IO_FH_classic_models_md2")
        models.exporters[0].export_properties.filepath = "//Collection.md2"
        assert bpy.ops.collection.exporter_export(index=0) == {"CANCELLED"}
    said = "".join(capfd.readouterr())
    assert f"a path relative to the .blend file, which is not saved yet, would land in Blender's working folder {work}" in said
    assert list(work.iterdir()) == []


@pytest.mark.parametrize("suffix, exporter", [(".md2", ".md2"), (".md2", ".mdl"), (".md2", ".ms3d")])
def test_the_export_dialog_opens_at_the_imported_file(bpy_scene, extension, tmp_path, suffix, exporter):
    bpy = bpy_scene
    source = md2_file(tmp_path / "mod" / "models" / "gun" / f"gun{suffix}", [])
    obj = import_md2(bpy, source)
    run_export = extension_module(extension, "exporters.run_export")
    game_path = extension_module(extension, "exporters.game_path")
    assert run_export.loose_source(bpy.context, [obj]) == str(source)
    obj.select_set(False)                    # nothing selected: the active object's file
    assert run_export.loose_source(bpy.context, []) == str(source)
    expected = str(source.with_suffix(exporter))
    assert game_path.loose_export_path("", str(source), exporter) == expected
    elsewhere = str(tmp_path / "other" / f"gun{exporter}")
    assert game_path.loose_export_path(elsewhere, str(source), exporter) == elsewhere
