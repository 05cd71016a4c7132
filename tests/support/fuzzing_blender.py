"""Blender-level fuzz checks (``bpy`` is passed in: this module stays importable without Blender)."""
from __future__ import annotations

from pathlib import Path


def import_operator(bpy, fmt: str):
    """``bpy.ops.import_scene.<fmt>`` if it is registered, else None."""
    ops = bpy.ops.import_scene
    if not hasattr(ops, fmt):
        return None
    operator = getattr(ops, fmt)
    try:
        operator.idname()
        operator.get_rna_type()       # idname() alone answers for any name; this one needs a registered class
    except (KeyError, AttributeError, RuntimeError):
        return None
    return operator


def data_counts(bpy) -> dict[str, int]:
    """The length of every ``bpy.data`` collection, plus the scene's timeline markers."""
    counts = {"markers": len(bpy.context.scene.timeline_markers)}
    for name in dir(bpy.data):
        collection = getattr(bpy.data, name, None)
        if isinstance(collection, bpy.types.bpy_prop_collection):
            counts[name] = len(collection)
    return counts


def purge_orphans(bpy) -> None:
    if hasattr(bpy.data, "orphans_purge"):
        bpy.data.orphans_purge(do_local_ids=True, do_linked_ids=True, do_recursive=True)


def remove_new_objects(bpy, object_uids: set[int], marker_pointers: set[int],
                       action_uids: set[int] | None = None) -> int:
    """Remove objects and markers not in the given sets, then purge orphans; returns objects removed.
    With ``action_uids``, the actions not in it lose their fake user first (an import keeps each of
    several actions with one, so the animation list can switch between them)."""
    scene = bpy.context.scene
    added = [o for o in bpy.data.objects if o.session_uid not in object_uids]
    for obj in added:
        bpy.data.objects.remove(obj, do_unlink=True)
    for action in bpy.data.actions:
        if action_uids is not None and action.session_uid not in action_uids:
            action.use_fake_user = False
    for marker in [m for m in scene.timeline_markers if m.as_pointer() not in marker_pointers]:
        scene.timeline_markers.remove(marker)
    purge_orphans(bpy)
    return len(added)


def _scene_timing(bpy) -> tuple:
    scene = bpy.context.scene
    return scene.frame_start, scene.frame_end, scene.render.fps, scene.render.fps_base


def _count_diff(before: dict[str, int], after: dict[str, int]) -> str:
    return ", ".join(f"{k} {before.get(k, 0)} -> {after.get(k, 0)}"
                     for k in sorted(set(before) | set(after)) if before.get(k, 0) != after.get(k, 0))


def import_outcome(bpy, operator, path: Path) -> tuple[str, str]:
    """Import ``path`` through ``operator`` and judge it: ``(outcome, detail)``.

    outcome is ``finished`` (and deleting what it made and purging orphans restores every
    ``bpy.data`` count), ``error`` (an ERROR report, with ``bpy.data``, markers and scene timing as
    before), or a failure: ``crash`` (a Python traceback, an "internal error" report or an
    unexpected return value), ``leak``
    (a failed import left data or changed the scene) or ``orphans`` (data left after deleting a
    finished import's objects).
    """
    scene = bpy.context.scene
    before = data_counts(bpy)
    timing = _scene_timing(bpy)
    objects = {o.session_uid for o in bpy.data.objects}
    actions = {a.session_uid for a in bpy.data.actions}
    markers = {m.as_pointer() for m in scene.timeline_markers}
    try:
        result = operator(filepath=str(path))
    except RuntimeError as exc:
        text = str(exc)
        if "Traceback" in text or "internal error" in text:
            return "crash", text
        after = data_counts(bpy)
        if after != before:
            return "leak", f"{_count_diff(before, after)} after: {text}"
        if _scene_timing(bpy) != timing:
            return "leak", f"scene timing {timing} -> {_scene_timing(bpy)} after: {text}"
        return "error", text
    if result != {"FINISHED"}:
        return "crash", f"the operator returned {result} without an error report"
    created = remove_new_objects(bpy, objects, markers, actions)
    after = data_counts(bpy)
    if after != before:
        return "orphans", f"{_count_diff(before, after)} after removing {created} object(s)"
    return "finished", f"{created} object(s)"


def rss_bytes() -> int:
    """Resident set size of this process (Linux ``/proc/self/statm``)."""
    import os
    with open("/proc/self/statm", encoding="ascii") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
