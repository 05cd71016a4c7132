"""Scenes made in Blender for the MD3 export tests, and what Blender evaluates for them (read with plain
bpy calls, independently of the exporter)."""
from __future__ import annotations

import numpy as np

SIDES, RINGS = 8, 5          # a column of 8 sides and 5 rings, 4 units high


def _assign(id_block, action) -> None:
    """Play ``action`` on ``id_block`` (4.2 to 5.x)."""
    anim = id_block.animation_data or id_block.animation_data_create()
    anim.action = action
    if hasattr(anim, "action_slot") and anim.action_slot is None:
        anim.action_slot = action.slots[0]


def two_bones(bpy, name: str, first: tuple, second: tuple):
    """An armature object ``name`` with bones ``(name, head, tail)`` ``first`` and ``second`` (its child)."""
    arm = bpy.data.armatures.new(name)
    rig = bpy.data.objects.new(name, arm)
    bpy.context.scene.collection.objects.link(rig)
    bpy.context.view_layer.objects.active = rig
    bpy.ops.object.mode_set(mode="EDIT")
    parent = None
    for bone_name, head, tail in (first, second):
        bone = arm.edit_bones.new(bone_name)
        bone.head, bone.tail, bone.parent = head, tail, parent
        parent = bone
    bpy.ops.object.mode_set(mode="OBJECT")
    return rig


def column_model(bpy, name: str = "column", shape_key: bool = True, actions=("bend",), timeline_action: str = "bend"):
    """A column (8 sides, 5 rings, caps as n-gons) with a UV seam down one side and two materials (sides
    ``metal``, caps ``glass``); a shape key ``bulge`` keyed 0 -> 1 over frames 1-5 (``shape_key``); bent
    by a two-bone rig (``lower``, ``upper``) whose ``actions`` have fake users (``timeline_action`` plays
    on the timeline); an empty ``tag_tip`` parented to bone ``upper``, turned a little. Returns
    (mesh object, rig, tag, {name: action})."""
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, 5
    angle = np.arange(SIDES) * 2 * np.pi / SIDES
    verts = [(float(np.cos(a)), float(np.sin(a)), float(z)) for z in range(RINGS) for a in angle]
    faces, uvs = [], []
    for r in range(RINGS - 1):
        for k in range(SIDES):
            a, b = r * SIDES + k, r * SIDES + (k + 1) % SIDES
            faces.append((a, b, b + SIDES, a + SIDES))
            u0, u1 = k / SIDES, (k + 1) / SIDES                  # the last column ends at u = 1: the seam
            uvs += [(u0, r / 8), (u1, r / 8), (u1, (r + 1) / 8), (u0, (r + 1) / 8)]
    bottom = tuple(reversed(range(SIDES)))
    top = tuple((RINGS - 1) * SIDES + k for k in range(SIDES))
    for cap, base in ((bottom, (0.25, 0.75)), (top, (0.75, 0.75))):
        faces.append(cap)
        uvs += [(base[0] + 0.2 * verts[i][0], base[1] + 0.2 * verts[i][1]) for i in cap]
    mesh = bpy.data.meshes.new(name)
    mesh.from_pydata(verts, [], faces)
    layer = mesh.uv_layers.new(name="UVMap")
    layer.uv.foreach_set("vector", np.array(uvs, np.float32).ravel())
    for material_name in ("metal", "glass"):
        mesh.materials.append(bpy.data.materials.new(material_name))
    indices = np.zeros(len(faces), np.int32)
    indices[-2:] = 1
    mesh.polygons.foreach_set("material_index", indices)
    obj = bpy.data.objects.new(name, mesh)
    scene.collection.objects.link(obj)

    if shape_key:
        obj.shape_key_add(name="Basis")
        bulge = obj.shape_key_add(name="bulge")
        co = np.array(verts, np.float32)
        ring = (co[:, 2] == 2)
        co[ring, :2] *= 1.4
        bulge.data.foreach_set("co", co.ravel())
        for frame, value in ((1, 0.0), (5, 1.0)):
            bulge.value = value
            bulge.keyframe_insert("value", frame=frame)

    rig = two_bones(bpy, f"{name}_rig", ("lower", (0, 0, 0), (0, 0, 2)), ("upper", (0, 0, 2), (0, 0, 4)))
    low, up = obj.vertex_groups.new(name="lower"), obj.vertex_groups.new(name="upper")
    for i, v in enumerate(verts):
        w = min(max((v[2] - 1) / 2, 0.0), 1.0)
        low.add([i], 1.0 - w, "REPLACE")
        up.add([i], w, "REPLACE")
    obj.modifiers.new("rig", "ARMATURE").object = rig

    made = {}
    for n, action_name in enumerate(actions):
        if rig.animation_data is not None:
            rig.animation_data.action = None
        last = 5 + 4 * n
        for f in range(1, last + 1):
            t = (f - 1) / (last - 1)
            for bone, rotation in (("lower", (0.2 * t, 0, 0)), ("upper", (0.7 * t * (1 - 2 * n), 0.3 * t, 0))):
                pose = rig.pose.bones[bone]
                pose.rotation_mode = "XYZ"
                pose.rotation_euler = rotation
                pose.keyframe_insert("rotation_euler", frame=f)
        action = rig.animation_data.action
        action.name = action_name
        action.use_fake_user = True
        made[action_name] = action
    rig.animation_data.action = None
    for bone in rig.pose.bones:
        bone.rotation_euler = (0, 0, 0)
    if timeline_action:
        _assign(rig, made[timeline_action])

    tag = bpy.data.objects.new("tag_tip", None)
    scene.collection.objects.link(tag)
    tag.parent, tag.parent_type, tag.parent_bone = rig, "BONE", "upper"
    scene.frame_set(1)
    bpy.context.view_layer.update()
    from mathutils import Euler, Matrix
    tag.matrix_world = Matrix.Translation((0.0, 0.0, 4.0)) @ Euler((0.0, 0.0, 0.5)).to_matrix().to_4x4()
    bpy.context.view_layer.update()
    return obj, rig, tag, made


