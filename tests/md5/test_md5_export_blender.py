"""MD5 export of a model rigged in the test (tests/md5_rig.py: 3 bones, 2 materials, a UV seam, each
vertex weighted over 2 bones, actions ``idle`` and ``swing``): the files are decoded with formats.md5,
skinned by the test's own MD5 skinning (md5_rig.frame_skeleton / skinned, not formats.md5.skinning) and
compared with Blender's evaluated mesh at the frame each anim frame was sampled at; the frame count
against the MD2 export of the same scene (the same frame plan); Assimp reads the mesh; refusals write
nothing."""
from __future__ import annotations

import re

import numpy as np
import pytest
from support.actions import assign, export
from support.engine_tools import assimp_info
from support.md5_rig import TOLERANCE, bind_map, bind_pose, decoded, frame_skeleton, rigged, skinned, world_mesh

from formats.md2.codec import parse_md2
from formats.mdl.codec import parse_mdl


def test_actions_export_skins_to_blenders_pose_at_every_frame(bpy_scene, tmp_path):
    bpy = bpy_scene
    obj, rig, actions = rigged(bpy)
    path = tmp_path / "thing.md5mesh"
    export(bpy, "md5", [obj], path, frame_source="ACTIONS", frame_rate="GAME")
    mesh, anim = decoded(path)
    assert mesh.joint_names == ["root", "mid", "top"] == anim.joint_names
    assert list(mesh.joint_parents) == [-1, 0, 1]
    # two materials -> two blocks; a vertex per distinct (vertex, UV) of each block's faces
    assert [p.shader for p in mesh.meshes] == ["thing_skin_low", "thing_skin_high"]
    uv = obj.data.uv_layers.active.uv
    loops = obj.data.loops
    for block, material in zip(mesh.meshes, (0, 1)):
        pairs = {(loops[i].vertex_index, round(uv[i].vector[0], 5), round(uv[i].vector[1], 5))
                 for p in obj.data.polygons if p.material_index == material for i in p.loop_indices}
        assert block.num_verts == len(pairs)
        assert len(block.triangles) == 2 * sum(p.material_index == material for p in obj.data.polygons)
        assert set(block.weight_count.tolist()) <= {1, 2}
        sums = np.add.reduceat(block.weight_bias, block.weight_start)
        assert np.allclose(sums, 1.0, atol=2e-6)
    assert len({v for v, _, _ in pairs}) < len(pairs)             # the seam split some vertices
    # frames: idle 1-4 then swing 10-16 at the game rate of the 24 fps scene (fps / 10 apart)
    every = bpy.context.scene.render.fps / bpy.context.scene.render.fps_base / 10
    times = [(a, 1 + k * every) for a, k in (("idle", k) for k in range(int(3 / every) + 1))]
    times += [("idle", 4)] if times[-1][1] < 4 - 1e-6 else []
    swing = [10 + k * every for k in range(int(6 / every) + 1)]
    times += [("swing", t) for t in swing] + ([("swing", 16)] if swing[-1] < 16 - 1e-6 else [])
    assert anim.num_frames == len(times)
    assert anim.frame_rate == 10
    which = bind_map(bpy, obj, mesh)
    worst = 0.0
    for k, (name, time) in enumerate(times):
        assign(bpy, rig, actions[name])
        bpy.context.scene.frame_set(int(time), subframe=time - int(time))
        expected = world_mesh(bpy, obj)[which]
        pos, quat = frame_skeleton(anim, k)
        got = np.concatenate([skinned(p, pos, quat) for p in mesh.meshes])
        worst = max(worst, float(np.abs(got - expected).max()))
        points = np.concatenate([skinned(p, pos, quat) for p in mesh.meshes])
        assert np.allclose(anim.bounds[k], [points.min(0), points.max(0)], atol=2e-6)
    assert worst < TOLERANCE, worst
    # clockwise from the front: the face normal of (a, c, b) points away from the column's axis
    bind_pos = bind_pose(mesh, mesh.meshes[:1])
    a, b, c = (bind_pos[mesh.meshes[0].triangles[:, i]] for i in range(3))
    outward = (a + b + c) / 3 - np.array(obj.matrix_world.translation)
    outward[:, 2] = 0
    assert (np.einsum("ij,ij->i", np.cross(c - a, b - a), outward) > 0).all()


