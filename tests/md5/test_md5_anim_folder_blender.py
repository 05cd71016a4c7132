"""An ``.md5mesh`` imported with *Anims: Folder* beside many ``.md5anim`` files, one of them with an
``.md5scale``: each anim is one action with its keys, only that one keys scales, and the folder is listed a
fixed number of times whatever the number of anims (each anim's ``.md5scale`` was looked up by listing the
folder again: 34 listings for Red Eclipse's hands)."""
from __future__ import annotations

import json
import os

from support.actions import action_fcurves
from support.md5_scale_model import MESH, SCALES, anim_text


def _import_counting(bpy, tmp_path, anims: int, monkeypatch) -> int:
    folder = tmp_path / f"anims{anims}"
    folder.mkdir()
    (folder / "thing.md5mesh").write_bytes(MESH)
    for k in range(anims):
        (folder / f"move{k:02d}.md5anim").write_bytes(anim_text())
    (folder / "move01.md5scale").write_bytes(json.dumps(SCALES).encode())
    listed = []
    scandir = os.scandir

    def counted(path=".", *args):
        listed.append(str(path))
        return scandir(path, *args)
    bpy.ops.wm.read_homefile(use_empty=True)
    monkeypatch.setattr(os, "scandir", counted)
    try:
        assert bpy.ops.import_scene.md5(filepath=str(folder / "thing.md5mesh"), find_anims="FOLDER") == {"FINISHED"}
    finally:
        monkeypatch.setattr(os, "scandir", scandir)
    assert sorted(a.name for a in bpy.data.actions) == [f"move{k:02d}" for k in range(anims)]
    assert all(a.frame_range[1] - a.frame_range[0] == 2 for a in bpy.data.actions)      # three frames each
    scaled = [a.name for a in bpy.data.actions if any(c.data_path.endswith(".scale") for c in action_fcurves(a))]
    assert scaled == ["move01"]
    return sum(1 for path in listed if os.path.abspath(path) == str(folder))


def test_the_folder_is_listed_as_often_for_many_anims_as_for_two(bpy_scene, tmp_path, monkeypatch):
    bpy = bpy_scene
    few = _import_counting(bpy, tmp_path, 2, monkeypatch)
    many = _import_counting(bpy, tmp_path, 8, monkeypatch)
    assert 1 <= few <= 3
    assert many == few
