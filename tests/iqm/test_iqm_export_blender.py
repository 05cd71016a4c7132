"""IQM export of a rig made in Blender (tests/support/iqm_rig.py: 4 bones with a disconnected one, a
constraint and a driver, a skinned column with 2 materials, a UV seam, flat faces and colours, actions
``walk`` and ``wave``): ``build_iqm`` + ``write_iqm``, decoded by ``read_iqm`` and
``formats/iqm/animation.py``, the joints composed by the test's own code (``iqm_world``) and compared
with Blender's pose bone matrices at every frame of each anim, the skinned vertices with Blender's
evaluated mesh, within the file's own quantisation; broken exports (an anim's frames offset by one, two
joints swapped) fail the same comparison."""
from __future__ import annotations

from importlib import import_module

import numpy as np
import pytest
from support.iqm_rig import (
    BONES,
    WALK,
    WAVE,
    blender_frames,
    decoded_worlds,
    iqm_skin,
    iqm_world,
    joint_errors,
    joint_tolerance,
    rest_positions,
    rig_scene,
)

from formats.iqm.animation import anim_frames, bind_pose
from formats.iqm.codec import read_iqm
from formats.iqm.records import (
    BLENDINDEXES,
    BLENDWEIGHTS,
    COLOR,
    CUSTOM,
    LOOP,
    NORMAL,
    POSITION,
    TEXCOORD,
    IqmVertexArray,
)
from formats.iqm.write import write_iqm

WAVE_FPS = 12.0                         # half the scene's 24: every other scene frame


def _build(extension):
    return import_module(f"{extension}.exporters.iqm.build")


def _anims(actions):
    return [(actions["walk"], "walk", WALK[0], WALK[1], 24.0, True),
            (actions["wave"], "wave", WAVE[0], WAVE[1], WAVE_FPS, False)]


def _scene_frames() -> dict[str, list[int]]:
    return {"walk": list(range(WALK[0], WALK[1] + 1)), "wave": list(range(WAVE[0], WAVE[1] + 1, 2))}


@pytest.fixture
def exported(bpy_scene, extension):
    bpy = bpy_scene
    obj, rig, actions = rig_scene(bpy)
    build = _build(extension)
    model = build.build_iqm(bpy.context, rig, [obj], _anims(actions))
    data = write_iqm(model)
    frames = _scene_frames()
    blender = {name: blender_frames(bpy, rig, obj, actions[name], frames[name]) for name in frames}
    return bpy, obj, rig, actions, model, read_iqm(data), blender


def test_iqm_export_joints_match_blenders_pose_at_every_frame(exported):
    bpy, obj, rig, actions, built, model, blender = exported
    assert model.joint_names == list(BONES)
    assert list(model.joints["parent"]) == [-1, 0, 1, 2] == list(model.poses["parent"])
    assert model.anim_names == ["walk", "wave"]
    assert list(model.anims["num_frames"]) == [9, 4] and list(model.anims["first_frame"]) == [0, 9]
    assert list(model.anims["framerate"]) == [24.0, WAVE_FPS]
    assert [int(f) & LOOP for f in model.anims["flags"]] == [LOOP, 0]
    # the bind pose is the rest pose
    parents, translate, rotate, scale = bind_pose(model)
    bind = iqm_world(parents, translate, rotate, scale)
    world = np.array(rig.matrix_world)
    rest = np.array([world @ np.array(rig.data.bones[n].matrix_local) for n in BONES])
    assert np.abs(bind - rest).max() < 1e-5
    joints = {name: value[0] for name, value in blender.items()}
    tolerance = joint_tolerance(model, np.concatenate(list(joints.values())))
    errors = joint_errors(model, joints)
    assert max(errors.values()) <= tolerance, (errors, tolerance)
    # the driver alone moves the hand along its parent's Y (the actions key no hand location), the
    # constraint adds the root's rotation: the file's hand pose moves in both
    hand = BONES.index("hand")
    assert int(model.poses["mask"][hand]) & 0b10 and model.poses["channelscale"][hand][1] * 65535 > 0.05
    assert int(model.poses["mask"][hand]) & 0b1111000
    # broken exports fail the same comparison: an anim's frames offset by one, two joints swapped
    shifted = read_iqm(write_iqm(model))
    shifted.anims["first_frame"][1] -= 1
    assert joint_errors(shifted, joints)["wave"] > 10 * tolerance
    swapped = read_iqm(write_iqm(model))
    names = swapped.joints["name"].copy()
    swapped.joints["name"][2], swapped.joints["name"][3] = names[3], names[2]
    assert max(joint_errors(swapped, joints).values()) > 10 * tolerance


