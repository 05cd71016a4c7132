"""MS3D in Blender, the import: against the independent decoder (meshes, normals, materials, the armature),
posing against MilkShape's own skinning, the format's weight rules, names in other code pages and the
texture found by name.

Tolerances: positions and rest poses are float32 in the file; Blender keeps bone matrices as
head/tail/roll in float32, so posed positions agree to about 1e-6 of the model's size (1e-4
asserted). Custom normals are stored by Blender to about 5e-4 rad (1e-2 asserted).
"""
from __future__ import annotations

import numpy as np
import pytest
from support import ms3d_skinning
from support.blender_helpers import corner_uvs, polygon_vertices, world_positions
from support.environment import CORPUS, corpus_params
from support.ms3d_models import tiny_rig
from support.ms3d_reference import decode
from support.ms3d_skinning import Y_UP_TO_Z_UP
from support.operators import export_ms3d, group_objects, import_ms3d

from formats.ms3d.write import serialize_ms3d

FILES = corpus_params("ms3d/*/*.ms3d")
RIGGED = [p for p in FILES if p.values[0] is None or decode(p.values[0].read_bytes()).joints]


def model_size(ref) -> float:
    xyz = np.array([v[1] for v in ref.vertices], dtype=np.float64).reshape(-1, 3)
    return float(np.ptp(xyz, axis=0).max()) if len(xyz) else 1.0


def action_fcurves(obj) -> list:
    anim = obj.animation_data
    if hasattr(anim, "action_slot"):
        from bpy_extras import anim_utils
        return list(anim_utils.action_get_channelbag_for_slot(anim.action, anim.action_slot).fcurves)
    return list(anim.action.fcurves)


def back_to_back(triangles: np.ndarray) -> np.ndarray:
    """Triangles that have a twin with the same vertices in the opposite order (a double-sided face);
    Blender cannot give both the same custom normal."""
    canonical = [tuple(sorted(t)) for t in triangles.tolist()]
    seen: dict[tuple, int] = {}
    for key in canonical:
        seen[key] = seen.get(key, 0) + 1
    return np.array([seen[key] > 1 for key in canonical], dtype=bool)


@pytest.mark.parametrize("path", FILES)
def test_import_matches_independent_decode(bpy_scene, path):
    bpy = bpy_scene
    ref = decode(path.read_bytes())
    root = import_ms3d(bpy, path)
    assert root.name == path.stem and root.classic_model.source_format == "MS3D"
    assert (root.type == "ARMATURE") == bool(ref.joints)
    objects = group_objects(bpy)
    assert sorted(objects) == list(range(len(ref.groups)))
    xyz = np.array([v[1] for v in ref.vertices], dtype=np.float32).reshape(-1, 3)
    tris = ref.triangles
    for g, (flags, name, members, material) in enumerate(ref.groups):
        obj = objects[g]
        mesh = obj.data
        assert obj.parent == root
        assert obj.name.split(".")[0] == (name.split(b"\0")[0].decode("latin-1") or f"group{g}")
        corners = np.array([tris[i][1] for i in members], dtype=np.int64).reshape(-1, 3)
        used = np.unique(corners)
        index = np.empty(len(mesh.vertices), dtype=np.int32)
        mesh.attributes["ms3d_vertex_index"].data.foreach_get("value", index)
        np.testing.assert_array_equal(index, used)
        co = np.empty(len(mesh.vertices) * 3, dtype=np.float32)
        mesh.vertices.foreach_get("co", co)
        np.testing.assert_array_equal(co.reshape(-1, 3), (xyz[used].astype(np.float64) @ Y_UP_TO_Z_UP.T))
        np.testing.assert_array_equal(used[polygon_vertices(mesh)], corners)
        if not len(members):
            continue
        s = np.array([tris[i][3] for i in members], dtype=np.float32)
        t = np.array([tris[i][4] for i in members], dtype=np.float32)
        np.testing.assert_allclose(corner_uvs(mesh), np.stack([s, 1.0 - t], axis=-1), atol=1e-7)
        normals = np.array([tris[i][2] for i in members], dtype=np.float64).reshape(-1, 3) @ Y_UP_TO_Z_UP.T
        normals /= np.linalg.norm(normals, axis=1, keepdims=True)
        shown = np.empty(len(mesh.loops) * 3, dtype=np.float32)
        mesh.corner_normals.foreach_get("vector", shown)
        cosine = np.einsum("ij,ij->i", shown.reshape(-1, 3), normals)
        single = ~np.repeat(back_to_back(corners), 3)
        assert np.all(cosine[single] > np.cos(1e-2))
        if material >= 0:
            assert mesh.materials[0]["ms3d_material"]["index"] == material
        else:
            assert len(mesh.materials) == 0
    materials = root["ms3d_model"].get("materials", [])
    assert [m["ms3d_material"]["index"] for m in materials] == list(range(len(ref.materials)))
    for material, source in zip(materials, ref.materials):
        bsdf = next(n for n in material.node_tree.nodes if n.type == "BSDF_PRINCIPLED")
        np.testing.assert_allclose(bsdf.inputs["Base Color"].default_value[:3], source["diffuse"][:3], atol=1e-7)
        np.testing.assert_allclose(bsdf.inputs["Roughness"].default_value,
                                   np.clip(1 - source["shininess"] / 128, 0, 1), atol=1e-6)
        np.testing.assert_allclose(bsdf.inputs["Alpha"].default_value, source["transparency"], atol=1e-7)
    if ref.joints:
        _check_armature(bpy, root, ref, path)


