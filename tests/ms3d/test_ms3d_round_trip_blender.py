"""MS3D in Blender, import and export: the untouched round trip is lossless (every corpus file, other axes,
a saved .blend, one group of a moved model), a rig made in Blender and a baked import keep their poses,
meshes made in Blender (two materials, no armature) export, and edits are exported with the rest kept."""
from __future__ import annotations

import numpy as np
import pytest
from support.blender_helpers import world_positions
from support.environment import CORPUS, corpus_params
from support.ms3d_skinning import Y_UP_TO_Z_UP
from support.operators import export_ms3d, group_objects, import_ms3d
from support.scenes import skinned_cylinder as _skinned_cylinder

from formats.ms3d.codec import parse_ms3d
from formats.ms3d.records import Ms3dModel

FILES = corpus_params("ms3d/*/*.ms3d")


def assert_same_ms3d(a: Ms3dModel, b: Ms3dModel, key_atol: float = 1e-5) -> None:
    """Field by field; only key times and values are compared with a tolerance."""
    for name in ("vert_flags", "vert_xyz", "vert_bone", "vert_refcount", "tri_flags", "tri_vertices",
                 "tri_normals", "tri_s", "tri_t", "tri_smoothing", "tri_group"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)
    assert (a.version, a.optional_blocks()) == (b.version, b.optional_blocks())
    assert (a.animation_fps, a.current_time, a.total_frames) == (b.animation_fps, b.current_time, b.total_frames)
    assert [(g.flags, g.name_raw, g.triangles.tolist(), g.material) for g in a.groups] == \
        [(g.flags, g.name_raw, g.triangles.tolist(), g.material) for g in b.groups]
    for x, y in zip(a.materials, b.materials, strict=True):
        for name in ("name_raw", "ambient", "diffuse", "specular", "emissive", "shininess", "transparency",
                     "mode", "texture_raw", "alphamap_raw"):
            np.testing.assert_array_equal(getattr(x, name), getattr(y, name), err_msg=f"material {name}")
    for x, y in zip(a.joints, b.joints, strict=True):
        assert (x.flags, x.name_raw, x.parent_raw) == (y.flags, y.name_raw, y.parent_raw)
        np.testing.assert_array_equal(x.rotation, y.rotation)
        np.testing.assert_array_equal(x.position, y.position)
        for keys in ("rot_keys", "pos_keys"):
            assert getattr(x, keys).shape == getattr(y, keys).shape, f"{x.name} {keys}"
            np.testing.assert_allclose(getattr(x, keys), getattr(y, keys), rtol=0, atol=key_atol)
    assert a.comments == b.comments
    for name in ("vertex_extras", "joint_extras"):
        x, y = getattr(a, name), getattr(b, name)
        assert (x is None) == (y is None)
        if x is not None:
            for field in vars(x):
                np.testing.assert_array_equal(getattr(x, field), getattr(y, field), err_msg=f"{name} {field}")
    assert a.model_extras == b.model_extras
    assert a.trailing == b.trailing


@pytest.mark.parametrize("path", FILES)
def test_untouched_round_trip_is_lossless(bpy_scene, path, tmp_path):
    bpy = bpy_scene
    original = path.read_bytes()
    import_ms3d(bpy, path)
    exported = export_ms3d(bpy, tmp_path / path.name)
    assert_same_ms3d(parse_ms3d(original), exported)
    assert (tmp_path / path.name).read_bytes() == original


@pytest.mark.parametrize("axes", [("Y", "Z"), ("X", "-Y")])
def test_round_trip_with_other_axes(bpy_scene, tmp_path, axes):
    path = CORPUS / "ms3d" / "sge" / "zombie.ms3d"
    if not path.exists():
        pytest.skip(f"corpus file {path} not found")
    bpy = bpy_scene
    forward, up = axes
    import_ms3d(bpy, path, axis_forward=forward, axis_up=up)
    exported = export_ms3d(bpy, tmp_path / "z.ms3d", axis_forward=forward, axis_up=up)
    assert_same_ms3d(parse_ms3d(path.read_bytes()), exported)