def test_iqm_export_vertices_skin_to_blenders_evaluated_mesh(exported):
    bpy, obj, rig, actions, built, model, blender = exported
    positions = model.array(POSITION).data.astype(np.float64)
    rest = rest_positions(bpy, obj, rig)
    nearest = np.array([np.argmin(((rest - p) ** 2).sum(1)) for p in positions])
    assert np.abs(rest[nearest] - positions).max() < 1e-5          # every vertex is a Blender vertex
    assert set(nearest) == set(range(len(rest)))
    indexes = model.array(BLENDINDEXES).data.astype(np.int64)
    weights = model.array(BLENDWEIGHTS).data.astype(np.float64)
    assert (weights.sum(axis=1) == 255).all()
    parents, translate, rotate, scale = bind_pose(model)
    inverse_bind = np.linalg.inv(iqm_world(parents, translate, rotate, scale))
    worlds = decoded_worlds(model)
    tolerance = joint_tolerance(model, worlds)
    for index, name in enumerate(model.anim_names):
        expected = blender[name][1]
        for k, frame in enumerate(anim_frames(model, index)):
            skinning = worlds[frame] @ inverse_bind
            moved = iqm_skin(positions, indexes, weights, skinning)
            # ubyte weights: each within 1/255 of Blender's, times how far apart the vertex's joints take it
            reach = np.stack([np.einsum("vij,vj->vi", skinning[indexes[:, c], :3, :3], positions)
                              + skinning[indexes[:, c], :3, 3] for c in range(4)], 1)
            spread = np.linalg.norm(reach - moved[:, None], axis=2).max(axis=1)
            allowed = 4.0 / 255.0 * spread + tolerance * (1 + np.linalg.norm(positions, axis=1))
            error = np.linalg.norm(moved - expected[k][nearest], axis=1)
            assert (error <= allowed).all(), (name, k, float((error - allowed).max()))
    # each frame's bounds are those of the vertices the decoded frame skins
    for frame in range(model.num_frames):
        moved = iqm_skin(positions, indexes, weights, worlds[frame] @ inverse_bind)
        bounds = model.bounds[frame]
        assert np.allclose(bounds["bbmin"], moved.min(axis=0), atol=1e-5)
        assert np.allclose(bounds["bbmax"], moved.max(axis=0), atol=1e-5)
        assert np.isclose(bounds["radius"], np.linalg.norm(moved, axis=1).max(), atol=1e-5)
        assert np.isclose(bounds["xyradius"], np.linalg.norm(moved[:, :2], axis=1).max(), atol=1e-5)


def test_iqm_export_splits_vertices_where_blender_corners_differ(exported):
    bpy, obj, rig, actions, built, model, blender = exported
    mesh = obj.data
    names = [(model.text_at(int(m["name"])), model.text_at(int(m["material"]))) for m in model.meshes]
    assert names == [("thing", "thing_skin_low"), ("thing", "thing_skin_high")]
    uv = mesh.uv_layers.active.uv
    normals = mesh.corner_normals
    for record, material in zip(model.meshes, (0, 1)):
        corners = {(mesh.loops[i].vertex_index, tuple(np.round(uv[i].vector, 5)), tuple(np.round(normals[i].vector, 4)))
                   for p in mesh.polygons if p.material_index == material for i in p.loop_indices}
        assert int(record["num_vertexes"]) == len(corners)
        assert int(record["num_triangles"]) == 2 * sum(p.material_index == material for p in mesh.polygons)
    # clockwise seen from the front: the triangle normal of the file's order points inwards
    positions = model.array(POSITION).data.astype(np.float64)
    tris = model.triangles.astype(np.int64)
    cross = np.cross(positions[tris[:, 1]] - positions[tris[:, 0]], positions[tris[:, 2]] - positions[tris[:, 0]])
    centre = positions[tris].mean(axis=1)
    axis = np.array(obj.matrix_world)[:3, 3] + np.array([0.0, 0.0, 0.0])
    outward = centre - np.array([axis[0], axis[1], centre[:, 2].mean()])
    outward[:, 2] = 0
    side = np.abs(cross[:, 2]) < 1e-6 * np.linalg.norm(cross, axis=1).max()
    assert ((cross * outward).sum(axis=1)[side] < 0).all()
    # normals: unit, and the flat top ring's corners carry their face's normal
    normal = model.array(NORMAL).data
    assert np.allclose(np.linalg.norm(normal, axis=1), 1, atol=1e-5)
    texcoord = model.array(TEXCOORD).data
    assert texcoord[:, 1].min() >= 0.05 - 1e-6 and texcoord[:, 1].max() <= 0.95 + 1e-6   # 1 - v
    colour = model.array(COLOR).data
    assert colour.dtype == np.uint8 and colour.shape == (model.num_vertexes, 4) and len(np.unique(colour[:, 0])) > 10


