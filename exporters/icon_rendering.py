"""Small pictures of a model rendered by Blender (the Quake II and Quake III players' menu icons): a scene of
their own holding textured copies and an orthographic camera, rendered and read back, the user's scenes and
*Render Result* left as they were.

Cycles on the CPU renders without a GPU or display, unlike Workbench and EEVEE, which need an OpenGL
context; Workbench (flat light, texture colours) where the Cycles add-on is disabled. The materials are
unlit (the texture's colour as emission), as the games draw a skin without lighting in their menus' model
views closest to flat; Blender shows every render in its one *Render Result* image: made here, it is
removed again; if the user has one, the icons go to a render slot of their own (*Model Icons*, reused by
later exports) and the slot the user was looking at stays active, with their render in it.
"""
from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path

import numpy as np

import bpy

SAMPLES = 16            # anti-aliasing samples (emission only: no noise to clean)
SLOT_NAME = "Model Icons"


@contextmanager
def icon_scene():
    """A scene of its own and a list of ``(bpy.data collection, datablock)`` pairs to append what is made for
    it to; the scene and every one of them removed afterwards, also on error."""
    made: list[tuple[object, object]] = []
    scene = bpy.data.scenes.new("classic_icon")
    try:
        yield scene, made
    finally:
        bpy.data.scenes.remove(scene)
        for collection, block in reversed(made):
            try:
                collection.remove(block)
            except ReferenceError:      # already gone with its user
                pass


def ortho_camera(scene: bpy.types.Scene, made: list, matrix, size: float, clip_end: float) -> None:
    """The scene's camera: orthographic, ``size`` wide, placed by ``matrix`` (it looks down its own -Z)."""
    data = bpy.data.cameras.new("classic_icon_camera")
    made.append((bpy.data.cameras, data))
    data.type, data.ortho_scale = "ORTHO", size
    data.clip_start, data.clip_end = 0.01, clip_end
    camera = bpy.data.objects.new("classic_icon_camera", data)
    made.append((bpy.data.objects, camera))
    scene.collection.objects.link(camera)
    camera.matrix_world = matrix
    scene.camera = camera


def rgba_image(name: str, rgba: np.ndarray) -> bpy.types.Image:
    """A Blender image of (h, w, 4) uint8 pixels, top row first."""
    height, width = rgba.shape[:2]
    image = bpy.data.images.new(name, width, height, alpha=True)
    image.pixels.foreach_set((np.ascontiguousarray(rgba[::-1], np.float32) / 255.0).ravel())
    return image


def unlit_material(name: str, textured: bool, alpha: bool = True) -> tuple[bpy.types.Material,
                                                                            bpy.types.ShaderNodeTexImage]:
    """Unlit: the texture's colour as emission, its alpha mixing with transparency where ``alpha`` (a Quake II
    skin's holes), opaque otherwise (a Quake III skin's alpha is for its shader, not a hole); flat grey when
    not ``textured``."""
    material = bpy.data.materials.new(name)
    if bpy.app.version < (5, 0, 0):
        material.use_nodes = True
    tree = material.node_tree
    tree.nodes.clear()
    tex = tree.nodes.new("ShaderNodeTexImage")
    tex.interpolation = "Closest"
    emission = tree.nodes.new("ShaderNodeEmission")
    clear = tree.nodes.new("ShaderNodeBsdfTransparent")
    mix = tree.nodes.new("ShaderNodeMixShader")
    out = tree.nodes.new("ShaderNodeOutputMaterial")
    emission.inputs["Color"].default_value = (0.5, 0.5, 0.5, 1.0)
    mix.inputs[0].default_value = 1.0
    if textured:
        tree.links.new(tex.outputs["Color"], emission.inputs["Color"])
        if alpha:
            tree.links.new(tex.outputs["Alpha"], mix.inputs[0])
    tree.links.new(clear.outputs[0], mix.inputs[1])
    tree.links.new(emission.outputs[0], mix.inputs[2])
    tree.links.new(mix.outputs[0], out.inputs["Surface"])
    tree.nodes.active = tex
    return material, tex


@contextmanager
def own_render_slot():
    """Render into a slot of the user's Render Result of our own (or into a Render Result removed after)."""
    result = bpy.data.images.get("Render Result")
    if result is None or result.type != "RENDER_RESULT":
        try:
            yield
        finally:
            made = bpy.data.images.get("Render Result")
            if made is not None and made.type == "RENDER_RESULT":
                bpy.data.images.remove(made)
        return
    slots = result.render_slots
    active = slots.active_index
    slot = next((s for s in slots if s.name == SLOT_NAME), None) or slots.new(name=SLOT_NAME)
    slots.active = slot
    try:
        yield
    finally:
        slots.active_index = active


def icon_settings(scene: bpy.types.Scene, size: int) -> None:
    """Cycles on the CPU; Workbench (flat light, texture colours) where the Cycles add-on is off."""
    render = scene.render
    try:
        render.engine = "CYCLES"
        scene.cycles.device = "CPU"
        scene.cycles.samples = SAMPLES
        scene.cycles.use_denoising = False
        scene.cycles.max_bounces = 0
    except (TypeError, AttributeError):
        render.engine = "BLENDER_WORKBENCH"
        scene.display.shading.light = "FLAT"
        scene.display.shading.color_type = "TEXTURE"
    render.resolution_x = render.resolution_y = size
    render.resolution_percentage = 100
    render.film_transparent = True
    render.image_settings.file_format = "PNG"
    render.image_settings.color_mode = "RGBA"
    render.image_settings.color_depth = "8"
    scene.view_settings.view_transform = "Standard"
    scene.view_settings.look = "None"


def render_picture(scene: bpy.types.Scene, path: Path, size: int) -> np.ndarray:
    """Render ``scene`` and read the picture back (through a PNG: Render Result has no pixels to read):
    (size, size, 4) uint8, top row first."""
    with bpy.context.temp_override(scene=scene):
        bpy.ops.render.render(scene=scene.name)
    bpy.data.images["Render Result"].save_render(str(path), scene=scene)
    image = bpy.data.images.load(str(path), check_existing=False)
    try:
        pixels = np.empty(size * size * 4, np.float32)
        image.pixels.foreach_get(pixels)
    finally:
        bpy.data.images.remove(image)
    return np.clip(np.rint(pixels.reshape(size, size, 4)[::-1] * 255), 0, 255).astype(np.uint8)
