"""An untouched IQM import exported through File > Export (``bpy.ops.export_scene.iqm``) is the file it
came from, byte for byte, with its ``.iqm.framegroups``; any edit Blender holds (a vertex, a bone, a key,
a name, a material, an object more or less) makes the export build the model instead, handed the stored
model decoded (``exporters/iqm/write_back.py``)."""
from __future__ import annotations

from importlib import import_module

import pytest
from support.actions import action_fcurves, select_only
from support.environment import corpus_params
from support.iqm_files import build

IQM_FILES = corpus_params("iqm/**/*.iqm") + corpus_params("md5/**/*.iqm")   # with Red Eclipse's anim-only files


def _import(bpy, path, **options):
    assert bpy.ops.import_scene.iqm(filepath=str(path), **options) == {"FINISHED"}
    root = next(o for o in bpy.context.scene.objects if o.type == "ARMATURE")
    return root, [root, *sorted(root.children, key=lambda o: o.name)]


def _export(bpy, objects, path) -> bytes:
    select_only(bpy, objects)
    assert bpy.ops.export_scene.iqm(filepath=str(path)) == {"FINISHED"}
    return path.read_bytes()


@pytest.mark.parametrize("path", IQM_FILES)
def test_every_corpus_file_back_byte_for_byte_through_the_operators(bpy_scene, tmp_path, path):
    bpy = bpy_scene
    _, objects = _import(bpy, path)
    assert _export(bpy, objects, tmp_path / "out.iqm") == path.read_bytes()
    assert _export(bpy, objects[:1], tmp_path / "armature.iqm") == path.read_bytes()       # the root alone


def test_framegroups_written_beside_again(bpy_scene, tmp_path):
    bpy = bpy_scene
    data, _ = build()
    (tmp_path / "model.iqm").write_bytes(data)
    groups = b"// split\n0 2 10 1 walk_a\n2 2 10 0 walk_b\n"
    (tmp_path / "model.iqm.framegroups").write_bytes(groups)
    _, objects = _import(bpy, tmp_path / "model.iqm")
    out = tmp_path / "out"
    out.mkdir()
    assert _export(bpy, objects[1:], out / "model.iqm") == data
    assert (out / "model.iqm.framegroups").read_bytes() == groups


def _edits(bpy, root, meshes):
    """(what, change) pairs, each an edit the exported file would show."""
    def vertex():
        meshes[0].data.vertices[0].co.x += 0.25

    def bone_name():
        root.data.bones[0].name = "renamed"

    def key():
        fcurve = action_fcurves(bpy.data.actions[0])[0]
        fcurve.keyframe_points[0].co.y += 0.5

    def action_name():
        bpy.data.actions[0].name = "renamed"

    def material():
        meshes[0].data.materials[0].name = "other"

    def uv():
        meshes[0].data.uv_layers[0].uv[0].vector = (0.3, 0.3)

    def moved():
        root.location.z += 1.0

    def weight():
        meshes[0].vertex_groups[0].add([0], 0.5, "REPLACE")

    return [("vertex", vertex), ("bone name", bone_name), ("key", key), ("action name", action_name),
            ("material", material), ("uv", uv), ("moved", moved), ("weight", weight)]


@pytest.mark.parametrize("edit", range(8))
def test_an_edit_is_no_longer_the_untouched_import(bpy_scene, tmp_path, extension, edit):
    bpy = bpy_scene
    write_back = import_module(f"{extension}.exporters.iqm.write_back")
    data, _ = build()
    (tmp_path / "model.iqm").write_bytes(data)
    root, objects = _import(bpy, tmp_path / "model.iqm")
    meshes = [o for o in objects if o.type == "MESH"]
    assert write_back.untouched(root, objects) is not None
    kept = write_back.kept_model(root)
    assert kept is not None and kept.text == import_module("formats.iqm.codec").read_iqm(data).text
    _, change = _edits(bpy, root, meshes)[edit]
    change()
    assert write_back.untouched(root, objects) is None
    assert write_back.kept_model(root) is not None


def test_part_of_the_model_or_another_object_is_not_the_untouched_import(bpy_scene, tmp_path, extension):
    bpy = bpy_scene
    write_back = import_module(f"{extension}.exporters.iqm.write_back")
    data, _ = build()
    (tmp_path / "model.iqm").write_bytes(data)
    root, objects = _import(bpy, tmp_path / "model.iqm")
    meshes = [o for o in objects if o.type == "MESH"]
    assert write_back.find_root(meshes[:1]) is root
    assert write_back.untouched(root, [root, meshes[0]]) is None          # one of its two meshes
    bpy.ops.mesh.primitive_cube_add()
    cube = bpy.context.active_object
    assert write_back.find_root(objects + [cube]) is None
    cube.parent = root
    assert write_back.untouched(root, objects) is None                    # an object more under the root


def test_a_pk3_member_with_its_framegroups_and_image_imports_and_exports_back(bpy_scene, tmp_path):
    """Through the Game Archive import: the member's .iqm.framegroups and the image of its material (the
    built file's ``skin.tga``) are found in the archive, beside it; the export writes the member's bytes."""
    import zipfile

    from support.operators import import_members
    bpy = bpy_scene
    data, _ = build()
    archive = tmp_path / "models.pk3"
    tga = bytes([0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 32, 8]) + bytes([10, 20, 30, 255])
    with zipfile.ZipFile(archive, "w") as pk3:
        pk3.writestr("models/m/model.iqm", data)
        pk3.writestr("models/m/model.iqm.framegroups", "0 4 12 1 all\n")
        pk3.writestr("models/m/skin.tga", tga)
    assert import_members(bpy, archive, ["models/m/model.iqm"]) == {"FINISHED"}
    root = next(o for o in bpy.context.scene.objects if o.type == "ARMATURE")
    assert [a.name for a in bpy.data.actions] == ["all"]
    meshes = [o for o in root.children if o.type == "MESH"]
    assert {o.data.materials[0].name for o in meshes} == {"skin.tga"} and len(bpy.data.images) == 1
    assert root["archive_member"] == "models/m/model.iqm"
    assert _export(bpy, [root, *meshes], tmp_path / "out.iqm") == data
    assert (tmp_path / "out.iqm.framegroups").read_bytes() == b"0 4 12 1 all\n"


def test_iqm_is_dropped_and_listed_in_the_menus(bpy_scene):
    """Drag and drop: the table's row gives IQM a FileHandler for .iqm with the import and export operators."""
    bpy = bpy_scene
    handlers = [h for h in bpy.types.FileHandler.__subclasses__() if ".iqm" in getattr(h, "bl_file_extensions", "")]
    assert [(h.bl_import_operator, h.bl_export_operator) for h in handlers] == [("import_scene.iqm",
                                                                                 "export_scene.iqm")]


def test_untouched_after_saving_and_opening_the_blend_file(bpy_scene, tmp_path):
    """What the digest reads is what a .blend file keeps: a saved and reopened import is still untouched."""
    bpy = bpy_scene
    data, _ = build()
    (tmp_path / "model.iqm").write_bytes(data)
    _import(bpy, tmp_path / "model.iqm")
    bpy.ops.wm.save_as_mainfile(filepath=str(tmp_path / "scene.blend"))
    bpy.ops.wm.open_mainfile(filepath=str(tmp_path / "scene.blend"))
    root = next(o for o in bpy.context.scene.objects if o.type == "ARMATURE")
    assert _export(bpy, [root, *root.children], tmp_path / "out.iqm") == data