def _check_armature(bpy, root, ref, path):
    parents = ms3d_skinning.parent_indices(ref)
    rest = ms3d_skinning.rest_globals(ref)
    bones = [b for b in root.data.bones]
    assert len(bones) == len(ref.joints)
    by_index = {b["ms3d_joint"]["index"]: b for b in bones}
    size = model_size(ref)
    for j, joint in enumerate(ref.joints):
        bone = by_index[j]
        assert bone.name.split(".")[0] == joint["name"].split(b"\0")[0].decode("latin-1")
        parent = bone.parent["ms3d_joint"]["index"] if bone.parent else -1
        assert parent == parents[j]
        expected = np.eye(4)
        expected[:3, :3] = Y_UP_TO_Z_UP
        expected = expected @ rest[j]
        matrix = np.array(bone.matrix_local)
        np.testing.assert_allclose(matrix[:3, :3], expected[:3, :3], atol=1e-5)
        np.testing.assert_allclose(matrix[:3, 3], expected[:3, 3], atol=1e-5 * max(size, 1.0))
        assert root.pose.bones[bone.name].rotation_mode == "XYZ"
    scene = bpy.context.scene
    assert scene.render.fps / scene.render.fps_base == pytest.approx(ref.fps if ref.fps > 0 else 24.0)
    assert scene.frame_start == 1 and scene.frame_end >= ref.total_frames
    if any(j["rot_keys"] or j["pos_keys"] for j in ref.joints):
        assert root.animation_data.action.name == path.stem


def _key_times(ref, limit: int = 14) -> list[float]:
    times = sorted({k[0] for j in ref.joints for k in j["rot_keys"] + j["pos_keys"]})
    if len(times) > limit:
        times = [times[i] for i in np.linspace(0, len(times) - 1, limit).round().astype(int)]
    return times


@pytest.mark.parametrize("path", RIGGED)
def test_posed_mesh_matches_milkshape_skinning(bpy_scene, path):
    """At key times (of any joint) the evaluated meshes equal MilkShape's skinning of the file."""
    bpy = bpy_scene
    ref = decode(path.read_bytes())
    import_ms3d(bpy, path)
    objects = group_objects(bpy)
    scene = bpy.context.scene
    fps = ref.fps if ref.fps > 0 else 24.0
    size = model_size(ref)
    _, weights = ms3d_skinning.joint_weights(ref)
    full = np.isclose(weights.sum(axis=1), 1.0) | (weights.sum(axis=1) == 0)
    moved = 0.0
    for time in _key_times(ref):
        frame = time * fps
        scene.frame_set(int(np.floor(frame)), subframe=float(frame - np.floor(frame)))
        expected = ms3d_skinning.skin(ref, fps, frame, normalize=True) @ Y_UP_TO_Z_UP.T
        as_written = ms3d_skinning.skin(ref, fps, frame) @ Y_UP_TO_Z_UP.T
        np.testing.assert_allclose(expected[full], as_written[full], atol=1e-9)
        rest = np.array([v[1] for v in ref.vertices]) @ Y_UP_TO_Z_UP.T
        moved = max(moved, float(np.abs(expected - rest).max()))
        for obj in objects.values():
            index = np.empty(len(obj.data.vertices), dtype=np.int32)
            obj.data.attributes["ms3d_vertex_index"].data.foreach_get("value", index)
            np.testing.assert_allclose(world_positions(bpy, obj), expected[index], atol=1e-4 * size)
    if any(j["rot_keys"] for j in ref.joints):
        assert moved > 1e-2 * size


