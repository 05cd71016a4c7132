"""The player menu's icon (``icon_<skin>.tga`` beside the parts): the head rendered from the front.

The game needs the icon to register a player at all (ioquake3 cg_players.c ``CG_RegisterClientModelname``
returns false without ``ci->modelIcon``) and the menu lists a player's skins by its ``icon_*`` files
(q3_ui ui_playermodel.c ``PlayerModel_BuildList``). OpenArena's are 128 x 128 32-bit TGAs.

The head's meshes, as Blender evaluates them at the current frame, are copied into a scene of their own in
the frame of the head (its model root or the torso's ``tag_head``: Quake's forward is +X, up +Z), each
material replaced by an unlit one showing its image opaque (a Quake III skin's alpha is for its shader, not
a hole; the game draws a skin without a shader script opaque), and rendered through an orthographic camera
at +X looking down -X that the head fills (:mod:`..icon_rendering`: Cycles on the CPU, the user's scenes
and Render Result untouched). The copies, materials, camera and scene are removed afterwards. Where Blender
cannot render, the icon is a flat square of the head's first material's colour and the report says why.
"""
from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np

import bpy

from mathutils import Matrix

from ...formats.images.truecolour import encode_tga
from ..icon_rendering import icon_scene, icon_settings, ortho_camera, own_render_slot, render_picture, unlit_material
from ..sampling.skin_packing import FlatSkin

ICON_SIZE = 128
MARGIN = 1.1                         # the head fills the picture but its outline is not cut
CAMERA = Matrix(((0, 0, 1, 0), (1, 0, 0, 0), (0, 1, 0, 0), (0, 0, 0, 1)))   # its -Z down world -X, +Y up +Z


def _image_of(material: bpy.types.Material | None) -> bpy.types.Image | None:
    if material is None or material.node_tree is None:
        return None
    return next((n.image for n in material.node_tree.nodes if n.type == "TEX_IMAGE" and n.image), None)


def _copies(context: bpy.types.Context, meshes: list[bpy.types.Object], space: np.ndarray,
            scene: bpy.types.Scene, made: list, images: dict | None) -> np.ndarray:
    """Evaluated copies of ``meshes`` in ``scene``, in the head's frame, with unlit materials (each appended to
    ``made``), each showing its image of ``images`` (mesh name -> image) where given; their vertices there."""
    depsgraph = context.evaluated_depsgraph_get()
    inverse = np.linalg.inv(space)
    unlit: dict = {}
    points = []
    for obj in meshes:
        evaluated = obj.evaluated_get(depsgraph)
        mesh = bpy.data.meshes.new_from_object(evaluated, depsgraph=depsgraph)
        made.append((bpy.data.meshes, mesh))
        for slot, material in enumerate(mesh.materials):
            image = (images or {}).get(obj.name) or _image_of(material)
            if image not in unlit:
                unlit[image], tex = unlit_material("classic_icon", image is not None, alpha=False)
                made.append((bpy.data.materials, unlit[image]))
                if image is not None:      # its colour where the alpha is 0 too (straight alpha premultiplies)
                    tex.image = image.copy()
                    made.append((bpy.data.images, tex.image))
                    tex.image.alpha_mode = "CHANNEL_PACKED"
            mesh.materials[slot] = unlit[image]
        copy = bpy.data.objects.new("classic_icon", mesh)
        made.append((bpy.data.objects, copy))
        matrix = inverse @ np.array(evaluated.matrix_world, np.float64)
        copy.matrix_world = Matrix(matrix.tolist())
        scene.collection.objects.link(copy)
        co = np.empty(len(mesh.vertices) * 3, np.float32)
        mesh.vertices.foreach_get("co", co)
        points.append(co.reshape(-1, 3).astype(np.float64) @ matrix[:3, :3].T + matrix[:3, 3])
    return np.concatenate(points) if points else np.zeros((0, 3))


def render_icon(context: bpy.types.Context, meshes: list[bpy.types.Object], space: np.ndarray,
                images: dict | None = None, size: int = ICON_SIZE) -> np.ndarray:
    """(size, size, 4) uint8 RGBA, top row first: the head ``meshes`` seen from the front of ``space``
    (the head's 4 x 4 world matrix), wearing ``images`` (mesh name -> image; by default what their materials
    show). RuntimeError where Blender cannot render."""
    with icon_scene() as (scene, made):
        points = _copies(context, meshes, space, scene, made, images)
        if not len(points):
            raise RuntimeError("the head has no vertices")
        low, high = points.min(axis=0), points.max(axis=0)
        depth = float(high[0] - low[0]) + 1.0
        centre = (low + high) / 2
        ortho_camera(scene, made, Matrix.Translation((float(high[0]) + depth, float(centre[1]), float(centre[2])))
                     @ CAMERA, float(max(high[1] - low[1], high[2] - low[2], 1e-3) * MARGIN), depth * 4)
        icon_settings(scene, size)
        with tempfile.TemporaryDirectory(prefix="classic_icon_") as folder, own_render_slot():
            return render_picture(scene, Path(folder) / "icon.png", size)


def head_icon(context: bpy.types.Context, meshes: list[bpy.types.Object], space: np.ndarray,
              images: dict | None = None) -> tuple[bytes, str]:
    """The TGA bytes of the icon and the report's words about it."""
    try:
        rgba = render_icon(context, meshes, space, images)
        return encode_tga(rgba, bottom_up=True), "the head rendered from the front"
    except RuntimeError as exc:
        material = next((s.material for o in meshes for s in o.material_slots if s.material), None)
        flat = FlatSkin.of(material, ICON_SIZE, ICON_SIZE)
        return encode_tga(flat.rgba(), bottom_up=True), (f"a flat square of the head's colour {flat.colour[:3]}: "
                                                         f"Blender could not render it ({exc})")