def test_iqm_export_keeps_at_most_four_weights_and_says_how_many_were_dropped(bpy_scene, extension):
    geometry = import_module(f"{extension}.exporters.iqm.geometry")
    report = geometry.MeshReport()
    rows = (np.array([0] * 6 + [1] + [2] * 2), np.array([5, 1, 2, 3, 4, 0, 3, 1, 2]),
            np.array([0.05, 0.3, 0.2, 0.25, 0.15, 0.05, 0.7, 0.5, 0.5]))
    indexes, weights = geometry.four_weights(4, rows, report)
    assert list(indexes[0]) == [1, 3, 2, 4] and weights[0].sum() == 255
    assert list(weights[0]) == [85, 71, 57, 42]                 # 0.3 0.25 0.2 0.15 of 0.9, to 255
    assert list(indexes[1]) == [3, 0, 0, 0] and list(weights[1]) == [255, 0, 0, 0]
    assert sorted(weights[2][:2]) == [127, 128]
    assert list(weights[3]) == [0, 0, 0, 0]                     # no weight: 0s, which an imported file may hold
    assert report.lines() == ["1 vertex had more than 4 bone weights (up to 6): the 4 largest kept, scaled to a "
                              "sum of 1 (IQM holds 4)"]
    assert geometry.tie_unweighted(indexes, weights) == "1 vertex had no bone weight: tied to the first joint"
    assert list(indexes[3]) == [0, 0, 0, 0] and list(weights[3]) == [255, 0, 0, 0]   # then the first joint
    assert [list(w) for w in weights[:3]] == [[85, 71, 57, 42], [255, 0, 0, 0], list(weights[2])]


def test_iqm_export_of_meshes_alone_is_a_static_model(bpy_scene, extension):
    bpy = bpy_scene
    obj, rig, actions = rig_scene(bpy)
    obj.modifiers.clear()
    obj.data.uv_layers.remove(obj.data.uv_layers[0])
    built = _build(extension).build_iqm(bpy.context, None, [obj], _anims(actions))
    assert built.warnings == ["1 object without a UV map ('thing'): texture coordinates written as 0 0",
                              "2 anims left out: a model without an armature has no joints to animate"]
    model = read_iqm(write_iqm(built))
    assert not model.array(TEXCOORD).data.any()
    assert len(model.joints) == 0 and model.num_frames == 0 and len(model.anims) == 0
    assert model.array(BLENDINDEXES) is None and model.array(BLENDWEIGHTS) is None
    world = np.array(obj.matrix_world)
    co = np.array([world[:3, :3] @ np.array(v.co) + world[:3, 3] for v in obj.data.vertices])
    positions = model.array(POSITION).data
    assert np.abs(co[[np.argmin(((co - p) ** 2).sum(1)) for p in positions]] - positions).max() < 1e-5


