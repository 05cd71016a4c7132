"""What an import stores on Blender data for the export (common/contract.py) may be overwritten by a
script, another add-on or a hand edit with a value of another type: the export then treats that record as
gone and writes the model as Blender shows it, never failing on it. A failure that is a bug all the same
is reported in one line, with nothing written, not as a traceback."""
from __future__ import annotations

import pytest
from support.operators import extension_module

MESH_KEYS = {
    "md2": ("md2_frames", "md2_st", "md2_glcmds", "md2_skins", "md2_skin_fields", "md2_tail", "import_shading"),
    "mdl": ("mdl_poses", "mdl_grid", "mdl_frame_slots", "mdl_tail", "mdl_st", "import_shading"),
    "md3": ("md3_surface", "md3_shaders", "md3_st", "md3_xyz_normals", "md3_degenerate", "import_shading"),
}
OBJECT_KEYS = {"mdl": ("mdl_palette",),
               "md3": ("md3_name", "md3_frames", "md3_tags", "md3_layout", "md3_tail", "md3_surface_index",
                       "md3_flags", "md3_num_skins", "md3_lod", "md3_tag_index")}


def _imported(bpy, tmp_path, fmt: str):
    """A smooth Suzanne written as ``fmt`` (MD3: with a tag), the scene emptied and the file imported: its
    objects."""
    bpy.ops.mesh.primitive_monkey_add()
    bpy.ops.object.shade_smooth()
    if fmt == "md3":
        monkey = bpy.context.object
        bpy.ops.object.empty_add(location=(0.0, 0.0, 1.0))
        bpy.context.object.name = "tag_head"
        monkey.select_set(True)
    bpy.context.scene.frame_start = bpy.context.scene.frame_end = 1
    extra = {"skins": "NAMES"} if fmt == "md2" else {}
    assert getattr(bpy.ops.export_scene, fmt)(filepath=str(tmp_path / f"made.{fmt}"), frame_rate="SCENE",
                                              **extra) == {"FINISHED"}
    bpy.ops.wm.read_homefile(use_empty=True)
    assert getattr(bpy.ops.import_scene, fmt)(filepath=str(tmp_path / f"made.{fmt}")) == {"FINISHED"}
    return list(bpy.context.scene.objects)


def _export(bpy, fmt: str, objects, path) -> set:
    for obj in bpy.context.view_layer.objects:
        obj.select_set(obj in objects)
    extra = {"skins": "NAMES"} if fmt == "md2" else {}
    return getattr(bpy.ops.export_scene, fmt)(filepath=str(path), frame_rate="SCENE", **extra)


@pytest.mark.parametrize("fmt, key, on_mesh", [(f, k, True) for f, keys in MESH_KEYS.items() for k in keys]
                         + [(f, k, False) for f, keys in OBJECT_KEYS.items() for k in keys])
@pytest.mark.parametrize("value", ("not the import's", 3.5), ids=("text", "number"))
def test_a_record_of_another_type_is_treated_as_gone(bpy_scene, tmp_path, fmt, key, on_mesh, value):
    bpy = bpy_scene
    objects = _imported(bpy, tmp_path, fmt)
    targets = [o.data if on_mesh else o for o in objects if (o.type == "MESH") == on_mesh or not on_mesh]
    targets = [t for t in targets if t is not None and key in t.keys()] or targets[:1]
    for target in targets:
        target[key] = value
    assert _export(bpy, fmt, objects, tmp_path / f"edited.{fmt}") == {"FINISHED"}
    assert (tmp_path / f"edited.{fmt}").stat().st_size > 0


def test_a_bug_in_an_export_is_one_report_and_no_file(bpy_scene, tmp_path, extension, monkeypatch, capfd):
    bpy = bpy_scene
    objects = _imported(bpy, tmp_path, "md2")
    export = extension_module(extension, "exporters.md2.export")

    def broken(*args, **kwargs):
        raise ZeroDivisionError("a stand-in bug")
    monkeypatch.setattr(export, "build_md2", broken)
    with pytest.raises(RuntimeError) as error:           # bpy.ops turns an ERROR report into RuntimeError
        _export(bpy, "md2", objects, tmp_path / "out" / "broken.md2")
    message = str(error.value)
    assert "broken.md2: internal error, please report it: ZeroDivisionError: a stand-in bug" in message
    assert "Traceback" not in message
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("key, where", [("ms3d_model", "objects"), ("ms3d_group", "objects"),
                                        ("ms3d_material", "materials")])
@pytest.mark.parametrize("value", ("not the import's", 3.5), ids=("text", "number"))
def test_an_ms3d_record_of_another_type_is_treated_as_gone(bpy_scene, tmp_path, key, where, value):
    bpy = bpy_scene
    bpy.ops.mesh.primitive_monkey_add()
    bpy.context.object.data.materials.append(bpy.data.materials.new("skin"))
    assert bpy.ops.export_scene.ms3d(filepath=str(tmp_path / "made.ms3d")) == {"FINISHED"}
    bpy.ops.wm.read_homefile(use_empty=True)
    assert bpy.ops.import_scene.ms3d(filepath=str(tmp_path / "made.ms3d")) == {"FINISHED"}
    assert _overwritten_export(bpy, getattr(bpy.data, where), key, value, "ms3d", tmp_path / "edited.ms3d") \
        == {"FINISHED"}


@pytest.mark.parametrize("key, where", [("md5_mesh_source", "objects"), ("md5_mesh_index", "objects"),
                                        ("md5_anim_source", "actions"), ("md5_joint_index", "bones")])
@pytest.mark.parametrize("value", ("not the import's", 3.5), ids=("text", "number"))
def test_an_md5_record_of_another_type_is_treated_as_gone(bpy_scene, tmp_path, key, where, value):
    from support.md5_drone import import_drone
    bpy = bpy_scene
    import_drone(bpy, "untouched")
    blocks = ([b for a in bpy.data.armatures for b in a.bones] if where == "bones" else getattr(bpy.data, where))
    assert _overwritten_export(bpy, blocks, key, value, "md5", tmp_path / "edited.md5mesh") == {"FINISHED"}


def _overwritten_export(bpy, blocks, key: str, value, fmt: str, path) -> set:
    """``value`` under ``key`` on every datablock of ``blocks`` that has it, then everything exported."""
    holders = [b for b in blocks if key in b.keys()]
    assert holders, f"the import should leave {key}"
    for block in holders:
        block[key] = value
    for obj in bpy.context.view_layer.objects:
        obj.select_set(True)
    return getattr(bpy.ops.export_scene, fmt)(filepath=str(path))
