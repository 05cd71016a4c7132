"""The edited MD5 export (issue 33) writes the .md5mesh text once: the text written to compare the mesh with
the imported file's is the one saved (it was written a second time); the files are the same bytes as
when the mesh is written afresh, for the rigged corpus drone as imported, scaled and with a bone moved."""
from __future__ import annotations

from importlib import import_module

import pytest
from support.md5_drone import exported, import_drone

EDITS = ("as imported", "scaled", "bone moved")


@pytest.mark.parametrize("edit", EDITS)
def test_the_saved_text_is_the_mesh_written_afresh(bpy_scene, extension, monkeypatch, tmp_path, edit):
    build = import_module(f"{extension}.exporters.md5.build")
    import_drone(bpy_scene, edit)
    once = exported(bpy_scene, tmp_path / "once.md5mesh")
    kept_pair = build.kept_pair
    monkeypatch.setattr(build, "kept_pair", lambda *args: (*kept_pair(*args)[:3], None))
    assert exported(bpy_scene, tmp_path / "afresh.md5mesh") == once


def test_the_mesh_text_is_written_once(bpy_scene, extension, monkeypatch, tmp_path):
    import_drone(bpy_scene, "scaled")
    calls = []
    for name in ("write_back", "export"):
        module = import_module(f"{extension}.exporters.md5.{name}")
        original = module.write_md5mesh
        monkeypatch.setattr(module, "write_md5mesh",
                            lambda *args, original=original, **kw: calls.append(1) or original(*args, **kw))
    exported(bpy_scene, tmp_path / "m.md5mesh")
    assert len(calls) == 1


def test_the_written_files_are_not_parsed_again(bpy_scene, extension, monkeypatch, tmp_path):
    """The writer refuses what the readers refuse (tests/md5/test_md5_write_identity.py), so the export reads
    only the imported files' text (to keep it), not its own files back (it parsed both before the rename)."""
    text = import_module(f"{extension}.formats.md5.text")
    parsed = []
    original = text.Md5Text.__init__
    monkeypatch.setattr(text.Md5Text, "__init__", lambda self, data, what: parsed.append(bytes(data))
                        or original(self, data, what))
    import_drone(bpy_scene, "scaled")
    parsed.clear()
    files = exported(bpy_scene, tmp_path / "m.md5mesh")
    assert parsed and not any(data in files for data in parsed)
