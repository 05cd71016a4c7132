"""A worker's scene between two conversions: what ``read_homefile(use_empty=True)`` gives, made cheaply.

A worker reads the empty home file once (:meth:`SceneReset.__init__`), notes every data-block it holds
(a Scene, the window manager, workspaces and screens) and the scene settings a conversion changes
(:data:`SCENE_SETTINGS`: the importers set the frame range and rate, ``--fps`` stretches them,
samplers step ``frame_current``), then before each job removes the data-blocks added since
(``bpy.data.batch_remove``, one call for every kind: objects, meshes and their shape keys,
materials, images, actions, armatures, collections ...), the added timeline markers and scene
custom properties, and puts the settings back. That costs about 2 ms where reading the home file
again costs 8 ms (bpy 5.2), a fifth of converting a small model to glb.

Whatever the removal leaves (a data-block that cannot be removed, a kind added by some other code),
:meth:`SceneReset.clean` sees by comparing the data-blocks with the noted ones and then reads the
home file after all, so a job never starts on another job's leftovers; so it does after a ``.blend``
output (the saved file became the current one: relative paths would resolve against it).
``tests/command_line/test_scene_reset.py`` compares every property of every data-block, after corpus
conversions of each format, against a fresh home file.
"""
from __future__ import annotations

import bpy

# (struct path below the scene, property): what the importers, exporters and --fps change; restored in
# this order (the range before the current frame, which it clamps).
SCENE_SETTINGS = (("", "frame_start"), ("", "frame_end"), ("", "frame_step"), ("", "frame_current"),
                  ("", "frame_preview_start"), ("", "frame_preview_end"), ("", "use_preview_range"),
                  ("render", "fps"), ("render", "fps_base"), ("render", "frame_map_old"),
                  ("render", "frame_map_new"))


# The bpy.data collections of data-blocks in Blender 4.2-5.2 (those the running Blender has): what the tests
# compare property by property. The reset itself finds data-blocks with bpy.data.user_map(), which lists
# every one whatever its kind, so a kind missing here is still removed and still noticed.
ID_COLLECTIONS = ("actions", "annotations", "armatures", "brushes", "cache_files", "cameras", "collections", "curves",
                  "fonts", "grease_pencils", "grease_pencils_v3", "hair_curves", "images", "lattices", "libraries",
                  "lightprobes", "lights", "linestyles", "masks", "materials", "meshes", "metaballs", "movieclips",
                  "node_groups", "objects", "paint_curves", "palettes", "particles", "pointclouds", "scenes", "screens",
                  "shape_keys", "sounds", "speakers", "texts", "textures", "volumes", "window_managers", "workspaces",
                  "worlds")


def id_collections() -> tuple[str, ...]:
    """The names of :data:`ID_COLLECTIONS` this Blender's ``bpy.data`` has."""
    return tuple(name for name in ID_COLLECTIONS if hasattr(bpy.data, name))


def _struct(scene, path: str):
    return getattr(scene, path) if path else scene


class SceneReset:
    """Reads the empty home file once; :meth:`clean` brings the worker back to it before each job."""

    def __init__(self) -> None:
        self.collections = id_collections()
        self.home_reads = 0       # how often clean() had to read the home file (tests, the benchmark)
        self._read_home()

    def _read_home(self) -> None:
        bpy.ops.wm.read_homefile(use_empty=True)
        self.home_reads += 1
        self.ids = self._ids()
        scene = bpy.context.scene
        self.scene_uid = scene.session_uid
        self.settings = [(path, name, getattr(_struct(scene, path), name)) for path, name in SCENE_SETTINGS]
        self.scene_keys = set(scene.keys())

    @staticmethod
    def _ids() -> set[int]:
        return {block.session_uid for block in bpy.data.user_map()}

    def _added(self) -> list:
        return [block for block in bpy.data.user_map() if block.session_uid not in self.ids]

    def clean(self) -> bool:
        """Make the scene what the home file gave; True when that took the cheap way."""
        scene = bpy.context.scene
        if scene.session_uid != self.scene_uid or len(bpy.data.scenes) != 1 or bpy.data.filepath:
            self._read_home()
            return False
        try:
            self._undo(scene)
            clean = self._ids() == self.ids and all(getattr(_struct(scene, p), n) == v for p, n, v in self.settings)
        except (RuntimeError, ReferenceError, TypeError, ValueError):    # something bpy would not remove
            clean = False
        if not clean:
            self._read_home()
        return clean

    def _undo(self, scene) -> None:
        added = self._added()
        if added:
            bpy.data.batch_remove(added)
        scene.timeline_markers.clear()
        for key in set(scene.keys()) - self.scene_keys:
            del scene[key]
        for path, name, value in self.settings:
            struct = _struct(scene, path)
            if getattr(struct, name) != value:
                setattr(struct, name, value)
