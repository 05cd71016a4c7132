"""A figure made in Blender for the engine tests of the enhanced models: a body (12 x 20 x 48 units, in
Quake units as the export writes them) with an arm on its +Y side (so a mirrored model is told apart),
three bones (root; spine and arm both root's children, so their order can be swapped), two actions (``bend``: the spine leans, frames 1-5; ``wave``: the arm
swings up, frames 10-15) and two skins (materials, *Alternate Skins*) painted in regions of distinct Quake
palette colours: the lower body, the upper body, the arm and the caps each map into one quadrant of a
64 x 64 image, inset so that no filtering reaches a neighbour quadrant; skin 1 permutes the colours. The
quadrants sit on black (palette index 0) two texels apart: Quake flood-fills the skin's area joined to its
top-left texel with black (``Mod_FloodFillSkin``, ironwail gl_model.c), which would swallow a quadrant
that touched that corner."""
from __future__ import annotations

import numpy as np

from formats.images.palette import quake_palette

from .blender_helpers import rest_pose, stored_action
from .players import textured

# palette indices per region (lower body, upper body, arm, caps) for skin 0 and skin 1
RED, BLUE, YELLOW, WHITE = 79, 208, 192, 12
SKIN_REGIONS = ((RED, BLUE, YELLOW, WHITE), (BLUE, YELLOW, RED, WHITE))
COLOURS = (RED, BLUE, YELLOW, WHITE)
ACTIONS = {"bend": range(1, 6), "wave": range(10, 16)}
_QUADRANT = ((0.0, 0.5), (0.5, 0.5), (0.0, 0.0), (0.5, 0.0))      # region -> (u0, v0) of its quadrant


def _box(x: tuple[float, float], y: tuple[float, float], z_rings: list[float]):
    """Vertices and quads (outward) of a box: rings of 4 corners at the heights ``z_rings``, and caps."""
    verts, faces = [], []
    for z in z_rings:
        verts += [(x[0], y[0], z), (x[1], y[0], z), (x[1], y[1], z), (x[0], y[1], z)]
    rings = len(z_rings)
    for r in range(rings - 1):
        faces += [(r * 4 + i, r * 4 + (i + 1) % 4, (r + 1) * 4 + (i + 1) % 4, (r + 1) * 4 + i) for i in range(4)]
    faces.append((3, 2, 1, 0))
    top = (rings - 1) * 4
    faces.append((top, top + 1, top + 2, top + 3))
    return verts, faces


def figure(bpy, name: str = "m"):
    """The figure (mesh object parented to its armature) with its actions stored (fake users, none
    assigned); returns (object, rig). Face regions are kept in the mesh's ``region`` face attribute."""
    body_v, body_f = _box((-6, 6), (-10, 10), [0, 8, 16, 24, 32, 40, 48])
    arm_v, arm_f = _box((-4, 4), (34, 42), [0, 24])                  # built upright, then laid along +Y
    arm_v = [(x, 10 + z, y) for x, y, z in arm_v]
    verts = body_v + arm_v
    faces = body_f + [tuple(i + len(body_v) for i in f) for f in arm_f]
    mesh = bpy.data.meshes.new(name)
    mesh.from_pydata(verts, [], faces)
    v = np.array(verts)
    region = []
    for k, f in enumerate(faces):
        if k >= len(body_f):
            region.append(2)
        elif k >= len(body_f) - 2:
            region.append(3)
        else:
            region.append(0 if v[list(f), 2].mean() < 24 else 1)
    mesh.attributes.new("region", "INT", "FACE").data.foreach_set("value", region)
    # each face: its quadrant's square, inset by 6 of 32 texels, corners in the face's order
    uv = mesh.uv_layers.new(name="UVMap")
    square = np.array([(0, 0), (1, 0), (1, 1), (0, 1)], np.float64) * (20 / 64) + 6 / 64
    loop_uv = np.concatenate([square + _QUADRANT[region[k]] for k in range(len(faces))])
    uv.uv.foreach_set("vector", loop_uv.ravel())
    for skin, colours in enumerate(SKIN_REGIONS):
        mesh.materials.append(_skin_material(bpy, f"{name}_skin{skin}", colours))
    obj = bpy.data.objects.new(name, mesh)
    bpy.context.scene.collection.objects.link(obj)
    rig = _rig(bpy, obj, name, v, len(body_v))
    return obj, rig