@pytest.mark.parametrize("animation,frames", [("KEYS", (1, 5, 9)), ("BAKE", (1, 3, 5, 7, 9))])
def test_model_rigged_in_blender_exports_and_reimports(bpy_scene, tmp_path, animation, frames):
    bpy = bpy_scene
    body, rig = _skinned_cylinder(bpy)
    scene = bpy.context.scene
    expected = {}
    for frame in frames:
        scene.frame_set(frame)
        expected[frame] = world_positions(bpy, body)
    model = export_ms3d(bpy, tmp_path / "rig.ms3d", animation=animation)
    assert [(j.name, j.parent) for j in model.joints] == [("bone0", ""), ("bone1", "bone0"), ("bone2", "bone1")]
    if animation == "KEYS":    # the action's keys, and more where MilkShape would stray (tests/ms3d/test_ms3d_keyframes.py)
        for joint in model.joints:
            assert set(np.round(joint.rot_keys[:, 0] * 24.0, 4)) >= {1.0, 5.0, 9.0}
        assert [len(j.pos_keys) == 0 for j in model.joints] == [False, True, True]
    else:
        assert [len(j.rot_keys) for j in model.joints] == [9] * 3
        assert [len(j.pos_keys) for j in model.joints] == [9] * 3
    assert {tuple(w) for w in model.vertex_extras.weights.tolist()} == {(100, 0, 0), (75, 25, 0)}
    shared = model.vertex_extras.weights[:, 1] == 25
    np.testing.assert_array_equal(model.vertex_extras.bone_ids[shared, 0], model.vert_bone[shared] + 1)
    assert (model.animation_fps, model.total_frames) == (24.0, 9)

    bpy.ops.wm.read_homefile(use_empty=True)
    import_ms3d(bpy, tmp_path / "rig.ms3d")
    scene = bpy.context.scene
    (reimported,) = group_objects(bpy).values()
    assert len(reimported.data.vertices) == len(expected[frames[0]])
    for frame in frames:
        scene.frame_set(frame)
        np.testing.assert_allclose(world_positions(bpy, reimported), expected[frame], atol=1e-5)


def test_baking_an_imported_model_keeps_its_pose(bpy_scene, tmp_path):
    path = CORPUS / "ms3d" / "sge" / "zombie.ms3d"
    if not path.exists():
        pytest.skip(f"corpus file {path} not found")
    bpy = bpy_scene
    import_ms3d(bpy, path)
    scene = bpy.context.scene
    (obj,) = group_objects(bpy).values()
    frames = (1, 37, 75, 126, 200)
    expected = {}
    for frame in frames:
        scene.frame_set(frame)
        expected[frame] = world_positions(bpy, obj)
    model = export_ms3d(bpy, tmp_path / "baked.ms3d", animation="BAKE")
    assert {len(j.rot_keys) for j in model.joints} == {200}
    bpy.ops.wm.read_homefile(use_empty=True)
    import_ms3d(bpy, tmp_path / "baked.ms3d")
    (obj,) = group_objects(bpy).values()
    for frame in frames:
        bpy.context.scene.frame_set(frame)
        np.testing.assert_allclose(world_positions(bpy, obj), expected[frame], atol=1e-4)


@pytest.mark.parametrize("name", ["sge/zombie.ms3d", "glscene/Woman4.ms3d"])
def test_round_trip_survives_saving_the_blend_file(bpy_scene, tmp_path, name):
    path = CORPUS / "ms3d" / name
    if not path.exists():
        pytest.skip(f"corpus file {path} not found")
    bpy = bpy_scene
    import_ms3d(bpy, path)
    bpy.ops.wm.save_as_mainfile(filepath=str(tmp_path / "saved.blend"))
    bpy.ops.wm.open_mainfile(filepath=str(tmp_path / "saved.blend"))
    export_ms3d(bpy, tmp_path / "again.ms3d")
    assert (tmp_path / "again.ms3d").read_bytes() == path.read_bytes()


def test_one_selected_group_of_a_moved_model_exports_the_model(bpy_scene, tmp_path):
    """The model object and armature are found from the group; everything is in the armature's space."""
    path = CORPUS / "ms3d" / "sge" / "zombie.ms3d"
    if not path.exists():
        pytest.skip(f"corpus file {path} not found")
    bpy = bpy_scene
    root = import_ms3d(bpy, path)
    root.location, root.rotation_euler = (5.0, 1.0, 2.0), (0.3, 0.2, 1.0)
    export_ms3d(bpy, tmp_path / "z.ms3d", objects=list(group_objects(bpy).values()))
    assert (tmp_path / "z.ms3d").read_bytes() == path.read_bytes()


