"""Quake II players: the standard animation table, and a player made in Blender for the exports."""
from __future__ import annotations

from pathlib import Path

import numpy as np

# The table, written out here independently of formats.md2.player.
STANDARD = ("stand 40, run 6, attack 8, pain1 4, pain2 4, pain3 4, jump 6, flip 12, salute 11, taunt 17, "
            "wave 11, point 12, crstnd 19, crwalk 6, crattak 9, crpain 4, crdeath 5, death1 6, death2 6, death3 8")


TABLE = [(part.split()[0], int(part.split()[1])) for part in STANDARD.split(", ")]


def standard_names() -> list[str]:
    return [f"{name}{i:02d}" for name, count in TABLE for i in range(1, count + 1)]


# m_player.h's frame names: two digits for stand, flip, salute, taunt, wave, point, crstnd, and for
# the numbered pain1..3 and death1..3; one or two for the rest (run1..run6, crattak1..crattak9)
TWO_DIGITS = {"stand", "flip", "salute", "taunt", "wave", "point", "crstnd",
              "pain1", "pain2", "pain3", "death1", "death2", "death3"}


def m_player_names() -> list[str]:
    return [f"{name}{i:02d}" if name in TWO_DIGITS else f"{name}{i}" for name, count in TABLE
            for i in range(1, count + 1)]


RED, BLUE, GREEN, GREY = (200, 30, 30), (30, 30, 200), (30, 200, 30), (128, 128, 128)


def painted(bpy, name: str, top, bottom=None, size: int = 64):
    """An image painted in the test: ``top`` colour over the upper half, ``bottom`` below."""
    image = bpy.data.images.new(name, size, size, alpha=True)
    rgba = np.empty((size, size, 4), np.float32)
    rgba[:size // 2] = (*np.array(bottom or top) / 255.0, 1.0)      # bottom rows first in Blender
    rgba[size // 2:] = (*np.array(top) / 255.0, 1.0)
    image.pixels.foreach_set(rgba.ravel())
    return image


def textured(bpy, name: str, image):
    material = bpy.data.materials.new(name)
    if bpy.app.version < (5, 0, 0):
        material.use_nodes = True
    tree = material.node_tree
    bsdf = next(n for n in tree.nodes if n.type == "BSDF_PRINCIPLED")
    tex = tree.nodes.new("ShaderNodeTexImage")
    tex.image = image
    tree.links.new(tex.outputs["Color"], bsdf.inputs["Base Color"])
    return material


def facing_x(bpy, name: str, ys, zs, x: float = 0.0):
    """A grid of quads in the plane x = ``x``, facing +X (where Quake II models look), with UVs."""
    mesh = bpy.data.meshes.new(name)
    verts = [(x, y, z) for z in zs for y in ys]
    n = len(ys)
    faces = [(r * n + c, r * n + c + 1, (r + 1) * n + c + 1, (r + 1) * n + c)
             for r in range(len(zs) - 1) for c in range(n - 1)]
    mesh.from_pydata(verts, [], faces)
    uv = mesh.uv_layers.new(name="UVMap")
    span_y, span_z = (ys[-1] - ys[0]) or 1.0, (zs[-1] - zs[0]) or 1.0
    co = np.array([((v[1] - ys[0]) / span_y * 0.98 + 0.01, (v[2] - zs[0]) / span_z * 0.98 + 0.01) for v in verts])
    corners = np.empty(len(mesh.loops), np.int32)
    mesh.loops.foreach_get("vertex_index", corners)
    uv.uv.foreach_set("vector", co[corners].ravel())
    obj = bpy.data.objects.new(name, mesh)
    bpy.context.scene.collection.objects.link(obj)
    return obj


def select(bpy, objects):
    for other in bpy.context.view_layer.objects:
        other.select_set(False)
    for obj in objects:
        obj.select_set(True)
    bpy.context.view_layer.objects.active = objects[0]


def build_player(bpy, actions=None, second_skin: bool = True):
    """Body (two bones), a gun parented to the upper bone, one action per (name, frames) of ``actions``
    (default: Quake II's 20 animations in mixed case, created in reverse order) keyed on the rig."""
    body = facing_x(bpy, "hero", [-1.0, 0.0, 1.0], [0.0, 1.0, 2.0, 3.0, 4.0, 5.0])
    body.data.materials.append(textured(bpy, "hero", painted(bpy, "hero", RED, BLUE)))
    if second_skin:
        body.data.materials.append(textured(bpy, "hero_green", painted(bpy, "hero_green", GREEN)))
    rig = bpy.data.objects.new("rig", bpy.data.armatures.new("rig"))
    bpy.context.scene.collection.objects.link(rig)
    select(bpy, [rig])
    bpy.ops.object.mode_set(mode="EDIT")
    lower = rig.data.edit_bones.new("lower")
    lower.head, lower.tail = (0, 0, 0), (0, 0, 2.5)
    upper = rig.data.edit_bones.new("upper")
    upper.head, upper.tail, upper.parent = (0, 0, 2.5), (0, 0, 5), lower
    bpy.ops.object.mode_set(mode="OBJECT")
    groups = body.vertex_groups.new(name="lower"), body.vertex_groups.new(name="upper")
    for v in body.data.vertices:
        w = min(max(v.co.z / 5.0, 0.0), 1.0)
        groups[0].add([v.index], 1.0 - w, "REPLACE")
        groups[1].add([v.index], w, "REPLACE")
    body.modifiers.new("rig", "ARMATURE").object = rig
    gun = facing_x(bpy, "weapon", [0.6, 1.0], [4.0, 4.4], x=0.3)
    gun.data.materials.append(textured(bpy, "gun", painted(bpy, "gun", GREY)))
    world = gun.matrix_world.copy()
    gun.parent, gun.parent_type, gun.parent_bone = rig, "BONE", "upper"
    bpy.context.view_layer.update()
    gun.matrix_world = world
    made = {}
    names = actions if actions is not None else [(n.upper() if i % 2 else n.capitalize(), c)
                                                  for i, (n, c) in enumerate(TABLE)][::-1]
    for name, count in names:
        if rig.animation_data is not None:
            rig.animation_data.action = None
        for frame, angle in ((1, 0.0), (count, 0.1 + 0.02 * len(made))):
            for bone in rig.pose.bones:
                bone.rotation_mode = "XYZ"
                bone.rotation_euler = (angle, 0.0, angle / 2)
                bone.keyframe_insert("rotation_euler", frame=frame)
        action = rig.animation_data.action
        action.name, action.use_fake_user = name, True
        made[name] = action
    rig.animation_data.action = None
    for bone in rig.pose.bones:
        bone.rotation_euler = (0, 0, 0)
    bpy.context.scene.render.fps = 10
    return body, gun, rig, made


def export_player(bpy, objects, path: Path, **options) -> None:
    select(bpy, objects)
    path.parent.mkdir(parents=True, exist_ok=True)
    options.setdefault("frame_source", "ACTIONS")
    assert bpy.ops.export_scene.md2(filepath=str(path), player=True, **options) == {"FINISHED"}
