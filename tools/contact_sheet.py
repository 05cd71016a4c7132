"""A contact sheet: one PNG tiling Workbench renders of a model at frames across its animations.

Each animation in ``obj.classic_model.animations`` contributes up to three tiles (first, middle,
last frame); animations follow one another in reading order, each in its own three-tile slot, and
alternate slot shading tells them apart. An object without animations gets up to nine frames
spread over the scene range. An orthographic camera frames the model's bounds over every frame, so
tiles share one scale and poses can be compared. Scene settings the renders change are restored
and the datablocks they create are removed (Blender keeps its usual ``Render Result``).

Needs ``bpy``; import this module only after :func:`tools.load_extension.enable_extension`.
"""
from __future__ import annotations

import math
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import numpy as np

import bpy

from mathutils import Matrix, Vector

TILES_PER_ANIMATION = 3
MAX_PLAIN_FRAMES = 9
SLOT_SHADES = ((0.20, 0.21, 0.24), (0.27, 0.28, 0.32))
EMPTY_SHADE = (0.12, 0.12, 0.14)


def sheet_frames(scene: bpy.types.Scene, obj: bpy.types.Object) -> list[list[int]]:
    """Frames to show, grouped by animation: first, middle and last of each (fewer if shorter)."""
    groups = []
    for anim in obj.classic_model.animations:
        first, last = anim.frame_start, max(anim.frame_end, anim.frame_start)
        groups.append(list(dict.fromkeys((first, (first + last) // 2, last))))
    if groups:
        return groups
    count = min(MAX_PLAIN_FRAMES, scene.frame_end - scene.frame_start + 1)
    frames = list(dict.fromkeys(np.linspace(scene.frame_start, scene.frame_end, max(count, 1)).round().astype(int)))
    return [frames[i:i + TILES_PER_ANIMATION] for i in range(0, len(frames), TILES_PER_ANIMATION)]


def model_points(context: bpy.types.Context, obj: bpy.types.Object, frames: Sequence[int]) -> np.ndarray:
    """World-space vertex positions the model reaches: every shape key, and the mesh at ``frames``."""
    matrix = np.array(obj.matrix_world, dtype=np.float64)
    chunks = []
    key = obj.data.shape_keys
    if key is not None:
        count = len(obj.data.vertices)
        flat = np.empty(count * 3, dtype=np.float32)
        for block in key.key_blocks:
            (block.points if hasattr(block, "points") else block.data).foreach_get("co", flat)
            chunks.append(flat.reshape(-1, 3).astype(np.float64))
    scene = context.scene
    saved = scene.frame_current
    try:
        for frame in frames:
            scene.frame_set(frame)
            obj_eval = obj.evaluated_get(context.evaluated_depsgraph_get())
            mesh = obj_eval.to_mesh()
            try:
                flat = np.empty(len(mesh.vertices) * 3, dtype=np.float32)
                mesh.vertices.foreach_get("co", flat)
                chunks.append(flat.reshape(-1, 3).astype(np.float64))
            finally:
                obj_eval.to_mesh_clear()
    finally:
        scene.frame_set(saved)
    points = np.concatenate(chunks) if chunks else np.zeros((1, 3))
    return points @ matrix[:3, :3].T + matrix[:3, 3]


def framing_camera(points: np.ndarray, view_direction: Sequence[float], margin: float = 1.08
                   ) -> tuple[Matrix, float, float, float]:
    """Orthographic camera looking along ``-view_direction`` at ``points``.

    Returns (world matrix, ortho_scale, clip_start, clip_end) for a square image.
    """
    rotation = Vector(view_direction).normalized().to_track_quat("Z", "Y").to_matrix()
    axes = np.array(rotation, dtype=np.float64).T
    projected = points @ axes.T
    low, high = projected.min(axis=0), projected.max(axis=0)
    size = float(max(high[0] - low[0], high[1] - low[1], 1e-6))
    depth = float(high[2] - low[2])
    standoff = size + 1.0
    eye = ((low[0] + high[0]) / 2, (low[1] + high[1]) / 2, high[2] + standoff)
    location = Vector(np.asarray(eye) @ axes)
    matrix = Matrix.Translation(location) @ rotation.to_4x4()
    return matrix, size * margin, standoff / 2, standoff * 2 + depth


@contextmanager
def _restored(settings: Sequence[tuple[object, str]]) -> Iterator[None]:
    saved = [(owner, name, getattr(owner, name)) for owner, name in settings]
    try:
        yield
    finally:
        for owner, name, value in reversed(saved):
            setattr(owner, name, value)


def _render_settings(scene: bpy.types.Scene) -> list[tuple[object, str]]:
    render, shading = scene.render, scene.display.shading
    return [(scene, "camera"), (render, "engine"), (render, "resolution_x"), (render, "resolution_y"),
            (render, "resolution_percentage"), (render, "film_transparent"),
            (render.image_settings, "file_format"), (render.image_settings, "color_mode"),
            (render.image_settings, "color_depth"), (shading, "light"), (shading, "color_type"),
            (scene.view_settings, "view_transform"), (scene.view_settings, "look"),
            (scene.view_settings, "exposure"), (scene.view_settings, "gamma")]


def read_png(path: Path) -> np.ndarray:
    """(height, width, 4) float32 RGBA, bottom row first, as stored in the file (sRGB, straight alpha)."""
    image = bpy.data.images.load(str(path), check_existing=False)
    try:
        width, height = image.size
        pixels = np.empty(width * height * 4, dtype=np.float32)
        image.pixels.foreach_get(pixels)
    finally:
        bpy.data.images.remove(image)
    return pixels.reshape(height, width, 4)


def _read_png(path: Path, size: int) -> np.ndarray:
    """(size, size, 4) float32 RGBA, bottom row first."""
    pixels = read_png(path)
    height, width = pixels.shape[:2]
    if (width, height) != (size, size):
        raise RuntimeError(f"render came back {width}x{height}, expected {size}x{size}")
    return pixels


def _write_png(path: Path, rgb: np.ndarray) -> None:
    """Write (height, width, 3) floats in 0..1, top row first, as an 8-bit PNG."""
    height, width = rgb.shape[:2]
    rgba = np.concatenate([rgb, np.ones((height, width, 1), dtype=np.float32)], axis=2)
    image = bpy.data.images.new(path.stem, width, height, alpha=False)
    try:
        image.pixels.foreach_set(np.ascontiguousarray(rgba[::-1], dtype=np.float32).ravel())
        image.filepath_raw = str(path)
        image.file_format = "PNG"
        image.save()
    finally:
        bpy.data.images.remove(image)


def sheet_layout(group_lengths: Sequence[int]) -> tuple[int, int]:
    """(groups per row, rows) for groups of up to three tiles, aiming at a roughly square sheet."""
    groups = max(len(group_lengths), 1)
    per_row = max(1, min(groups, math.ceil(math.sqrt(groups / TILES_PER_ANIMATION))))
    return per_row, math.ceil(groups / per_row)


def render_contact_sheet(context: bpy.types.Context, obj: bpy.types.Object, path: Path | str, *,
                         tile_size: int = 256, view_direction: Sequence[float] = (1.0, -0.6, 0.35),
                         groups: list[list[int]] | None = None,
                         framed: Sequence[bpy.types.Object] | None = None,
                         bounds: np.ndarray | None = None) -> list[list[int]]:
    """Render ``obj`` at frames across its animations and tile the renders into the PNG ``path``.

    ``groups`` lists the frames per slot (default :func:`sheet_frames`); the default view looks at
    the model's front (+X for MD2), right side and top. For a model imported with one action per
    animation, each default slot shows its own action. ``framed``: the mesh objects the camera frames
    (default ``obj``; an MD3 model root is an empty, its surfaces are meshes). ``bounds``: (N, 3) world points
    the camera frames instead (one camera for two models: :func:`model_points` of one). Returns the groups of
    frames rendered.
    """
    scene = context.scene
    path = Path(path)
    settings = obj.classic_model
    per_action = groups is None and settings.animation_mode == "ACTIONS"
    saved_animation = settings.active_animation, scene.frame_start, scene.frame_end
    groups = [g[:TILES_PER_ANIMATION] for g in (groups or sheet_frames(scene, obj)) if g]
    frames = [f for g in groups for f in g]
    points = bounds if bounds is not None else \
        np.concatenate([model_points(context, o, frames) for o in (framed or [obj])])
    matrix, ortho_scale, clip_start, clip_end = framing_camera(points, view_direction)

    camera_data = bpy.data.cameras.new("contact_sheet_camera")
    camera_data.type = "ORTHO"
    camera_data.ortho_scale, camera_data.clip_start, camera_data.clip_end = ortho_scale, clip_start, clip_end
    camera = bpy.data.objects.new("contact_sheet_camera", camera_data)
    camera.matrix_world = matrix
    scene.collection.objects.link(camera)
    saved_frame = scene.frame_current
    per_row, rows = sheet_layout([len(g) for g in groups])
    sheet = np.empty((rows * tile_size, per_row * TILES_PER_ANIMATION * tile_size, 3), dtype=np.float32)
    sheet[:] = EMPTY_SHADE
    try:
        with _restored(_render_settings(scene)), tempfile.TemporaryDirectory(prefix="contact_sheet_") as tmp:
            _use_workbench(scene, camera, tile_size)
            for g, group in enumerate(groups):
                row, slot = divmod(g, per_row)
                shade = np.asarray(SLOT_SHADES[g % 2], dtype=np.float32)
                if per_action:
                    settings.active_animation = g          # switches to that animation's action
                for t in range(TILES_PER_ANIMATION):
                    y = row * tile_size
                    x = (slot * TILES_PER_ANIMATION + t) * tile_size
                    tile = sheet[y:y + tile_size, x:x + tile_size]
                    tile[:] = shade
                    if t >= len(group):
                        continue
                    scene.frame_set(group[t])
                    bpy.ops.render.render()
                    tile_path = Path(tmp) / f"frame_{group[t]:05d}.png"
                    bpy.data.images["Render Result"].save_render(str(tile_path), scene=scene)
                    rgba = _read_png(tile_path, tile_size)[::-1]
                    alpha = rgba[..., 3:]
                    tile[:] = rgba[..., :3] * alpha + shade * (1.0 - alpha)
        path.parent.mkdir(parents=True, exist_ok=True)
        _write_png(path, sheet)
    finally:
        if per_action:
            settings.active_animation = saved_animation[0]
            scene.frame_start, scene.frame_end = saved_animation[1:]
        scene.frame_set(saved_frame)
        bpy.data.objects.remove(camera)
        bpy.data.cameras.remove(camera_data)
    return groups


def _use_workbench(scene: bpy.types.Scene, camera: bpy.types.Object, tile_size: int) -> None:
    render = scene.render
    scene.camera = camera
    render.engine = "BLENDER_WORKBENCH"
    render.resolution_x = render.resolution_y = tile_size
    render.resolution_percentage = 100
    render.film_transparent = True
    render.image_settings.file_format = "PNG"
    render.image_settings.color_mode = "RGBA"
    render.image_settings.color_depth = "8"
    scene.display.shading.light = "STUDIO"
    scene.display.shading.color_type = "TEXTURE"
    scene.view_settings.view_transform = "Standard"
    scene.view_settings.look = "None"
    scene.view_settings.exposure = 0.0
    scene.view_settings.gamma = 1.0