def play(bpy, rig, action) -> None:
    _assign(rig, action)


def evaluated(bpy, obj) -> dict:
    """What Blender shows now: world positions, vertex normals, loop triangles (vertices, UVs, material)."""
    depsgraph = bpy.context.evaluated_depsgraph_get()
    obj_eval = obj.evaluated_get(depsgraph)
    mesh = obj_eval.to_mesh()
    try:
        count = len(mesh.vertices)
        co = np.empty(count * 3, np.float32)
        mesh.vertices.foreach_get("co", co)
        normals = np.empty(count * 3, np.float32)
        mesh.vertex_normals.foreach_get("vector", normals)
        mesh.calc_loop_triangles()
        tris = np.empty(len(mesh.loop_triangles) * 3, np.int32)
        loops = np.empty(len(mesh.loop_triangles) * 3, np.int32)
        mesh.loop_triangles.foreach_get("vertices", tris)
        mesh.loop_triangles.foreach_get("loops", loops)
        material = np.empty(len(mesh.loop_triangles), np.int32)
        mesh.loop_triangles.foreach_get("material_index", material)
        uv = np.empty(len(mesh.loops) * 2, np.float32)
        mesh.uv_layers.active.uv.foreach_get("vector", uv)
        matrix = np.array(obj_eval.matrix_world, np.float64)
    finally:
        obj_eval.to_mesh_clear()
    world = co.reshape(-1, 3).astype(np.float64) @ matrix[:3, :3].T + matrix[:3, 3]
    n = normals.reshape(-1, 3).astype(np.float64) @ np.linalg.inv(matrix[:3, :3])
    n /= np.linalg.norm(n, axis=1, keepdims=True)
    return {"positions": world, "normals": n, "triangles": tris.reshape(-1, 3),
            "uvs": uv.reshape(-1, 2)[loops].reshape(-1, 3, 2), "material": material}


def world_matrix(bpy, obj) -> np.ndarray:
    return np.array(obj.evaluated_get(bpy.context.evaluated_depsgraph_get()).matrix_world, np.float64)


