"""Export from any mode: the objects as Blender shows them, and the user left in their mode.

Mesh data read through the Python API misses what the current mode has not written back yet (an
Edit Mode mesh's unsaved edits; its UV and attribute arrays even read as empty there), so the export
switches to Object Mode first, as Blender's own Python exporters do, and back afterwards: the same
mode on the same objects (multi-object editing included), with the selection and active object
as they were.
"""
from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import bpy

from ..formats.message_text import quoted
from .export_error import ExportError


def _set_mode(context: bpy.types.Context, active: bpy.types.Object, mode: str) -> None:
    with context.temp_override(active_object=active, object=active):
        bpy.ops.object.mode_set(mode=mode)


@contextmanager
def in_object_mode(context: bpy.types.Context) -> Iterator[None]:
    """Object Mode for the ``with`` block; the mode before it (and who was in it) restored on exit."""
    view_layer = context.view_layer
    active = view_layer.objects.active
    mode = active.mode if active is not None else "OBJECT"
    if mode == "OBJECT":
        yield
        return
    in_mode = [o for o in view_layer.objects if o.mode == mode]
    try:
        _set_mode(context, active, "OBJECT")
    except RuntimeError as exc:
        raise ExportError(f"cannot leave {mode.replace('_', ' ').title()} Mode on {quoted(active.name)} to export: "
                          f"{str(exc).strip()}") from exc
    try:
        yield
    finally:
        _restore(context, active, mode, in_mode)


def _restore(context: bpy.types.Context, active: bpy.types.Object, mode: str,
             in_mode: list[bpy.types.Object]) -> None:
    """``mode`` back on the objects that were in it: entering a mode takes every selected object of
    the active one's type along, so the selection is narrowed to them for the switch, then restored."""
    view_layer = context.view_layer
    selected = [o for o in view_layer.objects if o.select_get()]
    try:
        for obj in selected:
            obj.select_set(False)
        for obj in in_mode:
            obj.select_set(True)
        view_layer.objects.active = active
        _set_mode(context, active, mode)
    except RuntimeError:
        pass        # the export is done; staying in Object Mode is the only harm
    finally:
        for obj in view_layer.objects:
            obj.select_set(obj in selected)
        view_layer.objects.active = active
