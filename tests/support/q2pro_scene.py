"""The Quake II model the Q2PRO tests make in Blender, in Quake units (the MD2 export writes Blender's
world coordinates at scale 1): a 12 x 8 x 48 column with an arm 24 units long sticking out on +Y (so a
mirrored model draws differently), a 4-joint rig (root -> mid -> top -> arm, and ``tail`` under root,
unweighted, so that joints can be reordered validly), actions ``wave`` (frames 1-4: the arm rises, the
column bends) and ``grow`` (frames 10-13: ``top`` scales up uniformly, so the twin carries a
``.md5scale``), and two skins (two materials, every face on the first: *Alternate Skins*), each painted
in four flat colour regions of the Quake II palette, one region per kind of face.

Also the broken twins of the negative proofs, made from the exported text: an anim one frame short,
an anim whose frames are shifted by one, an anim whose joints are reordered (parents still first), and a
``.md5scale`` naming a joint that is not there.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np

from formats.images.palette import quake2_palette

from .actions import assign
from .blender_helpers import rest_pose, stored_action
from .players import textured

SIZE = 64
# palette indices of the four regions (column front/back, column sides, arm, caps) of skin 0 and skin 1
SKIN_INDICES = ((208, 115, 243, 64), (176, 224, 47, 132))
ACTIONS = (("wave", range(1, 5)), ("grow", range(10, 14)))


def skin_pixels(skin: int, framed: bool = True) -> np.ndarray:
    """(64, 64, 3) uint8, rows top to bottom (v = 1 first): quadrant q = 2 * row + column painted, all
    but a 2-texel frame of palette index 0 (black) around each. The top-left texel must not be a colour
    the faces use: Q2PRO fills the region of the top-left texel's colour connected to it with black when
    it loads an 8-bit skin (``src/refresh/images.c`` ``IMG_FloodFill``, id's ``R_FloodFillSkin``), and
    leaves a black one as it is. ``framed=False``: the regions fill their quadrants, the first touching
    the top-left texel."""
    palette = np.asarray(quake2_palette(), np.uint8)
    image = np.zeros((SIZE, SIZE, 3), np.uint8) + palette[0]
    half = SIZE // 2
    for q, index in enumerate(SKIN_INDICES[skin]):
        row, col = divmod(q, 2)
        edge = 2 if framed else 0
        image[row * half + edge:(row + 1) * half - edge, col * half + edge:(col + 1) * half - edge] = palette[index]
    return image


def _quadrant_square(q: int) -> np.ndarray:
    """The UV corners (v up) of a face painted with quadrant ``q``, well inside it."""
    row, col = divmod(q, 2)
    u0, v0 = col * 0.5, 1.0 - (row + 1) * 0.5
    return np.array([[u0 + 0.1, v0 + 0.1], [u0 + 0.4, v0 + 0.1], [u0 + 0.4, v0 + 0.4], [u0 + 0.1, v0 + 0.4]])


def _box(x0, x1, y0, y1, z0, z1, offset):
    verts = [(x, y, z) for z in (z0, z1) for y in (y0, y1) for x in (x0, x1)]
    o = offset
    faces = [(o + 0, o + 2, o + 3, o + 1), (o + 4, o + 5, o + 7, o + 6), (o + 0, o + 1, o + 5, o + 4),
             (o + 2, o + 6, o + 7, o + 3), (o + 0, o + 4, o + 6, o + 2), (o + 1, o + 3, o + 7, o + 5)]
    return verts, faces


def build(bpy, framed: bool = True):
    """The rigged, painted model (skins as :func:`skin_pixels` paints them); returns (mesh object, armature
    object, {action name: action})."""
    rings = [(-6, -4), (6, -4), (6, 4), (-6, 4)]
    heights = [0, 8, 16, 24, 32, 40, 48]
    verts = [(x, y, z) for z in heights for x, y in rings]
    faces = [(r * 4 + i, r * 4 + (i + 1) % 4, (r + 1) * 4 + (i + 1) % 4, (r + 1) * 4 + i)
             for r in range(len(heights) - 1) for i in range(4)]
    faces += [(3, 2, 1, 0), tuple(len(verts) - 4 + i for i in range(4))]
    arm_verts, arm_faces = _box(-3, 3, 4, 28, 36, 44, len(verts))
    verts += arm_verts
    faces += arm_faces
    mesh = bpy.data.meshes.new("q2model")
    mesh.from_pydata(verts, [], faces)
    mesh.update()
    normals = np.array([p.normal[:] for p in mesh.polygons])
    arm_face = np.arange(len(faces)) >= len(faces) - 6
    region = np.where(arm_face, 2, np.where(np.abs(normals[:, 2]) > 0.5, 3, np.where(np.abs(normals[:, 1]) > 0.5, 0, 1)))
    uv = mesh.uv_layers.new(name="UVMap")
    sizes = np.array([p.loop_total for p in mesh.polygons])
    assert (sizes == 4).all()
    uv.uv.foreach_set("vector", np.concatenate([_quadrant_square(q) for q in region]).ravel())
    for skin in (0, 1):
        image = bpy.data.images.new(f"q2skin{skin}", SIZE, SIZE, alpha=True)
        rgba = np.concatenate([skin_pixels(skin, framed)[::-1] / 255.0, np.ones((SIZE, SIZE, 1))], 2)
        image.pixels.foreach_set(rgba.astype(np.float32).ravel())
        mesh.materials.append(textured(bpy, f"q2skin{skin}", image))
    mesh.polygons.foreach_set("material_index", [0] * len(mesh.polygons))
    obj = bpy.data.objects.new("q2model", mesh)
    bpy.context.scene.collection.objects.link(obj)
    rig = _rig(bpy, obj, np.array(verts, np.float64), len(verts) - 8)
    return obj, rig, _actions(rig)


def _rig(bpy, obj, verts, arm_start):
    arm = bpy.data.armatures.new("q2rig")
    rig = bpy.data.objects.new("q2rig", arm)
    bpy.context.scene.collection.objects.link(rig)
    for other in bpy.context.view_layer.objects:
        other.select_set(False)
    bpy.context.view_layer.objects.active = rig
    rig.select_set(True)
    bpy.ops.object.mode_set(mode="EDIT")
    bones = {}
    for name, head, tail, parent in (("root", (0, 0, 0), (0, 0, 16), None), ("mid", (0, 0, 16), (0, 0, 32), "root"),
                                     ("top", (0, 0, 32), (0, 0, 48), "mid"), ("arm", (0, 4, 40), (0, 28, 40), "top"),
                                     ("tail", (0, -4, 8), (0, -16, 8), "root")):
        bone = arm.edit_bones.new(name)
        bone.head, bone.tail = head, tail
        bone.parent = bones.get(parent)
        bones[name] = bone
    bpy.ops.object.mode_set(mode="OBJECT")
    obj.parent = rig
    groups = {n: obj.vertex_groups.new(name=n) for n in ("root", "mid", "top", "arm")}
    for i, (_, _, z) in enumerate(verts[:arm_start]):
        share = {0: {"root": 1.0}, 8: {"root": 1.0}, 16: {"root": 0.5, "mid": 0.5}, 24: {"mid": 1.0},
                 32: {"mid": 0.5, "top": 0.5}}.get(int(z), {"top": 1.0})
        for name, weight in share.items():
            groups[name].add([i], weight, "REPLACE")
    groups["arm"].add(list(range(arm_start, len(verts))), 1.0, "REPLACE")
    obj.modifiers.new("rig", "ARMATURE").object = rig
    return rig


def _actions(rig) -> dict:
    actions = {}
    for name, frames in ACTIONS:
        for k, f in enumerate(frames):
            for bone in rig.pose.bones:
                bone.rotation_mode = "XYZ"
            pose = rig.pose.bones
            if name == "wave":
                pose["mid"].rotation_euler = (0.12 * k, 0.0, 0.0)
                pose["top"].rotation_euler = (0.0, 0.0, 0.25 * k)
                pose["arm"].rotation_euler = (0.0, 0.0, 0.45 * k)
            else:
                pose["mid"].rotation_euler = (0.0, 0.15 * k, 0.0)
                pose["top"].scale = (1 + 0.2 * k,) * 3
                pose["arm"].rotation_euler = (0.0, 0.0, -0.3 * k)
            for bone in pose:
                bone.keyframe_insert("rotation_euler", frame=f)
                bone.keyframe_insert("scale", frame=f)
        actions[name] = stored_action(rig, name)
        rest_pose(rig)
        for bone in rig.pose.bones:
            bone.scale = (1, 1, 1)
    return actions


def show(bpy, rig, actions, frame_name: str) -> int:
    """Pose Blender at the action frame an MD2 frame was sampled from, by the frame's name (``wave03``:
    the action's third frame; one MD2 frame per action frame); returns the scene frame."""
    match = re.fullmatch(r"([a-z]+)(\d+)", frame_name)
    name, number = match.group(1), int(match.group(2))
    assign(bpy, rig, actions[name])
    return dict(ACTIONS)[name][number - 1]


def corner_uvs(obj) -> np.ndarray:
    """(T, 3, 2) the UV of each loop triangle's corners (the same triangles as the evaluated mesh's)."""
    mesh = obj.data
    mesh.calc_loop_triangles()
    loops = np.empty(len(mesh.loop_triangles) * 3, np.int64)
    mesh.loop_triangles.foreach_get("loops", loops)
    uv = np.empty(len(mesh.loops) * 2, np.float64)
    mesh.uv_layers.active.data.foreach_get("uv", uv)
    return uv.reshape(-1, 2)[loops].reshape(-1, 3, 2)


# --- broken twins -----------------------------------------------------------------------------------

def _blocks(text: str, name: str) -> re.Match:
    return re.search(rf"^{name}\s*\{{(.*?)^\}}", text, re.S | re.M)


def _frames(text: str) -> list[re.Match]:
    return list(re.finditer(r"^frame\s+(\d+)\s*\{(.*?)^\}", text, re.S | re.M))


def anim_one_frame_short(text: str) -> str:
    """numFrames less one: the last frame and its bounds line dropped."""
    count = int(re.search(r"numFrames\s+(\d+)", text).group(1))
    frames = _frames(text)
    text = text[:frames[-1].start()] + text[frames[-1].end():]
    bounds = _blocks(text, "bounds")
    lines = bounds.group(1).strip("\n").split("\n")[:-1]
    text = text[:bounds.start(1)] + "\n" + "\n".join(lines) + "\n" + text[bounds.end(1):]
    return re.sub(r"numFrames\s+\d+", f"numFrames {count - 1}", text, count=1)


def anim_shifted(text: str) -> str:
    """Frame k holds frame k+1's pose (the last keeps its own): anim frame k is no longer MD2 frame k."""
    frames = _frames(text)
    bodies = [m.group(2) for m in frames]
    shifted = bodies[1:] + bodies[-1:]
    out, last = [], 0
    for match, body in zip(frames, shifted):
        out += [text[last:match.start(2)], body]
        last = match.end(2)
    return "".join(out) + text[last:]


def anim_reordered(text: str) -> tuple[str, list[str]]:
    """The anim's joints in another valid order (each parent still before its children): the last root
    child moved up to second place. Returns the text and the new order of names."""
    hierarchy = _blocks(text, "hierarchy")
    rows = [line.split() for line in hierarchy.group(1).strip().split("\n")]
    names = [r[0].strip('"') for r in rows]
    parents, flags = [int(r[1]) for r in rows], [int(r[2]) for r in rows]
    starts = [int(r[3]) for r in rows]
    moved = max(i for i, p in enumerate(parents) if p == 0)
    assert moved > 1, "the rig has a second child of the root to move"
    order = [0, moved] + [i for i in range(1, len(rows)) if i != moved]
    new_index = {old: new for new, old in enumerate(order)}
    counts = [bin(f & 63).count("1") for f in flags]
    new_starts, at = {}, 0
    for old in order:
        new_starts[old] = at
        at += counts[old]
    lines = [f'\t"{names[o]}"\t{new_index[parents[o]] if parents[o] >= 0 else -1} {flags[o]} {new_starts[o]}'
             for o in order]
    text = text[:hierarchy.start(1)] + "\n" + "\n".join(lines) + "\n" + text[hierarchy.end(1):]
    base = _blocks(text, "baseframe")
    base_lines = [line.strip() for line in base.group(1).strip().split("\n")]
    text = text[:base.start(1)] + "\n" + "".join(f"\t{base_lines[o]}\n" for o in order) + text[base.end(1):]
    out, last = [], 0
    for match in _frames(text):
        values = match.group(2).split()
        chunks = [values[starts[o]:starts[o] + counts[o]] for o in order]
        out += [text[last:match.start(2)], "\n\t" + " ".join(v for c in chunks for v in c) + "\n"]
        last = match.end(2)
    return "".join(out) + text[last:], [names[o] for o in order]


def scale_misnamed(path: Path) -> str:
    """The ``.md5scale`` with its first joint's name in capitals (a joint the anim does not have)."""
    table = json.loads(path.read_text())
    first = next(iter(table))
    table = {(k.upper() if k == first else k): v for k, v in table.items()}
    return json.dumps(table, indent=1)
