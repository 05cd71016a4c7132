"""Reading Blender data back as numpy for the tests; small animations built for them; a layout that records
what the sidebar draws."""
from __future__ import annotations

import numpy as np


def key_positions(obj, name: str) -> np.ndarray:
    block = obj.data.shape_keys.key_blocks[name]
    flat = np.empty(len(obj.data.vertices) * 3, dtype=np.float32)
    block.data.foreach_get("co", flat)
    return flat.reshape(-1, 3)


def polygon_vertices(mesh) -> np.ndarray:
    flat = np.empty(len(mesh.loops), dtype=np.int32)
    mesh.loops.foreach_get("vertex_index", flat)
    return flat.reshape(-1, 3)


def corner_uvs(mesh) -> np.ndarray:
    flat = np.empty(len(mesh.loops) * 2, dtype=np.float32)
    mesh.uv_layers.active.uv.foreach_get("vector", flat)
    return flat.reshape(-1, 3, 2)


def evaluated_positions(bpy, obj) -> np.ndarray:
    depsgraph = bpy.context.evaluated_depsgraph_get()
    obj_eval = obj.evaluated_get(depsgraph)
    mesh = obj_eval.to_mesh()
    flat = np.empty(len(mesh.vertices) * 3, dtype=np.float32)
    mesh.vertices.foreach_get("co", flat)
    obj_eval.to_mesh_clear()
    return flat.reshape(-1, 3)


def world_positions(bpy, obj) -> np.ndarray:
    """Evaluated vertex positions of ``obj`` in world space (armature deformation included)."""
    matrix = np.array(obj.matrix_world)
    return evaluated_positions(bpy, obj).astype(np.float64) @ matrix[:3, :3].T + matrix[:3, 3]


def datablock_counts(bpy) -> dict[str, int]:
    names = ("objects", "meshes", "materials", "images", "actions", "shape_keys", "collections")
    counts = {name: len(getattr(bpy.data, name)) for name in names}
    counts["markers"] = len(bpy.context.scene.timeline_markers)
    return counts


def reported(out: str) -> tuple[list[str], list[str]]:
    """(warning lines, every message) from the reports Blender printed: a ``Warning:`` line (the popup)
    stands for the ``Info: \u2022 `` lines right after it (the Info editor), or for itself when none follow."""
    groups: list[tuple[str, list[str]]] = []
    open_group = False
    for line in out.splitlines():
        if line.startswith("Warning: "):
            groups.append((line[len("Warning: "):], []))
            open_group = True
        elif line.startswith("Info: \u2022 ") and open_group:
            groups[-1][1].append(line[len("Info: \u2022 "):])
        else:
            open_group = False
    return [w for w, _ in groups], [m for w, details in groups for m in (details or [w])]


def keyed_action(bpy, obj, name: str, keys: tuple[tuple[int, float], ...]):
    """An action ``name`` moving ``obj`` along x through (frame, x) ``keys``, kept with a fake user."""
    if obj.animation_data is not None:
        obj.animation_data.action = None
    for frame, x in keys:
        obj.location.x = x
        obj.keyframe_insert("location", frame=frame)
    action = obj.animation_data.action
    action.name = name
    action.use_fake_user = True
    obj.animation_data.action = None
    obj.location.x = 0.0
    return action


class RecordingLayout:
    """Records what the sidebar draws; ``prop`` resolves its path like Blender would."""

    def __init__(self):
        self.lines: list[str] = []

    def box(self):
        return self

    def row(self, align=False):
        return self

    def label(self, text="", icon=None):
        self.lines.append(text)

    def prop(self, data, path, text=None, emboss=True):
        data.path_resolve(path)
        self.lines.append(f"prop {path}")

    def template_list(self, *args, **kwargs):
        self.lines.append(f"list {args[0]}")

    def operator(self, *args, **kwargs):
        class _Op:
            pass
        return _Op()


def stored_action(rig, name: str):
    """The action just keyed on ``rig``, named ``name``, kept by a fake user and taken off the rig."""
    action = rig.animation_data.action
    action.name = name
    action.use_fake_user = True
    rig.animation_data.action = None
    return action


def rest_pose(rig) -> None:
    """Every pose bone back to no rotation (Euler) and no offset."""
    for bone in rig.pose.bones:
        bone.rotation_euler = (0, 0, 0)
        bone.location = (0, 0, 0)


class FrameCounter:
    """Counts frame changes (``frame_set`` runs the frame_change_pre handlers) while installed."""

    def __init__(self, bpy):
        self.bpy, self.count = bpy, 0

    def __call__(self, *args) -> None:
        self.count += 1

    def __enter__(self):
        self.bpy.app.handlers.frame_change_pre.append(self)
        return self

    def __exit__(self, *exc) -> None:
        self.bpy.app.handlers.frame_change_pre.remove(self)