def test_iqm_export_keeps_what_the_imported_file_held_while_the_vertices_match(bpy_scene, extension):
    bpy = bpy_scene
    obj, rig, actions = rig_scene(bpy)
    build = _build(extension)
    first = read_iqm(write_iqm(build.build_iqm(bpy.context, rig, [obj], _anims(actions))))
    kept = read_iqm(write_iqm(first))
    custom = IqmVertexArray(CUSTOM, 3, np.arange(kept.num_vertexes * 2, dtype=np.uint16).reshape(-1, 2))
    kept.vertex_arrays.append(custom)
    kept.comment = b"kept comment\0"
    kept.text += b"ext.name\0"
    from formats.iqm.records import IqmExtension
    kept.extensions = [IqmExtension(len(kept.text) - len(b"ext.name\0"), b"\x01\x02\x03")]
    kept.adjacency = np.full(kept.triangles.shape, 0xFFFFFFFF, np.uint32)
    again = read_iqm(write_iqm(build.build_iqm(bpy.context, rig, [obj], _anims(actions), kept=kept)))
    assert again.text.startswith(kept.text) and again.text == kept.text      # every name was there already
    assert again.comment == b"kept comment\0" and again.extensions[0].data == b"\x01\x02\x03"
    assert again.text_at(again.extensions[0].name) == "ext.name"
    assert np.array_equal(again.array(CUSTOM).data, custom.data)
    assert again.adjacency is not None
    # an edit moves a vertex: the custom array no longer matches the vertices, and the export says so
    obj.data.vertices[0].co.x -= 0.25
    edited = build.build_iqm(bpy.context, rig, [obj], _anims(actions), kept=kept)
    assert edited.array(CUSTOM) is None and edited.adjacency is None
    assert "1 custom vertex array of the imported file left out: the vertices changed" in edited.warnings
    assert edited.comment == b"kept comment\0"


def test_iqm_export_framegroups_text(bpy_scene, extension):
    bpy = bpy_scene
    obj, rig, actions = rig_scene(bpy)
    build = _build(extension)
    model = build.build_iqm(bpy.context, rig, [obj], _anims(actions))
    assert build.framegroups_text(model) == "0 9 24 1 walk\n9 4 12 0 wave\n"
    model.text += b"a walk\0"
    model.anims["name"][1] = len(model.text) - len(b"a walk\0")
    assert build.framegroups_text(model).splitlines()[1] == '9 4 12 0 "a walk"'


def test_iqm_export_without_apply_transform_is_in_the_armatures_space(bpy_scene, extension):
    bpy = bpy_scene
    obj, rig, actions = rig_scene(bpy)
    build = _build(extension)
    options = build.IqmExportOptions(apply_transform=False, scale=2.0)
    model = read_iqm(write_iqm(build.build_iqm(bpy.context, rig, [obj], _anims(actions), options=options)))
    parents, translate, rotate, scale = bind_pose(model)
    bind = iqm_world(parents, translate, rotate, scale)
    local = np.array([np.array(rig.data.bones[n].matrix_local) for n in BONES])
    assert np.abs(bind[:, :3, :3] - local[:, :3, :3]).max() < 1e-5
    assert np.abs(bind[:, :3, 3] - 2.0 * local[:, :3, 3]).max() < 1e-5
    to_rig = np.linalg.inv(np.array(rig.matrix_world))
    rest = rest_positions(bpy, obj, rig) @ to_rig[:3, :3].T + to_rig[:3, 3]
    positions = model.array(POSITION).data
    assert np.abs(2.0 * rest[[np.argmin(((2.0 * rest - p) ** 2).sum(1)) for p in positions]] - positions).max() < 1e-5


def test_iqm_export_keeps_faces_facing_out_on_a_mirrored_object_and_custom_normals(bpy_scene, extension):
    bpy = bpy_scene
    obj, rig, actions = rig_scene(bpy)
    mesh = obj.data
    custom = np.tile(np.array([[0.0, 0.6, 0.8]]), (len(mesh.loops), 1))
    custom[::3] = (0.6, 0.0, 0.8)
    if hasattr(mesh, "use_auto_smooth"):            # before 4.1 custom normals needed Auto Smooth
        mesh.use_auto_smooth = True
    mesh.normals_split_custom_set(custom.tolist())
    obj.scale = (-1.0, 1.0, 1.0)
    bpy.context.view_layer.update()
    model = read_iqm(write_iqm(_build(extension).build_iqm(bpy.context, rig, [obj], [])))
    positions = model.array(POSITION).data.astype(np.float64)
    tris = model.triangles.astype(np.int64)
    cross = np.cross(positions[tris[:, 1]] - positions[tris[:, 0]], positions[tris[:, 2]] - positions[tris[:, 0]])
    world = np.array(obj.matrix_world)
    axis = world[:3, 3]
    outward = positions[tris].mean(axis=1) - axis
    outward[:, 2] = 0
    assert ((cross * outward).sum(axis=1) < 0).all()             # clockwise from outside, mirrored or not
    # every file normal is one of Blender's corner normals (of the mesh as set; the evaluated mesh's stored
    # custom normals come back within 2e-4), through the object's inverse transpose
    corner = np.empty(len(mesh.loops) * 3, np.float32)
    mesh.corner_normals.foreach_get("vector", corner)
    expected = corner.reshape(-1, 3) @ np.linalg.inv(world[:3, :3])
    expected /= np.linalg.norm(expected, axis=1, keepdims=True)
    normals = model.array(NORMAL).data
    gap = np.array([np.abs(expected - n).max(axis=1).min() for n in normals])
    assert gap.max() < 1e-3
    two = np.array([[0.0, 0.6, 0.8], [0.6, 0.0, 0.8]]) @ np.linalg.inv(world[:3, :3])
    two /= np.linalg.norm(two, axis=1, keepdims=True)
    assert np.abs(normals[:, None] - two[None]).max(axis=2).min(axis=1).max() < 1e-3   # the custom ones


