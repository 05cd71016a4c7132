"""32x32 pictures of a Quake II player for the menu's skin icons, rendered by Blender.

Each icon shows the written models as the game draws them: the first frame (``stand01``) of the
body and of each weapon model, decoded from the MD2 data (:class:`...formats.md2.codec.Md2Model`),
textured with the skin unlit (an emission shader, nearest texel), seen from the model's front (+X,
where Quake II models face) by an orthographic camera framing the head and shoulders (the top
``HEAD_SHARE`` of the body's height), on a transparent background.

Rendering happens in a temporary scene holding only those meshes and the camera (:mod:`..icon_rendering`:
Cycles on the CPU, Workbench where the Cycles add-on is disabled, the user's Render Result kept):
zarlag's player export takes 0.27-0.31 s without icons and 0.28-0.37 s rendering its icon (bpy 5.2.3).
The temporary scene and every datablock it made are removed afterwards, also on error; the user's scenes
are never touched.
"""
from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np

import bpy

from mathutils import Matrix

from ...common.triangle_mesh import build_triangle_mesh
from ...formats.md2.codec import Md2Model
from ...formats.md2.player import ICON_SIZE
from ..icon_rendering import (
    icon_scene,
    icon_settings,
    ortho_camera,
    own_render_slot,
    render_picture,
    rgba_image,
    unlit_material,
)

HEAD_SHARE = 0.4        # the part of the body's height an icon frames, from the top
MARGIN = 1.1


def _mesh(name: str, model: Md2Model) -> bpy.types.Mesh:
    positions = np.asarray(model.positions()[0], np.float64)
    corners = np.asarray(model.tri_xyz, np.int64)[:, ::-1]
    st = np.asarray(model.st, np.float64)[np.asarray(model.tri_st, np.int64)[:, ::-1]]
    uvs = np.stack([(st[..., 0] + 0.5) / model.skin_width, 1.0 - (st[..., 1] + 0.5) / model.skin_height], -1)
    return build_triangle_mesh(name, positions, corners, uvs.reshape(-1, 2))


def _camera_frame(points: np.ndarray, head_top: float, body_height: float) -> tuple[Matrix, float]:
    """An orthographic camera at +X looking down -X (up +Z) at the head and shoulders."""
    low = head_top - HEAD_SHARE * body_height
    band = points[points[:, 2] >= low]
    y_low, y_high = band[:, 1].min(), band[:, 1].max()
    size = max(HEAD_SHARE * body_height, y_high - y_low, 1e-6) * MARGIN
    centre_y, centre_z = (y_low + y_high) / 2, head_top - size / (2 * MARGIN)
    distance = float(np.ptp(points[:, 0])) + size + 1.0
    eye_x = float(points[:, 0].max()) + distance / 2
    # camera looks down its -Z: -Z -> -X (world), +Y -> +Z (world)
    rotation = Matrix(((0, 0, 1), (1, 0, 0), (0, 1, 0))).to_4x4()
    return Matrix.Translation((eye_x, centre_y, centre_z)) @ rotation, size


def render_icons(body: Md2Model, body_skins: list[np.ndarray], others: list[tuple[Md2Model, np.ndarray | None]]
                 ) -> list[np.ndarray]:
    """One (32, 32, 4) uint8 RGBA picture (top row first) per skin of ``body_skins``: the body with
    that skin and the ``others`` (weapon models) with theirs."""
    with icon_scene() as (scene, made):
        parts = [(body, None)] + list(others)
        textures = []
        for i, (model, skin) in enumerate(parts):
            mesh = _mesh(f"classic_icon_{i}", model)
            made.append((bpy.data.meshes, mesh))
            material, tex = unlit_material(f"classic_icon_{i}", i == 0 or skin is not None)
            made.append((bpy.data.materials, material))
            mesh.materials.append(material)
            obj = bpy.data.objects.new(f"classic_icon_{i}", mesh)
            made.append((bpy.data.objects, obj))
            scene.collection.objects.link(obj)
            textures.append(tex)
            if skin is not None:
                image = rgba_image(f"classic_icon_skin_{i}", skin)
                made.append((bpy.data.images, image))
                tex.image = image
        body_points = np.asarray(body.positions()[0], np.float64)
        points = np.concatenate([np.asarray(m.positions()[0], np.float64) for m, _ in parts])
        z = body_points[:, 2]
        matrix, size = _camera_frame(points, float(z.max()), float(z.max() - z.min()))
        ortho_camera(scene, made, matrix, size, float(np.ptp(points[:, 0])) * 2 + size * 4 + 10.0)
        icon_settings(scene, ICON_SIZE)
        icons = []
        with tempfile.TemporaryDirectory(prefix="classic_icon_") as tmp, own_render_slot():
            for k, skin in enumerate(body_skins):
                image = rgba_image(f"classic_icon_body_{k}", skin)
                made.append((bpy.data.images, image))
                textures[0].image = image
                icons.append(render_picture(scene, Path(tmp) / f"icon_{k}.png", ICON_SIZE))
        return icons