def _skin_material(bpy, name: str, colours) -> object:
    pal = quake_palette().astype(np.float32) / 255.0
    pixels = np.ones((64, 64, 4), np.float32)
    pixels[..., :3] = pal[0]                                       # black between the quadrants
    for region, (u0, v0) in enumerate(_QUADRANT):
        r0, c0 = int(v0 * 64), int(u0 * 64)                        # Blender rows count from the bottom
        pixels[r0 + 2:r0 + 30, c0 + 2:c0 + 30, :3] = pal[colours[region]]
    image = bpy.data.images.new(name, 64, 64, alpha=True)
    image.pixels.foreach_set(pixels.ravel())
    image.pack()
    return textured(bpy, name, image)


def _rig(bpy, obj, name: str, verts: np.ndarray, body_count: int):
    arm = bpy.data.armatures.new(f"{name}_rig")
    rig = bpy.data.objects.new(f"{name}_rig", arm)
    bpy.context.scene.collection.objects.link(rig)
    obj.parent = rig
    for other in bpy.context.view_layer.objects:
        other.select_set(False)
    bpy.context.view_layer.objects.active = rig
    rig.select_set(True)
    bpy.ops.object.mode_set(mode="EDIT")
    root = arm.edit_bones.new("root")
    root.head, root.tail = (0, 0, 0), (0, 0, 24)
    spine = arm.edit_bones.new("spine")
    spine.head, spine.tail, spine.parent = (0, 0, 24), (0, 0, 44), root
    limb = arm.edit_bones.new("arm")
    limb.head, limb.tail, limb.parent = (0, 10, 38), (0, 34, 38), root     # root's two children: reorderable
    bpy.ops.object.mode_set(mode="OBJECT")
    groups = {n: obj.vertex_groups.new(name=n) for n in ("root", "spine", "arm")}
    for i, (_, _, z) in enumerate(verts):
        if i >= body_count:
            groups["arm"].add([i], 1.0, "REPLACE")
        elif z < 20:
            groups["root"].add([i], 1.0, "REPLACE")
        elif z < 28:
            groups["root"].add([i], 0.5, "REPLACE")
            groups["spine"].add([i], 0.5, "REPLACE")
        else:
            groups["spine"].add([i], 1.0, "REPLACE")
    obj.modifiers.new("rig", "ARMATURE").object = rig
    for action_name, frames in ACTIONS.items():
        if rig.animation_data is not None:
            rig.animation_data.action = None
        for k, f in enumerate(frames):
            for bone in rig.pose.bones:
                bone.rotation_mode = "XYZ"
            bones = rig.pose.bones
            bones["root"].rotation_euler = (-0.08 * k, 0, 0) if action_name == "bend" else (0, 0, 0)
            bones["spine"].rotation_euler = (0.22 * k, 0, 0) if action_name == "bend" else (0, 0, 0)
            bones["arm"].rotation_euler = (0.32 * k, 0, 0) if action_name == "wave" else (0, 0, 0)
            for bone in bones:
                bone.keyframe_insert("rotation_euler", frame=f)
        stored_action(rig, action_name)
    rest_pose(rig)
    return rig


def posed(bpy, obj, rig, action: str, frame: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """World positions (N, 3), triangles (T, 3) and each triangle's region at scene ``frame`` of
    ``action``, from the evaluated (deformed) mesh."""
    from .actions import assign
    from .blender_helpers import world_positions
    assign(bpy, rig, bpy.data.actions[action])
    bpy.context.scene.frame_set(frame)
    positions = world_positions(bpy, obj)
    mesh = obj.data
    mesh.calc_loop_triangles()
    tris = np.empty(len(mesh.loop_triangles) * 3, np.int32)
    mesh.loop_triangles.foreach_get("vertices", tris)
    polys = np.empty(len(mesh.loop_triangles), np.int32)
    mesh.loop_triangles.foreach_get("polygon_index", polys)
    region = np.empty(len(mesh.polygons), np.int32)
    mesh.attributes["region"].data.foreach_get("value", region)
    return positions, tris.reshape(-1, 3), region[polys]
