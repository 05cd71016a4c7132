"""MS3D in Blender: bad files (zero fps, an unknown parent, truncated, corrupt counts and indices), a
failure inside the build, refusals on export (the limits, nothing selected), texture paths that may not
leave the model's folder, and the handlers: a multi-file drop, the file handler, the Collection Exporter
and the sidebar panel."""
from __future__ import annotations

import re
import sys

import pytest
from support.environment import CORPUS
from support.ms3d_models import tiny_rig
from support.ms3d_reference import decode
from support.operators import counts, export_ms3d, group_objects, import_ms3d

from formats.ms3d.codec import parse_ms3d
from formats.ms3d.write import serialize_ms3d


def _import_function(extension):
    return sys.modules[f"{extension}.importers.ms3d.ms3d_import"]


def test_zero_fps_falls_back_to_24_with_a_warning(bpy_scene, tmp_path, extension):
    bpy = bpy_scene
    (tmp_path / "still.ms3d").write_bytes(serialize_ms3d(tiny_rig(fps=0.0)))
    module = _import_function(extension)
    result = module.import_ms3d(bpy.context, tmp_path / "still.ms3d", module.Ms3dImportOptions())
    assert any("fps is 0.0: using 24" in w for w in result.warnings)
    assert bpy.context.scene.render.fps == 24
    export_ms3d(bpy, tmp_path / "again.ms3d")
    assert parse_ms3d((tmp_path / "again.ms3d").read_bytes()).animation_fps == 0.0


def test_unknown_parent_makes_a_root_with_a_warning(bpy_scene, tmp_path, extension):
    bpy = bpy_scene
    (tmp_path / "orphan.ms3d").write_bytes(serialize_ms3d(tiny_rig(tip_parent=b"nobody")))
    module = _import_function(extension)
    result = module.import_ms3d(bpy.context, tmp_path / "orphan.ms3d", module.Ms3dImportOptions())
    assert any("unknown parent 'nobody'" in w for w in result.warnings)
    root = result.objects[-1]
    assert root.data.bones["tip"].parent is None
    export_ms3d(bpy, tmp_path / "again.ms3d")
    assert parse_ms3d((tmp_path / "again.ms3d").read_bytes()).joints[1].parent == "nobody"


def _truncations(data: bytes) -> dict[str, tuple[int, bool]]:
    """Cut points in a file with every block: name -> (length, still valid)."""
    off = decode(data).offsets
    return {"in vertices": (off["vertices"] + 7, False), "in triangles": (off["triangles"] + 100, False),
            "in a group": (off["group0.tris"] + 3, False), "in materials": (off["nmaterials"] + 40, False),
            "in joint keys": (off["joint3"] + 120, False), "at the end of the joints": (off["required_end"], True),
            "in comments": (off["comments.subversion"] + 9, True), "after comments": (off["comments.end"], True),
            "in vertex extras": (off["vertex extras.subversion"] + 30, True),
            "in model extras": (len(data) - 2, True)}


@pytest.mark.parametrize("cut", ["in vertices", "in triangles", "in a group", "in materials", "in joint keys",
                                 "at the end of the joints", "in comments", "after comments",
                                 "in vertex extras", "in model extras"])
def test_truncated_files(bpy_scene, tmp_path, cut):
    path = CORPUS / "ms3d" / "glscene" / "Woman4.ms3d"
    if not path.exists():
        pytest.skip(f"corpus file {path} not found")
    bpy = bpy_scene
    data = path.read_bytes()
    length, valid = _truncations(data)[cut]
    target = tmp_path / "cut.ms3d"
    target.write_bytes(data[:length])
    before = counts(bpy)
    if valid:       # a cut inside an optional block keeps its bytes (issue 19) and writes them back
        import_ms3d(bpy, target)
        assert len(group_objects(bpy)) == 10
        export_ms3d(bpy, tmp_path / "again.ms3d")
        assert (tmp_path / "again.ms3d").read_bytes() == data[:length]
    else:
        with pytest.raises(RuntimeError, match="cut.ms3d"):
            bpy.ops.import_scene.ms3d(filepath=str(target))
        assert counts(bpy) == before