def test_posed_mesh_with_other_axes(bpy_scene):
    """The bone construction holds for any forward/up choice: posing still equals MilkShape, rotated."""
    path = CORPUS / "ms3d" / "sge" / "zombie.ms3d"
    if not path.exists():
        pytest.skip(f"corpus file {path} not found")
    bpy = bpy_scene
    from bpy_extras.io_utils import axis_conversion
    ref = decode(path.read_bytes())
    import_ms3d(bpy, path, axis_forward="-Y", axis_up="X")
    conversion = np.array(axis_conversion(from_forward="-Y", from_up="X"))
    (obj,) = group_objects(bpy).values()
    index = np.empty(len(obj.data.vertices), dtype=np.int32)
    obj.data.attributes["ms3d_vertex_index"].data.foreach_get("value", index)
    for time in _key_times(ref, 6):
        frame = time * ref.fps
        bpy.context.scene.frame_set(int(np.floor(frame)), subframe=float(frame - np.floor(frame)))
        expected = ms3d_skinning.skin(ref, ref.fps, frame) @ conversion.T
        np.testing.assert_allclose(world_positions(bpy, obj), expected[index], atol=1e-4 * model_size(ref))


def test_positions_between_keys_follow_milkshape_hermite_curves(bpy_scene):
    path = CORPUS / "ms3d" / "glscene" / "Woman4.ms3d"
    if not path.exists():
        pytest.skip(f"corpus file {path} not found")
    bpy = bpy_scene
    ref = decode(path.read_bytes())
    root = import_ms3d(bpy, path)
    hips = next(j for j in ref.joints if j["name"].startswith(b"Hips\0"))
    keys = hips["pos_keys"]
    name = next(b.name for b in root.data.bones if b["ms3d_joint"]["index"] == ref.joints.index(hips))
    curves = sorted((fc for fc in action_fcurves(root) if fc.data_path == f'pose.bones["{name}"].location'),
                    key=lambda fc: fc.array_index)
    assert len(curves) == 3
    for k in (3, len(keys) // 2, len(keys) - 3):
        frame = (keys[k][0] + 0.37 * (keys[k + 1][0] - keys[k][0])) * ref.fps
        expected = ms3d_skinning._position(keys, ref.fps, frame)
        np.testing.assert_allclose([fc.evaluate(frame) for fc in curves], expected, atol=1e-4)


def test_weights_follow_the_format_rules(bpy_scene, tmp_path):
    bpy = bpy_scene
    (tmp_path / "tiny.ms3d").write_bytes(serialize_ms3d(tiny_rig()))
    import_ms3d(bpy, tmp_path / "tiny.ms3d")
    (obj,) = group_objects(bpy).values()
    weights = {v.index: {obj.vertex_groups[g.group].name: round(g.weight, 6) for g in v.groups}
               for v in obj.data.vertices}
    # own joint = weights[0]; bone_ids[0] = weights[1]; bone_ids[1] = weights[2]; bone_ids[2] = the rest;
    # all zero = 100 % own joint; joint -1 = no influence (vertex 2's remaining 20 %, vertex 5's 30 %)
    assert weights == {0: {"root": 1.0}, 1: {"root": 0.6, "tip": 0.4}, 2: {"root": 0.5, "tip": 0.3},
                       3: {"tip": 1.0}, 4: {"tip": 1.0}, 5: {"root": 0.5}}
    assert [m.type for m in obj.modifiers] == ["ARMATURE"]


def test_names_in_other_code_pages_are_readable_and_written_back(bpy_scene, tmp_path):
    bpy = bpy_scene
    model = tiny_rig(names=(b"K\xf6rper", b"\xe6\x89\x8b"), tip_parent=b"K\xf6rper", group_name=b"Gr\xfcn\0junk")
    data = serialize_ms3d(model)
    (tmp_path / "names.ms3d").write_bytes(data)
    root = import_ms3d(bpy, tmp_path / "names.ms3d")
    assert sorted(b.name for b in root.data.bones) == ["Körper", "手"]
    (obj,) = group_objects(bpy).values()
    assert obj.name == "Grün" and obj["ms3d_comment"] == "café ÿ"
    export_ms3d(bpy, tmp_path / "again.ms3d")
    assert (tmp_path / "again.ms3d").read_bytes() == data


def test_texture_found_by_name_and_path_written_back(bpy_scene, tmp_path):
    path = CORPUS / "ms3d" / "sge" / "zombie.ms3d"
    if not path.exists():
        pytest.skip(f"corpus file {path} not found")
    bpy = bpy_scene
    root = import_ms3d(bpy, path)
    (material,) = root["ms3d_model"]["materials"]
    image = next(n.image for n in material.node_tree.nodes if n.type == "TEX_IMAGE")
    assert image.name.lower() == "zombie.tga" and image.packed_file is not None and image.size[0] > 0
    model = export_ms3d(bpy, tmp_path / "z.ms3d")
    assert model.materials[0].texture == ".\\zombie.tga"