def test_iqm_export_refuses_an_object_without_faces_and_an_anim_without_frames(bpy_scene, extension):
    bpy = bpy_scene
    obj, rig, actions = rig_scene(bpy)
    build = _build(extension)
    errors = import_module(f"{extension}.exporters.export_error")
    backwards = [(actions["walk"], "walk", 9, 1, 24.0, True)]
    with pytest.raises(errors.ExportError, match="anim 'walk' has no frame"):
        build.build_iqm(bpy.context, rig, [obj], backwards)
    with pytest.raises(errors.ExportError, match="anim 'walk' has a frame rate of 0: it needs one above 0"):
        build.build_iqm(bpy.context, rig, [obj], [(actions["walk"], "walk", 1, 9, 0.0, True)])
    empty = bpy.data.objects.new("empty_mesh", bpy.data.meshes.new("empty_mesh"))
    bpy.context.scene.collection.objects.link(empty)
    with pytest.raises(errors.ExportError, match="object 'empty_mesh' has no faces"):
        build.build_iqm(bpy.context, rig, [obj, empty], [])
    assert rig.data.pose_position == "POSE"                     # put back after the refusal


def test_iqm_export_anim_times_follow_its_own_rate(bpy_scene, extension):
    skeleton = import_module(f"{extension}.exporters.iqm.skeleton")
    anim = skeleton.Anim(None, "a", 1, 9, 10.0, True)
    assert np.allclose(anim.times(24.0), [1.0, 3.4, 5.8, 8.2])
    assert np.allclose(skeleton.Anim(None, "b", 20, 26, 12.0, False).times(24.0), [20, 22, 24, 26])


def _scale_action(rig, sizes: dict[str, tuple]):
    """An action scaling the named bones from 1 (frame 1) to their size (frame 5)."""
    for frame in (1, 5):
        for name, size in sizes.items():
            rig.pose.bones[name].scale = size if frame == 5 else (1.0, 1.0, 1.0)
            rig.pose.bones[name].keyframe_insert("scale", frame=frame)
    action = rig.animation_data.action
    rig.animation_data.action = None
    for name in sizes:
        rig.pose.bones[name].scale = (1, 1, 1)
    return action


def test_iqm_export_bone_scale_comes_back_within_the_quantisation(bpy_scene, extension):
    bpy = bpy_scene
    obj, rig, actions = rig_scene(bpy)
    build = _build(extension)
    grow = _scale_action(rig, {"spine": (1.5, 1.5, 1.5), "hand": (1.0, 1.4, 0.8)})    # even, and uneven on a leaf
    built = build.build_iqm(bpy.context, rig, [obj], [(grow, "grow", 1, 5, 24.0, True)])
    model = read_iqm(write_iqm(built))
    joints = blender_frames(bpy, rig, obj, grow, range(1, 6))[0]
    assert np.abs(joints[-1, 1, :3, :3]).max() > 1.2                # the spine did grow
    assert joint_errors(model, {"grow": joints})["grow"] <= joint_tolerance(model, joints)
    assert built.warnings == []
    # uneven scale on a bone with a child rotated under it: the child is sheared, which IQM cannot hold
    stretch = _scale_action(rig, {"arm": (1.0, 1.5, 1.0)})
    built = build.build_iqm(bpy.context, rig, [obj], [(stretch, "stretch", 1, 5, 24.0, True)])
    assert built.warnings == ["1 bone ('hand') sheared in 4 frames (a bone rotated under a parent scaled unevenly): an "
                              "IQM joint holds a translation, a rotation and a scale along its own axes, so those poses "
                              "are written without the shear"]