def test_corrupt_counts_and_indices_report_and_leave_nothing(bpy_scene, tmp_path):
    path = CORPUS / "ms3d" / "sge" / "zombie.ms3d"
    if not path.exists():
        pytest.skip(f"corpus file {path} not found")
    bpy = bpy_scene
    data = bytearray(path.read_bytes())
    off = decode(bytes(data)).offsets
    cases = {"ntris": (off["ntris"], b"\xff\xff"), "material": (off["group0.material"], b"\x07"),
             "vertex index": (off["triangles"] + 2, b"\xff\x7f")}
    for name, (at, patch) in cases.items():
        broken = bytearray(data)
        broken[at:at + len(patch)] = patch
        (tmp_path / f"{name}.ms3d").write_bytes(bytes(broken))
        before = counts(bpy)
        with pytest.raises(RuntimeError, match=re.escape(f"{name}.ms3d")):
            bpy.ops.import_scene.ms3d(filepath=str(tmp_path / f"{name}.ms3d"))
        assert counts(bpy) == before


def test_failure_inside_the_build_removes_everything(bpy_scene, tmp_path, monkeypatch, extension):
    bpy = bpy_scene
    module = _import_function(extension)

    def explode(*args, **kwargs):
        raise module.FormatError("simulated failure after the armature was built")
    monkeypatch.setattr(module, "animate_joints", explode)
    (tmp_path / "tiny.ms3d").write_bytes(serialize_ms3d(tiny_rig()))
    before = counts(bpy)
    with pytest.raises(RuntimeError, match="simulated"):
        bpy.ops.import_scene.ms3d(filepath=str(tmp_path / "tiny.ms3d"))
    assert counts(bpy) == before
    assert bpy.context.mode == "OBJECT"


def test_multi_file_import_like_a_drop(bpy_scene, tmp_path):
    bpy = bpy_scene
    (tmp_path / "a.ms3d").write_bytes(serialize_ms3d(tiny_rig()))
    (tmp_path / "b.ms3d").write_bytes(serialize_ms3d(tiny_rig(fps=12.0, group_name=b"other")))
    result = bpy.ops.import_scene.ms3d(directory=str(tmp_path), files=[{"name": "a.ms3d"}, {"name": "b.ms3d"}])
    assert result == {"FINISHED"}
    names = sorted(o.name for o in bpy.context.scene.objects)
    assert names == ["a", "b", "other", "strip"]
    assert len(bpy.data.actions) == 2


def test_file_handler_routes_ms3d_to_the_operators(bpy_scene):
    bpy = bpy_scene
    handlers = [cls for cls in bpy.types.FileHandler.__subclasses__() if ".ms3d" in cls.bl_file_extensions]
    assert len(handlers) == 1
    assert handlers[0].bl_import_operator == "import_scene.ms3d"
    assert handlers[0].bl_export_operator == "export_scene.ms3d"


def test_collection_exporter(bpy_scene, tmp_path):
    bpy = bpy_scene
    (tmp_path / "tiny.ms3d").write_bytes(serialize_ms3d(tiny_rig()))
    import_ms3d(bpy, tmp_path / "tiny.ms3d")
    collection = bpy.data.collections.new("Export")
    bpy.context.scene.collection.children.link(collection)
    for obj in list(bpy.context.scene.objects):
        collection.objects.link(obj)
        obj.select_set(False)
    with bpy.context.temp_override(collection=collection):
        bpy.ops.collection.exporter_add(name="IO_FH_classic_models_ms3d")
        collection.exporters[0].export_properties.filepath = str(tmp_path / "collection.ms3d")
        assert bpy.ops.collection.exporter_export(index=0) == {"FINISHED"}
    assert (tmp_path / "collection.ms3d").read_bytes() == (tmp_path / "tiny.ms3d").read_bytes()


