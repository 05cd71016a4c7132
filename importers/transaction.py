"""All-or-nothing imports: datablocks created inside a failed import are removed again."""
from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import bpy

_COLLECTIONS = ("objects", "meshes", "materials", "images", "actions", "armatures", "textures",
                "node_groups", "collections")


def _snapshot() -> dict[str, set[int]]:
    return {name: {id_.session_uid for id_ in getattr(bpy.data, name)} for name in _COLLECTIONS}


@contextmanager
def datablock_transaction(scene: bpy.types.Scene) -> Iterator[None]:
    """Run the body; on any exception remove every datablock and timeline marker it added."""
    before = _snapshot()
    markers_before = {m.as_pointer() for m in scene.timeline_markers}
    settings_before = (scene.frame_start, scene.frame_end, scene.render.fps, scene.render.fps_base)
    try:
        yield
    except BaseException:
        for marker in [m for m in scene.timeline_markers if m.as_pointer() not in markers_before]:
            scene.timeline_markers.remove(marker)
        scene.frame_start, scene.frame_end, scene.render.fps, scene.render.fps_base = settings_before
        for name in _COLLECTIONS:
            collection = getattr(bpy.data, name)
            added = [id_ for id_ in collection if id_.session_uid not in before[name]]
            if added:
                bpy.data.batch_remove(added)
        raise