def test_iqm_export_puts_the_scene_back_and_writes_an_armature_alone(bpy_scene, extension):
    bpy = bpy_scene
    obj, rig, actions = rig_scene(bpy)
    rig.animation_data.action = actions["wave"]
    slots = getattr(actions["wave"], "slots", None)
    if slots:
        rig.animation_data.action_slot = slots[0]
    bpy.context.scene.frame_set(23)
    before = np.array([np.array(b.matrix) for b in rig.pose.bones])
    build = _build(extension)
    build.build_iqm(bpy.context, rig, [obj], _anims(actions))
    assert rig.animation_data.action == actions["wave"] and bpy.context.scene.frame_current == 23
    assert np.abs(np.array([np.array(b.matrix) for b in rig.pose.bones]) - before).max() < 1e-6
    # no mesh: the skeleton and its anims alone
    model = read_iqm(write_iqm(build.build_iqm(bpy.context, rig, [], _anims(actions))))
    assert model.num_vertexes == 0 and len(model.meshes) == 0 and model.joint_names == list(BONES)
    assert model.num_frames == 13 and model.anim_names == ["walk", "wave"]


def test_iqm_export_says_which_armature_settings_the_engines_do_not_follow(bpy_scene, extension):
    bpy = bpy_scene
    obj, rig, actions = rig_scene(bpy)
    modifier = obj.modifiers["rig"]
    modifier.use_deform_preserve_volume = True
    modifier.use_bone_envelopes = True
    built = _build(extension).build_iqm(bpy.context, rig, [obj], [])
    assert built.warnings == [
        "1 object ('thing') deformed with Preserve Volume (dual quaternions): the engines skin IQM linearly by the "
        "vertex weights, so the game shows them otherwise",
        "1 object ('thing') deformed with Bone Envelopes: the engines skin IQM linearly by the vertex weights, so "
        "the game shows them otherwise"]


def test_iqm_export_anim_without_action_samples_the_timeline(bpy_scene, extension):
    bpy = bpy_scene
    obj, rig, actions = rig_scene(bpy)
    rig.animation_data.action = actions["walk"]
    slots = getattr(actions["walk"], "slots", None)
    if slots:
        rig.animation_data.action_slot = slots[0]
    anims = [(None, "timeline", WALK[0], WALK[1], 24.0, True), (actions["wave"], "wave", WAVE[0], WAVE[1], 12.0, False)]
    model = read_iqm(write_iqm(_build(extension).build_iqm(bpy.context, rig, [obj], anims)))
    assert rig.animation_data.action == actions["walk"]
    frames = _scene_frames()
    joints = {"timeline": blender_frames(bpy, rig, obj, actions["walk"], frames["walk"])[0],
              "wave": blender_frames(bpy, rig, obj, actions["wave"], frames["wave"])[0]}
    errors = joint_errors(model, joints)
    assert max(errors.values()) <= joint_tolerance(model, np.concatenate(list(joints.values()))), errors


def _shuffled(model, seed: int = 3):
    """``model`` with each mesh's vertices in another order (triangles renumbered, each turned to start at
    another corner), its texture coordinates and normals off by what an import's round trip leaves,
    and a tangent array: a file the scene stands for, in an order of its own."""
    rng = np.random.default_rng(seed)
    order = np.arange(model.num_vertexes)
    for mesh in model.meshes:
        first, count = int(mesh["first_vertex"]), int(mesh["num_vertexes"])
        order[first:first + count] = first + rng.permutation(count)
    back = np.empty_like(order)
    back[order] = np.arange(len(order))
    for array in model.vertex_arrays:
        array.data = array.data[order]
    model.triangles = np.roll(back[model.triangles.astype(np.int64)], 1, axis=1).astype(np.uint32)
    model.array(TEXCOORD).data += np.float32(3e-7)
    model.array(NORMAL).data += np.float32(2e-5)
    tangent = np.tile(np.array([[1, 0, 0, 1]], np.float32), (model.num_vertexes, 1))
    model.vertex_arrays.insert(3, IqmVertexArray(3, 7, tangent))
    model.adjacency = np.full(model.triangles.shape, 0xFFFFFFFF, np.uint32)
    return model


