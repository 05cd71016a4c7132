"""An MD5 (mesh and every anim of its folder: the corpus's Red Eclipse drone, 27 joints, 23 anims)
imported into Blender and exported as IQM with ``build_iqm``: the joints keep the MD5's order and
parents, every anim comes out at its frames, and DarkPlaces (tests/support/darkplaces_iqm.py) loads the
file with the vertices Blender shows at rest and, at every frame of every anim, the joints Blender's
pose bones have, within the file's quantisation and DarkPlaces' own; the file's skinning at each anim's
first, middle and last frame is Blender's evaluated mesh within the 8-bit weights."""
from __future__ import annotations

from importlib import import_module

import numpy as np
import pytest
from support.darkplaces_iqm import anim_poses, dp_steps
from support.engine_tools import require
from support.iqm_rig import iqm_skin, iqm_world, smd_world
from support.md5_drone import import_drone

from formats.iqm.animation import anim_frames, bind_pose, frame_poses
from formats.iqm.codec import read_iqm
from formats.iqm.records import BLENDINDEXES, BLENDWEIGHTS, POSITION
from formats.iqm.write import write_iqm


def _depth(parents, j) -> int:
    return 0 if parents[j] < 0 else 1 + _depth(parents, parents[j])


def _blender(bpy, rig, meshes, action, frames, names):
    """(F, J, 4, 4) world matrices of the bones ``names`` and (F, V, 3) world positions of ``meshes``
    (none read without ``meshes``)."""
    rig.animation_data.action = action
    slots = getattr(action, "slots", None)
    if slots:
        rig.animation_data.action_slot = slots[0]
    joints, positions = [], []
    for frame in frames:
        bpy.context.scene.frame_set(int(frame))
        depsgraph = bpy.context.evaluated_depsgraph_get()
        evaluated = rig.evaluated_get(depsgraph)
        world = np.array(evaluated.matrix_world)
        joints.append([world @ np.array(evaluated.pose.bones[n].matrix) for n in names])
        every = []
        for obj in meshes:
            mesh_eval = obj.evaluated_get(depsgraph)
            mesh = mesh_eval.to_mesh()
            co = np.empty(len(mesh.vertices) * 3, np.float32)
            mesh.vertices.foreach_get("co", co)
            mesh_eval.to_mesh_clear()
            matrix = np.array(mesh_eval.matrix_world)
            every.append(co.reshape(-1, 3) @ matrix[:3, :3].T + matrix[:3, 3])
        positions.append(np.concatenate(every) if every else np.zeros((0, 3)))
    return np.array(joints), np.array(positions)


@pytest.fixture
def converted(bpy_scene, extension, tmp_path):
    bpy = bpy_scene
    rig = import_drone(bpy, "")
    meshes = sorted((o for o in bpy.context.scene.objects if o.type == "MESH"), key=lambda o: o.name)
    actions = sorted(bpy.data.actions, key=lambda a: a.name)
    fps = bpy.context.scene.render.fps / bpy.context.scene.render.fps_base
    anims = [(a, a.name, int(a.frame_range[0]), int(a.frame_range[1]), fps, True) for a in actions]
    build = import_module(f"{extension}.exporters.iqm.build")
    path = tmp_path / "drone.iqm"
    path.write_bytes(write_iqm(build.build_iqm(bpy.context, rig, meshes, anims)))
    model = read_iqm(path.read_bytes())
    frames = {a.name: list(range(first, last + 1)) for a, _, first, last, _, _ in anims}
    return bpy, rig, meshes, actions, model, path, frames