def test_limits_are_refused_and_the_old_file_kept(bpy_scene, tmp_path):
    bpy = bpy_scene
    data = bpy.data.armatures.new("Many")
    rig = bpy.data.objects.new("Many", data)
    bpy.context.scene.collection.objects.link(rig)
    bpy.context.view_layer.objects.active = rig
    bpy.ops.object.mode_set(mode="EDIT")
    for i in range(130):
        bone = data.edit_bones.new(f"b{i}")
        bone.head, bone.tail = (i, 0, 0), (i, 0, 1)
    data.edit_bones[0].name = "a_joint_name_much_too_long_for_ms3d"
    bpy.ops.object.mode_set(mode="OBJECT")
    target = tmp_path / "many.ms3d"
    target.write_bytes(b"old contents")
    rig.select_set(True)
    with pytest.raises(RuntimeError, match=r"130 joints, 2 over the limit of 128; joint name "
                                           r"'a_joint_name_much_too_long_for_ms3d' is 35 bytes, 4 over"):
        bpy.ops.export_scene.ms3d(filepath=str(target))
    assert target.read_bytes() == b"old contents"
    assert [p.name for p in tmp_path.iterdir()] == ["many.ms3d"]


def test_export_refuses_nothing_selected(bpy_scene, tmp_path):
    bpy = bpy_scene
    with pytest.raises(RuntimeError, match="nothing to export"):
        bpy.ops.export_scene.ms3d(filepath=str(tmp_path / "x.ms3d"))
    assert not (tmp_path / "x.ms3d").exists()


def test_texture_paths_do_not_leave_the_model_folder(bpy_scene, tmp_path, extension):
    module = sys.modules[f"{extension}.formats.archives.skin_lookup"]
    (tmp_path / "models" / "tex").mkdir(parents=True)
    (tmp_path / "secret.png").write_bytes(b"private")
    (tmp_path / "models" / "tex" / "Skin.TGA").write_bytes(b"x")
    (tmp_path / "models" / "link.png").symlink_to(tmp_path / "secret.png")
    folder = tmp_path / "models"
    assert module.find_texture(folder, ".\\tex\\skin.tga") == folder / "tex" / "Skin.TGA"
    assert module.find_texture(folder, "C:\\art\\tex\\skin.tga") is None
    assert module.find_texture(folder, "tex/../tex/skin.tga") == folder / "tex" / "Skin.TGA"
    assert module.find_texture(folder, "../secret.png") is None
    assert module.find_texture(folder, "link.png") is None


class _Layout:
    """Records what a panel draws; ``prop`` resolves its path like Blender would."""

    def __init__(self, lines):
        self.lines = lines

    def box(self):
        return self

    def row(self, align=False):
        return self

    def label(self, text=""):
        self.lines.append(text)

    def prop(self, data, path, text=None):
        data.path_resolve(path)
        self.lines.append(f"prop {path}")


def test_sidebar_panel_shows_the_ms3d_fields(bpy_scene, tmp_path, extension):
    bpy = bpy_scene
    (tmp_path / "tiny.ms3d").write_bytes(serialize_ms3d(tiny_rig()))
    root = import_ms3d(bpy, tmp_path / "tiny.ms3d")
    root.data.bones["tip"]["ms3d_comment"] = "tip comment"
    root.data.bones.active = root.data.bones["tip"]
    sidebar = sys.modules[f"{extension}.ui.ms3d.sidebar"]      # the MS3D row's part of the Classic Model panel
    lines: list[str] = []
    sidebar.draw_sidebar(_Layout(lines), root.classic_model, root)
    assert "MilkShape 3D model tiny (version 4)" in lines
    assert "model notes" in lines and "prop ms3d_joint_size" in lines and "prop ms3d_alpha_ref" in lines
    assert 'prop ["ms3d_comment"]' in lines and "Joint tip: flags 8" in lines
    lines.clear()
    group = group_objects(bpy)[0]
    sidebar.draw_sidebar(_Layout(lines), group.classic_model, group)
    assert "Group strip: flags 0" in lines and 'prop ["ms3d_comment"]' in lines
