"""An untouched MD5 pair exports as the file it came from (common/md5/contract.py: the import keeps
the files' text, the export keeps every value that Blender still holds within the printed precision).

Until h/md5import's importer is in main, the objects an import leaves are built here from the decoded
corpus files by the contract (an armature whose bones are the joints, MD5_JOINT_INDEX on each, a mesh
per block with MD5_MESH_INDEX, vertex groups, corners reversed, an action keyed from the anim's frames
with MD5_ANIM_SOURCE): the fixture, not the product's importer."""
from __future__ import annotations

import numpy as np
import pytest
from support.actions import export
from support.environment import corpus_files
from support.md5_rig import _wxyz, frame_skeleton, skinned

from formats.md5.anim import read_md5anim
from formats.md5.mesh import read_md5mesh

DOOR = corpus_files("md5/redeclipse/data/unnamed/door01/mesh.md5mesh")
FLAG = corpus_files("md5/redeclipse/data/props/flag/mesh.md5mesh")


def _matrix(pos, wxyz):
    from mathutils import Matrix, Quaternion, Vector
    return Matrix.Translation(Vector(pos)) @ Quaternion(wxyz).to_matrix().to_4x4()


def imported_like(bpy, mesh_path, anim_path):
    """The contract's objects for ``mesh_path`` and ``anim_path`` (see the module docstring)."""
    from importlib import import_module

    from mathutils import Matrix

    from tools.load_extension import enable_extension
    contract = import_module(f"{enable_extension()}.common.md5.contract")
    data, anim_data = mesh_path.read_bytes(), anim_path.read_bytes()
    mesh, anim = read_md5mesh(data), read_md5anim(anim_data)
    arm = bpy.data.armatures.new(mesh_path.stem)
    rig = bpy.data.objects.new(mesh_path.stem, arm)
    bpy.context.scene.collection.objects.link(rig)
    rig[contract.MD5_MESH_SOURCE] = data
    bind_q = _wxyz(np.asarray(mesh.joint_orient))
    bpy.context.view_layer.objects.active = rig
    bpy.ops.object.mode_set(mode="EDIT")
    bones = []
    for j, name in enumerate(mesh.joint_names):
        bone = arm.edit_bones.new(name)
        bone.head, bone.tail = (0, 0, 0), (0, 0.2, 0)
        bone.matrix = _matrix(mesh.joint_pos[j], bind_q[j])
        if mesh.joint_parents[j] >= 0:
            bone.parent = bones[mesh.joint_parents[j]]
        bones.append(bone)
    bpy.ops.object.mode_set(mode="OBJECT")
    for j, name in enumerate(mesh.joint_names):
        arm.bones[name][contract.MD5_JOINT_INDEX] = j
    objects = []
    for m, part in enumerate(mesh.meshes):
        positions = skinned(part, np.asarray(mesh.joint_pos), bind_q)
        data_block = bpy.data.meshes.new(f"block{m}")
        data_block.from_pydata(positions.tolist(), [], part.triangles[:, ::-1].tolist())
        uv = data_block.uv_layers.new(name="UVMap")
        corners = np.empty(len(data_block.loops), np.int32)
        data_block.loops.foreach_get("vertex_index", corners)
        uv.uv.foreach_set("vector", np.stack([part.uv[corners, 0], 1.0 - part.uv[corners, 1]], 1).ravel())
        obj = bpy.data.objects.new(f"block{m}", data_block)
        bpy.context.scene.collection.objects.link(obj)
        obj.parent = rig
        obj[contract.MD5_MESH_INDEX] = m
        groups = [obj.vertex_groups.new(name=n) for n in mesh.joint_names]
        for v in range(part.num_verts):
            for w in range(part.weight_start[v], part.weight_start[v] + part.weight_count[v]):
                groups[part.weight_joint[w]].add([v], float(part.weight_bias[w]), "ADD")
        obj.modifiers.new("rig", "ARMATURE").object = rig
        objects.append(obj)
    rest = [np.array(_matrix(mesh.joint_pos[j], bind_q[j])) for j in range(mesh.num_joints)]
    for k in range(anim.num_frames):
        pos, quat = frame_skeleton(anim, k)
        world = [np.array(_matrix(pos[j], quat[j])) for j in range(anim.num_joints)]
        for j, name in enumerate(anim.joint_names):
            p = anim.joint_parents[j]
            rest_local = rest[j] if p < 0 else np.linalg.inv(rest[p]) @ rest[j]
            pose_local = world[j] if p < 0 else np.linalg.inv(world[p]) @ world[j]
            basis = Matrix((np.linalg.inv(rest_local) @ pose_local).tolist())
            bone = rig.pose.bones[name]
            bone.rotation_mode = "QUATERNION"
            bone.location, bone.rotation_quaternion = basis.to_translation(), basis.to_quaternion()
            bone.keyframe_insert("location", frame=1 + k)
            bone.keyframe_insert("rotation_quaternion", frame=1 + k)
    action = rig.animation_data.action
    action[contract.MD5_ANIM_SOURCE] = anim_data
    item = rig.classic_model.animations.add()      # the import's animation list, on the armature root
    item.name, item.action, item.frame_start, item.frame_end = action.name, action, 1, anim.num_frames
    bpy.context.scene.frame_start, bpy.context.scene.frame_end = 1, anim.num_frames
    return objects, data, anim_data


@pytest.mark.parametrize("source, anim_name", [
    pytest.param(DOOR[0] if DOOR else None, "close.md5anim", id="door01",
                 marks=pytest.mark.skipif(not DOOR, reason="corpus door01 not found")),
    pytest.param(FLAG[0] if FLAG else None, "anim.md5anim", id="flag",
                 marks=pytest.mark.skipif(not FLAG, reason="corpus flag not found"))])
def test_an_untouched_pair_exports_as_its_files(bpy_scene, tmp_path, source, anim_name):
    bpy = bpy_scene
    objects, mesh_text, anim_text = imported_like(bpy, source, source.parent / anim_name)
    rig = objects[0].parent
    for source in ("TIMELINE", "ACTIONS"):        # the scene range, or the action the armature's list names
        if source == "ACTIONS":
            rig.animation_data.action.use_fake_user = True
            rig.animation_data.action = None        # found through the armature's animation list alone
        path = tmp_path / f"{source}.md5mesh"
        export(bpy, "md5", objects, path, frame_rate="SCENE", frame_source=source)
        assert path.read_bytes() == mesh_text
        assert path.with_suffix(".md5anim").read_bytes() == anim_text


@pytest.mark.skipif(not DOOR, reason="corpus door01 not found")
def test_a_moved_joint_is_written_and_the_rest_kept(bpy_scene, tmp_path):
    bpy = bpy_scene
    objects, mesh_text, _ = imported_like(bpy, DOOR[0], DOOR[0].parent / "close.md5anim")
    rig = objects[0].parent
    rig.location.x += 0.25                       # every joint and vertex moves; UVs and weights do not
    path = tmp_path / "out.md5mesh"
    export(bpy, "md5", objects, path, frame_rate="SCENE")
    new, old = read_md5mesh(path.read_bytes()), read_md5mesh(mesh_text)
    assert np.allclose(new.joint_pos[:, 0], old.joint_pos[:, 0] + 0.25, atol=1e-5)
    assert path.read_bytes() != mesh_text
    kept_lines = set(mesh_text.decode().splitlines())
    vert_lines = [line for line in path.read_bytes().decode().splitlines() if line.strip().startswith("vert ")]
    assert vert_lines and all(line in kept_lines for line in vert_lines)     # UV text kept character for character