def test_timeline_export_has_the_md2_exports_frames(bpy_scene, tmp_path):
    bpy = bpy_scene
    obj, rig, actions = rigged(bpy)
    assign(bpy, rig, actions["swing"])
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 10, 16
    export(bpy, "md5", [obj], tmp_path / "a.md5mesh", frame_rate="GAME")
    export(bpy, "md2", [obj], tmp_path / "a.md2", frame_rate="GAME", skins="NAMES")
    mesh, anim = decoded(tmp_path / "a.md5mesh")
    md2 = parse_md2((tmp_path / "a.md2").read_bytes())
    assert anim.num_frames == len(md2.frame_names) > 2
    order = None
    for k in range(anim.num_frames):
        pos, quat = frame_skeleton(anim, k)
        got = np.concatenate([skinned(p, pos, quat) for p in mesh.meshes])
        scale = md2.frame_scale[k].astype(np.float64)
        md2_positions = md2.frame_verts[k].astype(np.float64) * scale + md2.frame_translate[k]
        if order is None:      # the md2 vertex nearest each md5 vertex in frame 0
            order = np.linalg.norm(got[:, None] - md2_positions[None], axis=-1).argmin(axis=1)
        step = scale.max()
        assert np.abs(got - md2_positions[order]).max() <= step + 1e-4


def test_no_armature_is_refused_and_nothing_written(bpy_scene, tmp_path):
    bpy = bpy_scene
    obj, rig, _ = rigged(bpy, with_actions=False)
    obj.modifiers.clear()
    obj.parent = None
    path = tmp_path / "plain.md5mesh"
    with pytest.raises(RuntimeError, match="MD5 is skeletal: it needs an armature"):
        export(bpy, "md5", [obj], path)
    assert list(tmp_path.iterdir()) == []


def test_a_joint_name_over_31_bytes_is_refused_before_sampling(bpy_scene, tmp_path):
    bpy = bpy_scene
    obj, rig, _ = rigged(bpy, with_actions=False)
    rig.data.bones["top"].name = "a_bone_name_longer_than_ironwail_keeps"
    with pytest.raises(RuntimeError, match="1 joint name longer than 31 bytes"):
        export(bpy, "md5", [obj], tmp_path / "long.md5mesh")
    assert list(tmp_path.iterdir()) == []


def test_weights_past_four_are_all_written_and_reported(bpy_scene, tmp_path, capfd):
    bpy = bpy_scene
    obj, rig, _ = rigged(bpy, with_actions=False)
    bpy.context.view_layer.objects.active = rig
    bpy.ops.object.mode_set(mode="EDIT")
    for n in ("x1", "x2"):
        bone = rig.data.edit_bones.new(n)
        bone.head, bone.tail = (0, 0, 0), (0, 0.3, 0)
    bpy.ops.object.mode_set(mode="OBJECT")
    for n, w in (("x1", 0.01), ("x2", 0.02)):
        obj.vertex_groups.new(name=n).add([0, 5], w, "REPLACE")
    obj.vertex_groups["top"].add([0, 5], 0.03, "REPLACE")
    export(bpy, "md5", [obj], tmp_path / "w.md5mesh")
    out = capfd.readouterr()
    mesh, _ = decoded(tmp_path / "w.md5mesh")
    counts = np.concatenate([p.weight_count for p in mesh.meshes])
    assert counts.max() == 5 and (counts == 5).sum() >= 2          # Blender's 0 and 5, split where UVs differ
    assert f"{(counts == 5).sum()} vertices have more than 4 bone weights (up to 5): all are written" in out.out + out.err