def player_model(bpy):
    """A Quake III player rigged as one body: legs ``l_legs``, torso ``u_torso``, head ``h_head`` (boxes,
    Quake units), bones ``hips`` (legs), ``spine`` (torso and head); ``tag_torso`` on ``hips`` at the waist,
    ``tag_head`` and ``tag_weapon`` on ``spine``; actions ``BOTH_DEATH1`` (6 frames: the body falls),
    ``TORSO_STAND`` (3: the torso sways), ``LEGS_IDLE`` (4: the hips bob), ``LEGS_RUN`` (5), with fake users.
    Returns ({name: object}, rig, {name: action})."""
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, 1
    objects = {}

    def box(name, low, high, uv_x):
        lo, hi = np.array(low, float), np.array(high, float)
        corners = [(x, y, z) for z in (lo[2], hi[2]) for y in (lo[1], hi[1]) for x in (lo[0], hi[0])]
        faces = [(0, 2, 3, 1), (4, 5, 7, 6), (0, 1, 5, 4), (2, 6, 7, 3), (0, 4, 6, 2), (1, 3, 7, 5)]
        mesh = bpy.data.meshes.new(name)
        mesh.from_pydata(corners, [], faces)
        layer = mesh.uv_layers.new(name="UVMap")
        uv = [(uv_x + 0.3 * ((corners[v][0] - lo[0]) / (hi[0] - lo[0])), (corners[v][2] - lo[2]) / (hi[2] - lo[2]))
              for f in faces for v in f]
        layer.uv.foreach_set("vector", np.array(uv, np.float32).ravel())
        mesh.materials.append(bpy.data.materials.new(f"models/players/blendman/{name}"))
        obj = bpy.data.objects.new(name, mesh)
        scene.collection.objects.link(obj)
        objects[name] = obj
        return obj

    box("l_legs", (-6, -4, 0), (6, 4, 24), 0.0)
    box("u_torso", (-8, -5, 24), (8, 5, 44), 0.33)
    box("h_head", (-4, -4, 44), (4, 4, 54), 0.66)
    rig = two_bones(bpy, "player_rig", ("hips", (0, 0, 12), (0, 0, 24)), ("spine", (0, 0, 24), (0, 0, 44)))
    for name, bone in (("l_legs", "hips"), ("u_torso", "spine"), ("h_head", "spine")):
        obj = objects[name]
        group = obj.vertex_groups.new(name=bone)
        group.add(list(range(8)), 1.0, "REPLACE")
        obj.modifiers.new("rig", "ARMATURE").object = rig
    from mathutils import Matrix
    for name, bone, place in (("tag_torso", "hips", (0, 0, 24)), ("tag_head", "spine", (0, 0, 44)),
                              ("tag_weapon", "spine", (10, -6, 34))):
        tag = bpy.data.objects.new(name, None)
        scene.collection.objects.link(tag)
        tag.parent, tag.parent_type, tag.parent_bone = rig, "BONE", bone
        bpy.context.view_layer.update()
        tag.matrix_world = Matrix.Translation(place)
        objects[name] = tag
    actions = {}
    moves = {"BOTH_DEATH1": (6, lambda t: ((0.0, 0.0, -8 * t), (-1.2 * t, 0, 0), (0.4 * t, 0, 0))),
             "TORSO_STAND": (3, lambda t: ((0, 0, 0), (0, 0, 0), (0.0, 0.2 * np.sin(6 * t), 0))),
             "LEGS_IDLE": (4, lambda t: ((0, 0, 1.5 * np.sin(6 * t)), (0, 0, 0), (0, 0, 0))),
             "LEGS_RUN": (5, lambda t: ((0, 2 * t, 0), (0.3 * t, 0, 0), (0, 0, 0.2 * t)))}
    for name, (count, move) in moves.items():
        if rig.animation_data is not None:
            rig.animation_data.action = None
        for f in range(1, count + 1):
            location, hips_rotation, spine_rotation = move((f - 1) / max(count - 1, 1))
            rig.pose.bones["hips"].location = location
            rig.pose.bones["hips"].rotation_mode = rig.pose.bones["spine"].rotation_mode = "XYZ"
            rig.pose.bones["hips"].rotation_euler = hips_rotation
            rig.pose.bones["spine"].rotation_euler = spine_rotation
            for bone in ("hips", "spine"):
                rig.pose.bones[bone].keyframe_insert("location", frame=f)
                rig.pose.bones[bone].keyframe_insert("rotation_euler", frame=f)
        action = rig.animation_data.action
        action.name, action.use_fake_user = name, True
        actions[name] = action
    rig.animation_data.action = None
    for bone in rig.pose.bones:
        bone.location, bone.rotation_euler = (0, 0, 0), (0, 0, 0)
    bpy.context.view_layer.update()
    return objects, rig, actions
