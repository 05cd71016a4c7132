"""Levels of detail: a model imported with its LOD files (x_1.md3, x_2.md3 as LOD roots under x.md3's root)
and exported untouched writes every LOD file back beside x.md3, byte for byte; without LOD roots, or with the
option off, no LOD file is written."""
from __future__ import annotations

import pytest
from support.environment import corpus

MERMAN = "md3/openarena081/models/players/merman"     # a player whose three parts each have two LODs


def _select(bpy, root):
    for obj in bpy.context.view_layer.objects:
        obj.select_set(obj == root)
    bpy.context.view_layer.objects.active = root


def _root(bpy, part: str):
    return next(o for o in bpy.data.objects if o.get("md3_root") == part and not o.get("md3_lod"))


@pytest.mark.parametrize("part", ["lower", "upper", "head"])
def test_untouched_lods_export_byte_for_byte(bpy_scene, tmp_path, part):
    bpy = bpy_scene
    folder = corpus(f"{MERMAN}/lower.md3").parent
    assert bpy.ops.import_scene.md3(filepath=str(folder / "lower.md3"), load_lods=True) == {"FINISHED"}
    root = _root(bpy, part)
    assert sorted(c.get("md3_lod") for c in root.children if c.get("md3_root") is not None) == [1, 2]
    _select(bpy, root)
    assert bpy.ops.export_scene.md3(filepath=str(tmp_path / f"{part}.md3"), frame_rate="SCENE") == {"FINISHED"}
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([f"{part}.md3", f"{part}_1.md3", f"{part}_2.md3"])
    for name in (f"{part}.md3", f"{part}_1.md3", f"{part}_2.md3"):
        assert (tmp_path / name).read_bytes() == (folder / name).read_bytes(), name
    lods = [c for c in root.children if c.get("md3_lod")]
    assert all(c.users_collection[0].hide_viewport for c in lods), "the LOD collection is hidden again"


def test_lods_left_out_when_asked_or_absent(bpy_scene, tmp_path):
    bpy = bpy_scene
    folder = corpus(f"{MERMAN}/lower.md3").parent
    assert bpy.ops.import_scene.md3(filepath=str(folder / "lower.md3"), load_lods=True) == {"FINISHED"}
    _select(bpy, _root(bpy, "lower"))
    assert bpy.ops.export_scene.md3(filepath=str(tmp_path / "a" / "lower.md3"), lods=False) == {"FINISHED"}
    assert [p.name for p in (tmp_path / "a").iterdir()] == ["lower.md3"]
    bpy.ops.wm.read_homefile(use_empty=True)
    assert bpy.ops.import_scene.md3(filepath=str(folder / "lower.md3")) == {"FINISHED"}
    _select(bpy, _root(bpy, "lower"))
    assert bpy.ops.export_scene.md3(filepath=str(tmp_path / "b" / "lower.md3")) == {"FINISHED"}
    assert [p.name for p in (tmp_path / "b").iterdir()] == ["lower.md3"]
    assert (tmp_path / "b" / "lower.md3").read_bytes() == (folder / "lower.md3").read_bytes()