def test_assimp_reads_the_exported_mesh(bpy_scene, tmp_path):
    bpy = bpy_scene
    obj, rig, actions = rigged(bpy)
    assign(bpy, rig, actions["idle"])
    path = tmp_path / "thing.md5mesh"
    export(bpy, "md5", [obj], path)
    mesh, _ = decoded(path)
    info = assimp_info(path)          # Assimp's MD5 loader reads the .md5anim beside the mesh too
    assert info.meshes == len(mesh.meshes)
    assert info.vertices == sum(p.num_verts for p in mesh.meshes)
    assert info.faces == sum(len(p.triangles) for p in mesh.meshes)
    assert info.bones == sum(len(set(p.weight_joint.tolist())) for p in mesh.meshes)
    assert re.search(r"^Animations:\s+1$", info.log, re.M)
    assert re.search(rf"^Animation Channels:\s+{mesh.num_joints}$", info.log, re.M)


def test_a_vertex_at_infinity_is_refused_and_nothing_written(bpy_scene, tmp_path):
    bpy = bpy_scene
    obj, rig, _ = rigged(bpy, with_actions=False)
    obj.data.vertices[3].co = (float("inf"), 0.0, 0.0)
    with pytest.raises(RuntimeError, match=r"cannot export as MD5: .*coordinates not finite"):
        export(bpy, "md5", [obj], tmp_path / "inf.md5mesh")
    assert list(tmp_path.iterdir()) == []


def test_a_collection_exporter_writes_the_pair(bpy_scene, tmp_path):
    bpy = bpy_scene
    obj, rig, actions = rigged(bpy)
    assign(bpy, rig, actions["idle"])
    models = bpy.data.collections.new("Models")
    bpy.context.scene.collection.children.link(models)
    for item in (obj, rig):
        models.objects.link(item)
    path = tmp_path / "c.md5mesh"
    with bpy.context.temp_override(collection=models):
        bpy.ops.collection.exporter_add(name="IO_FH_classic_models_md5")
        models.exporters[0].export_properties.filepath = str(path)
        assert bpy.ops.collection.exporter_export(index=0) == {"FINISHED"}
    mesh, anim = decoded(path)
    assert mesh.joint_names == anim.joint_names and anim.num_frames > 1


def test_a_part_parented_to_a_bone_moves_with_its_joint(bpy_scene, tmp_path):
    bpy = bpy_scene
    obj, rig, actions = rigged(bpy)
    bpy.ops.mesh.primitive_cube_add(size=0.3, location=(0.4, 0.0, 2.6))
    part = bpy.context.active_object
    part.data.uv_layers.new(name="UVMap")
    world = part.matrix_world.copy()
    part.parent, part.parent_type, part.parent_bone = rig, "BONE", "top"
    part.matrix_world = world
    path = tmp_path / "p.md5mesh"
    export(bpy, "md5", [obj, part], path, frame_source="ACTIONS")
    mesh, anim = decoded(path)
    cube = [p for p in mesh.meshes if set(p.weight_joint.tolist()) == {2} and p.num_verts <= 24]
    assert len(cube) == 1
    k = 0
    for name in ("idle", "swing"):
        assign(bpy, rig, actions[name])
        for frame in range(*((1, 5) if name == "idle" else (10, 17))):
            bpy.context.scene.frame_set(frame)
            pos, quat = frame_skeleton(anim, k)
            got = skinned(cube[0], pos, quat)
            expected = world_mesh(bpy, part)
            assert np.linalg.norm(got[:, None] - expected[None], axis=-1).min(axis=1).max() < TOLERANCE, (name, frame)
            k += 1
    assert k == anim.num_frames


def test_a_still_model_is_one_frame_as_in_the_mdl(bpy_scene, tmp_path):
    bpy = bpy_scene
    obj, rig, _ = rigged(bpy, with_actions=False)
    rig.pose.bones["mid"].rotation_euler = (0.3, 0.0, 0.0)     # posed, but nothing animates
    export(bpy, "md5", [obj], tmp_path / "s.md5mesh", frame_rate="GAME")
    export(bpy, "mdl", [obj], tmp_path / "s.mdl", frame_rate="GAME")
    _, anim = decoded(tmp_path / "s.md5mesh")
    assert anim.num_frames == len(parse_mdl((tmp_path / "s.mdl").read_bytes()).frames) == 1
    export(bpy, "md5", [obj], tmp_path / "k.md5mesh", frame_rate="GAME", keep_still_frames=True)
    assert decoded(tmp_path / "k.md5mesh")[1].num_frames > 100
