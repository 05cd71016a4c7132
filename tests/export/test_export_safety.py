"""Exports refuse impossible input with a message naming the object, and never damage the target."""
from __future__ import annotations

import errno
import sys

import pytest
from support.md2_synthetic import grid_model

from formats.md2.codec import serialize_md2

FORMATS = ["md2", "mdl"]


def _select_only(bpy, obj):
    for other in bpy.context.view_layer.objects:
        other.select_set(False)
    obj.select_set(True)
    bpy.context.view_layer.objects.active = obj


def _imported(bpy, tmp_path):
    (tmp_path / "grid.md2").write_bytes(serialize_md2(grid_model()))
    bpy.ops.import_scene.md2(filepath=str(tmp_path / "grid.md2"))
    return bpy.context.view_layer.objects.active


@pytest.mark.parametrize("fmt", FORMATS)
def test_non_finite_coordinates_are_refused(bpy_scene, tmp_path, fmt):
    bpy = bpy_scene
    obj = _imported(bpy, tmp_path)
    obj.data.shape_keys.key_blocks[1].data[2].co = (float("nan"), 0.0, 0.0)
    _select_only(bpy, obj)
    with pytest.raises(RuntimeError, match=r"'grid' has non-finite"):
        getattr(bpy.ops.export_scene, fmt)(filepath=str(tmp_path / f"out.{fmt}"))
    assert not (tmp_path / f"out.{fmt}").exists()


@pytest.mark.parametrize("fmt", FORMATS)
def test_object_without_faces_is_refused(bpy_scene, tmp_path, fmt):
    bpy = bpy_scene
    mesh = bpy.data.meshes.new("points")
    mesh.vertices.add(3)
    obj = bpy.data.objects.new("points", mesh)
    bpy.context.scene.collection.objects.link(obj)
    _select_only(bpy, obj)
    with pytest.raises(RuntimeError, match="'points' has no faces"):
        getattr(bpy.ops.export_scene, fmt)(filepath=str(tmp_path / f"out.{fmt}"))


@pytest.mark.parametrize("fmt", FORMATS)
def test_frame_names_that_do_not_fit_are_refused(bpy_scene, tmp_path, fmt):
    bpy = bpy_scene
    obj = _imported(bpy, tmp_path)
    obj.classic_model.frames[0].name = "a_name_far_too_long_for_the_format"   # the sidebar's frame list
    _select_only(bpy, obj)
    with pytest.raises(RuntimeError, match="a_name_far_too_long_for_the_format' is 34 characters, 19 over"):
        getattr(bpy.ops.export_scene, fmt)(filepath=str(tmp_path / f"out.{fmt}"))
    obj.classic_model.frames[0].name = "ünïcødé€"
    with pytest.raises(RuntimeError, match="cannot be stored"):
        getattr(bpy.ops.export_scene, fmt)(filepath=str(tmp_path / f"out.{fmt}"))
    obj.classic_model.frames[0].name = "short"
    obj.shape_key_add(name="a_new_key_named_far_too_long", from_mix=False).value = 0.0   # a frame the user added
    with pytest.raises(RuntimeError, match="a_new_key_named_far_too_long' is 28 characters"):
        getattr(bpy.ops.export_scene, fmt)(filepath=str(tmp_path / f"out.{fmt}"), frame_source="SHAPE_KEYS")


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_full_disk_leaves_the_old_file_intact(bpy_scene, tmp_path, fmt, monkeypatch, extension):
    bpy = bpy_scene
    obj = _imported(bpy, tmp_path)
    _select_only(bpy, obj)
    target = tmp_path / f"out.{fmt}"
    target.write_bytes(b"the old model")
    module = sys.modules[f"{extension}.formats.atomic_file"]

    def full(fd):
        raise OSError(errno.ENOSPC, "No space left on device")
    monkeypatch.setattr(module.os, "fsync", full)
    with pytest.raises(RuntimeError, match="No space left on device; the old file is untouched"):
        getattr(bpy.ops.export_scene, fmt)(filepath=str(target))
    assert target.read_bytes() == b"the old model"
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["grid.md2", target.name])


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_missing_folder_is_created(bpy_scene, tmp_path, fmt):
    """Issue 29: the folders of the path are made (a game layout is several levels deep)."""
    bpy = bpy_scene
    obj = _imported(bpy, tmp_path)
    _select_only(bpy, obj)
    out = tmp_path / "missing" / "deeper" / f"out.{fmt}"
    assert getattr(bpy.ops.export_scene, fmt)(filepath=str(out)) == {"FINISHED"}
    assert out.is_file()