def test_an_object_with_two_materials_becomes_two_groups(bpy_scene, tmp_path):
    bpy = bpy_scene
    bpy.ops.mesh.primitive_cube_add()
    cube = bpy.context.object
    for name in ("Red", "Blue"):
        cube.data.materials.append(bpy.data.materials.new(name))
    cube.data.polygons[0].material_index = 1
    model = export_ms3d(bpy, tmp_path / "two.ms3d")
    assert [(g.name, len(g.triangles), g.material) for g in model.groups] == [("Cube_Red", 10, 0),
                                                                             ("Cube_Blue", 2, 1)]
    assert [m.name for m in model.materials] == ["Red", "Blue"]
    assert model.num_vertices == 8


def test_static_mesh_without_armature(bpy_scene, tmp_path):
    bpy = bpy_scene
    bpy.ops.mesh.primitive_cube_add(location=(1, 2, 3))
    cube = bpy.context.object
    bpy.ops.object.shade_smooth()
    top = {v.index for v in cube.data.vertices if v.co.z > 0}
    for edge in cube.data.edges:
        edge.use_edge_sharp = set(edge.vertices) <= top
    material = bpy.data.materials.new("Paint")
    cube.data.materials.append(material)
    model = export_ms3d(bpy, tmp_path / "cube.ms3d")
    assert (model.num_vertices, model.num_triangles, len(model.groups), len(model.joints)) == (8, 12, 1, 0)
    assert model.groups[0].name == "Cube" and model.groups[0].material == 0
    assert model.materials[0].name == "Paint"
    world = np.array([(cube.matrix_world @ v.co)[:] for v in cube.data.vertices])
    np.testing.assert_allclose(model.vert_xyz, world @ Y_UP_TO_Z_UP, atol=1e-6)
    assert np.all(model.vert_bone == -1)
    face_normals = np.cross(*(model.vert_xyz[model.tri_vertices[:, k]] - model.vert_xyz[model.tri_vertices[:, 0]]
                              for k in (1, 2)))
    assert np.all(np.einsum("ij,ij->i", face_normals, model.tri_normals[:, 0]) > 0)
    on_top = np.all(np.isin(model.tri_vertices, sorted(top)), axis=1)
    assert on_top.sum() == 2 and len(set(model.tri_smoothing[on_top].tolist())) == 1
    assert len(set(model.tri_smoothing[~on_top].tolist())) == 1
    assert model.tri_smoothing[on_top][0] != model.tri_smoothing[~on_top][0] and model.tri_smoothing.min() > 0


def test_edits_are_exported_and_the_rest_kept(bpy_scene, tmp_path):
    path = CORPUS / "ms3d" / "sge" / "zombie.ms3d"
    if not path.exists():
        pytest.skip(f"corpus file {path} not found")
    bpy = bpy_scene
    original = parse_ms3d(path.read_bytes())
    root = import_ms3d(bpy, path)
    (obj,) = group_objects(bpy).values()
    obj.data.vertices[5].co.z += 1.0
    material = obj.data.materials[0]
    bsdf = next(n for n in material.node_tree.nodes if n.type == "BSDF_PRINCIPLED")
    bsdf.inputs["Base Color"].default_value = (0.25, 0.5, 0.75, 1.0)
    root.classic_model.ms3d_comment = "edited"
    bone = next(b for b in root.data.bones if b["ms3d_joint"]["index"] == 2)
    bone["ms3d_comment"] = "a joint comment"
    model = export_ms3d(bpy, tmp_path / "edited.ms3d")
    index = int(obj.data.attributes["ms3d_vertex_index"].data[5].value)
    moved = original.vert_xyz.copy()
    moved[index, 1] += 1.0
    np.testing.assert_allclose(model.vert_xyz, moved, atol=1e-6)
    np.testing.assert_array_equal(model.materials[0].diffuse,
                                  np.float32([0.25, 0.5, 0.75, original.materials[0].diffuse[3]]))
    np.testing.assert_array_equal(model.materials[0].specular, original.materials[0].specular)
    assert model.materials[0].shininess == original.materials[0].shininess
    assert model.comments.model == "edited"
    assert [(c.index, c.text) for c in model.comments.joint] == [(2, "a joint comment")]
    for x, y in zip(original.joints, model.joints):
        np.testing.assert_array_equal(x.rotation, y.rotation)
        np.testing.assert_array_equal(x.rot_keys, y.rot_keys)
    np.testing.assert_array_equal(model.tri_vertices, original.tri_vertices)