def test_iqm_export_of_an_imported_md5_keeps_its_joints_and_anims(converted):
    bpy, rig, meshes, actions, model, path, frames = converted
    assert model.joint_names == [b.name for b in rig.data.bones][:len(model.joint_names)]
    assert len(model.joints) == 27 and model.anim_names == [a.name for a in actions]
    assert [int(n) for n in model.anims["num_frames"]] == [len(frames[a.name]) for a in actions]
    parents, translate, rotate, scale = bind_pose(model)
    inverse_bind = np.linalg.inv(iqm_world(parents, translate, rotate, scale))
    worlds = iqm_world(parents, *frame_poses(model))
    positions = model.array(POSITION).data.astype(np.float64)
    indexes = model.array(BLENDINDEXES).data.astype(np.int64)
    weights = model.array(BLENDWEIGHTS).data.astype(np.float64)
    steps = model.poses["channelscale"]
    depth = 1 + max(_depth(parents, j) for j in range(len(parents)))
    rig.data.pose_position = "REST"
    rest = _blender(bpy, rig, meshes, actions[0], frames[actions[0].name][:1], [])[1][0]
    rig.data.pose_position = "POSE"
    nearest = np.array([int(np.argmin(((rest - p) ** 2).sum(1))) for p in positions])
    assert np.abs(rest[nearest] - positions).max() < 1e-5        # every file vertex is a Blender vertex at rest
    checked = 0
    for index, action in enumerate(actions):
        file_frames = list(anim_frames(model, index))
        picks = sorted({0, len(file_frames) // 2, len(file_frames) - 1})
        joints, shown = _blender(bpy, rig, meshes, action, [frames[action.name][k] for k in picks], model.joint_names)
        extent = 1.0 + float(np.abs(joints[..., :3, 3]).max())
        tolerance = depth * (0.5 * float(steps[:, :3].max()) + 2.0 * float(steps[:, 3:7].max()) * extent) + 1e-5
        decoded = worlds[[file_frames[k] for k in picks]]
        assert np.abs(decoded - joints).max() <= tolerance, action.name
        for k, frame in enumerate(picks):
            skinning = decoded[k] @ inverse_bind
            moved = iqm_skin(positions, indexes, weights, skinning)
            # 8-bit weights: a 255th of how far the vertex's joints take it apart, and the joints' own error
            reach = np.stack([np.einsum("vij,vj->vi", skinning[indexes[:, c], :3, :3], positions)
                              + skinning[indexes[:, c], :3, 3] for c in range(4)], 1)
            spread = np.linalg.norm(reach - moved[:, None], axis=2).max(axis=1)
            allowed = 4.0 / 255.0 * spread + tolerance * (1 + np.linalg.norm(positions, axis=1))
            error = np.linalg.norm(moved - shown[k][nearest], axis=1)
            assert (error <= allowed).all(), (action.name, frame, float((error - allowed).max()))
            checked += 1
    assert checked >= 3 * 10


def test_iqm_export_of_an_imported_md5_loads_in_darkplaces_as_blender_shows_it(converted, tmp_path):
    require("darkplaces-server")
    bpy, rig, meshes, actions, model, path, frames = converted
    decompiled, anims = anim_poses(path, tmp_path / "dp", model.num_frames)
    assert [g[4] for g in decompiled.groups] == [a.name for a in actions]
    rig.data.pose_position = "REST"
    rest = _blender(bpy, rig, meshes, actions[0], frames[actions[0].name][:1], [])[1][0]
    rig.data.pose_position = "POSE"
    assert len(decompiled.positions) == model.num_vertexes
    gaps = [np.abs(rest - p).max(axis=1).min() for p in decompiled.positions]
    assert max(gaps) < 2e-5                                       # DarkPlaces' vertices: Blender's at rest
    translate_step, rotate_step = dp_steps(model)
    steps = model.poses["channelscale"]
    parents = model.poses["parent"]
    depth = 1 + max(_depth(parents, j) for j in range(len(parents)))
    worst = 0.0
    for action in actions:
        smd = anims[action.name]
        assert [n for n, _ in smd.nodes] == model.joint_names
        joints = _blender(bpy, rig, [], action, frames[action.name], model.joint_names)[0]
        extent = 1.0 + float(np.abs(joints[..., :3, 3]).max())
        tolerance = depth * (0.5 * float(steps[:, :3].max()) + translate_step +
                             (2.0 * float(steps[:, 3:7].max()) + 4.0 * rotate_step + 2e-6) * extent) + 1e-5
        error = float(np.abs(smd_world([p for _, p in smd.nodes], smd.frames) - joints).max())
        assert error <= tolerance, (action.name, error, tolerance)
        worst = max(worst, error / tolerance)
    assert worst > 0                                      # the comparison saw the poses
