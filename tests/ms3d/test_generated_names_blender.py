"""Names the product makes fit MS3D's 32-byte name fields: a material named after a long model file
(``<model>_skin0``), an object named after it, the export's own ``<object>_<material>`` group names are
shortened (``<start>~<crc32>``, unique, reported); a name the user typed over the limit is refused."""
from __future__ import annotations

import re
import shutil

import pytest
from support.engine_tools import cli
from support.environment import CORPUS, corpus_files

from formats.ms3d.codec import parse_ms3d

LONG_STEM = "zombies_perk_bottle_juggernog_v2"        # 32 characters: the object's name does not fit either
SHORT = re.compile(rb"^[^\0]{1,26}~[0-9a-f]{4}\0+$")


def _names(model) -> tuple[list[bytes], list[bytes]]:
    return [m.name_raw for m in model.materials], [g.name_raw for g in model.groups]


def _long_mdl(tmp_path):
    source = CORPUS / "mdl/librequake/armor.mdl"
    if not source.is_file():
        pytest.skip(f"corpus file mdl/librequake/armor.mdl not found under {CORPUS}")
    target = tmp_path / f"{LONG_STEM}.mdl"
    shutil.copyfile(source, target)
    return target


def _select(bpy, objects):
    for obj in bpy.context.view_layer.objects:
        obj.select_set(obj in objects)


def test_mdl_with_a_long_name_exports_to_ms3d_in_blender(bpy_scene, tmp_path):
    bpy = bpy_scene
    assert bpy.ops.import_scene.mdl(filepath=str(_long_mdl(tmp_path))) == {"FINISHED"}
    obj = bpy.context.view_layer.objects.active
    assert obj.active_material.name == f"{LONG_STEM}_skin0"      # 38 bytes, made by the import
    _select(bpy, [obj])
    first, second = tmp_path / "a.ms3d", tmp_path / "b.ms3d"
    assert bpy.ops.export_scene.ms3d(filepath=str(first)) == {"FINISHED"}
    assert bpy.ops.export_scene.ms3d(filepath=str(second)) == {"FINISHED"}
    assert first.read_bytes() == second.read_bytes()              # shortened the same way each time
    materials, groups = _names(parse_ms3d(first.read_bytes()))
    assert len(materials) == 1 and SHORT.match(materials[0]) and materials[0].startswith(LONG_STEM[:20].encode())
    assert len(groups) == 1 and SHORT.match(groups[0]) and groups[0].startswith(LONG_STEM[:20].encode())
    assert materials[0].split(b"\0")[0] != groups[0].split(b"\0")[0]


def test_user_typed_names_over_the_limit_are_refused(bpy_scene, tmp_path):
    bpy = bpy_scene
    assert bpy.ops.import_scene.mdl(filepath=str(_long_mdl(tmp_path))) == {"FINISHED"}
    obj = bpy.context.view_layer.objects.active
    obj.name = "crate"
    obj.active_material.name = "a_material_name_the_user_typed_here"     # 35 bytes, no longer the import's
    _select(bpy, [obj])
    with pytest.raises(RuntimeError, match=r"material name 'a_material_name_the_user_typed_here' is 35 bytes, "
                                           r"4 over the limit of 31"):
        bpy.ops.export_scene.ms3d(filepath=str(tmp_path / "refused.ms3d"))
    assert not (tmp_path / "refused.ms3d").exists()


def test_group_names_the_export_makes_are_shortened_uniquely(bpy_scene, tmp_path):
    """An object with two materials becomes two groups named ``<object>_<material>``: over 31 bytes here,
    both shortened, different, and reported."""
    bpy = bpy_scene
    bpy.ops.mesh.primitive_cube_add()
    obj = bpy.context.object
    obj.name = "an_object_name_of_thirty_chars"
    for name in ("painted_metal_plates", "painted_metal_planks"):
        obj.data.materials.append(bpy.data.materials.new(name))
    obj.data.polygons[0].material_index = 1
    _select(bpy, [obj])
    path = tmp_path / "groups.ms3d"
    assert bpy.ops.export_scene.ms3d(filepath=str(path), textures="NAMES") == {"FINISHED"}
    materials, groups = _names(parse_ms3d(path.read_bytes()))
    assert [m.split(b"\0")[0] for m in materials] == [b"painted_metal_plates", b"painted_metal_planks"]
    assert len(groups) == 2 and all(SHORT.match(g) for g in groups) and groups[0] != groups[1]


def test_cli_converts_a_long_named_mdl_to_ms3d(tmp_path):
    pytest.importorskip("bpy", reason="convert runs the operators in the bpy wheel")
    source = _long_mdl(tmp_path)
    run = cli("convert", "--to", "ms3d", "-o", tmp_path / "out", source, cwd=tmp_path)
    assert run.returncode == 0, run.stdout + run.stderr
    assert f"material name '{LONG_STEM}_skin0' (38 bytes) was shortened to '" in run.stdout
    assert f"group name '{LONG_STEM}' (32 bytes) was shortened to '" in run.stdout
    model = parse_ms3d((tmp_path / "out" / f"{LONG_STEM}.ms3d").read_bytes())
    materials, groups = _names(model)
    assert SHORT.match(materials[0]) and SHORT.match(groups[0])
    texture = model.materials[0].texture_raw.split(b"\0")[0].decode()
    assert (tmp_path / "out" / texture).is_file()


@pytest.mark.parametrize("path", corpus_files("**/juggernog.mdl") or [
    pytest.param(None, marks=pytest.mark.skip(reason=f"juggernog.mdl (a held-out model) is not in the corpus at {CORPUS}"))])
def test_cli_converts_juggernog_to_ms3d(tmp_path, path):
    pytest.importorskip("bpy", reason="convert runs the operators in the bpy wheel")
    run = cli("convert", "--to", "ms3d", "-o", tmp_path / "out", path, cwd=tmp_path)
    assert run.returncode == 0, run.stdout + run.stderr
    model = parse_ms3d((tmp_path / "out" / "juggernog.ms3d").read_bytes())
    assert all(m.name_raw.endswith(b"\0") for m in model.materials)