def test_iqm_export_of_an_unchanged_import_keeps_the_files_order_and_values(bpy_scene, extension):
    bpy = bpy_scene
    obj, rig, actions = rig_scene(bpy)
    build = _build(extension)
    kept = _shuffled(read_iqm(write_iqm(build.build_iqm(bpy.context, rig, [obj], _anims(actions)))))
    kept = read_iqm(write_iqm(kept))
    again = build.build_iqm(bpy.context, rig, [obj], _anims(actions), kept=kept)
    assert write_iqm(again) == write_iqm(kept)                # every block the file's, byte for byte
    # an edit of one vertex: the scene's order and values, the file's tangents left out with the vertices
    obj.data.vertices[5].co.z += 0.1
    edited = build.build_iqm(bpy.context, rig, [obj], _anims(actions), kept=kept)
    assert [a.type for a in edited.vertex_arrays] == [POSITION, TEXCOORD, NORMAL, BLENDINDEXES, BLENDWEIGHTS, COLOR]
    assert edited.adjacency is None and not np.array_equal(edited.triangles, kept.triangles)


def test_iqm_export_of_an_edited_import_keeps_the_files_quantisation_while_the_poses_fit_it(bpy_scene, extension):
    bpy = bpy_scene
    obj, rig, actions = rig_scene(bpy)
    build = _build(extension)
    # the file quantised over a wider range than the scene's poses reach: a third anim of big moves, left out
    for frame, sign in ((1, 1), (3, -1)):
        for bone in rig.pose.bones:
            bone.rotation_euler = (sign * 1.0, sign * 0.8, sign * 0.6)
            bone.location = (sign * 0.5, sign * 0.5, sign * 0.5)
            bone.keyframe_insert("rotation_euler", frame=frame)
            bone.keyframe_insert("location", frame=frame)
    big = rig.animation_data.action
    rig.animation_data.action = None
    file = read_iqm(write_iqm(build.build_iqm(bpy.context, rig, [obj], _anims(actions) + [(big, "big", 1, 3, 24.0, True)])))
    file.frames, file.bounds, file.anims = file.frames[:13], file.bounds[:13], file.anims[:2]
    kept = read_iqm(write_iqm(file))
    again = build.build_iqm(bpy.context, rig, [obj], _anims(actions), kept=kept)
    assert write_iqm(again) == write_iqm(kept)                   # the file's quantisation, its very frames
    assert not np.array_equal(build.build_iqm(bpy.context, rig, [obj], _anims(actions)).poses, kept.poses)
    # a key moved a little: the file's quantisation still holds it, frames of the other anim unchanged
    curve = next(c for c in _fcurves(actions["walk"]) if c.data_path.endswith("rotation_euler") and c.array_index == 0)
    curve.keyframe_points[2].co.y -= 0.01                       # the walk's largest key, a little less
    edited = build.build_iqm(bpy.context, rig, [obj], _anims(actions), kept=kept)
    assert np.array_equal(edited.poses, kept.poses)
    assert not np.array_equal(edited.frames[:9], kept.frames[:9]) and np.array_equal(edited.frames[9:], kept.frames[9:])
    joints = {"walk": blender_frames(bpy, rig, obj, actions["walk"], _scene_frames()["walk"])[0]}
    decoded = read_iqm(write_iqm(edited))
    decoded.anims = decoded.anims[:1]
    assert joint_errors(decoded, joints)["walk"] <= joint_tolerance(decoded, joints["walk"])
    # moved past the file's range: a quantisation of its own
    curve.keyframe_points[2].co.y += 1.0
    assert not np.array_equal(build.build_iqm(bpy.context, rig, [obj], _anims(actions), kept=kept).poses, kept.poses)


def _fcurves(action):
    if hasattr(action, "fcurves") and not hasattr(action, "layers"):
        return list(action.fcurves)
    return [c for layer in action.layers for strip in layer.strips for bag in strip.channelbags for c in bag.fcurves]
