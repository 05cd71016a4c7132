"""The one "collect objects, build, write, report" path every export operator goes through."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import bpy

from ..formats.errors import FormatError
from .atomic_write import atomic_write
from .export_error import ExportError

class Info(str):
    """An exporter message reported as information (what was written), not as a warning."""


Exporter = Callable[[bpy.types.Context, Path, list[bpy.types.Object], Any], list[str]]


def export_objects(operator: bpy.types.Operator, context: bpy.types.Context) -> list[bpy.types.Object]:
    """The collection's objects (collection exporter), else the selected ones."""
    name = getattr(operator, "collection", "")
    if name:
        collection = bpy.data.collections.get(name)
        return list(collection.all_objects) if collection is not None else []
    if getattr(operator, "use_selection", True):
        return [o for o in context.selected_objects]
    return [o for o in context.view_layer.objects if o.visible_get()]


def export_file(operator: bpy.types.Operator, context: bpy.types.Context, exporter: Exporter,
                options: Any) -> set[str]:
    """Run ``exporter`` with progress; report its warnings, or the reason nothing was written."""
    path = Path(bpy.path.abspath(operator.filepath))
    objects = export_objects(operator, context)
    for obj in objects:
        if obj.mode == "EDIT":
            obj.update_from_editmode()
    wm = context.window_manager
    wm.progress_begin(0, 1)
    try:
        warnings = exporter(context, path, objects, options)
    except (ExportError, FormatError) as exc:
        operator.report({"ERROR"}, f"{path.name}: {exc}")
        return {"CANCELLED"}
    except OSError as exc:
        operator.report({"ERROR"}, f"{path}: could not write: {exc.strerror or exc}; the old file is untouched")
        return {"CANCELLED"}
    finally:
        wm.progress_end()
    for warning in warnings:
        operator.report({"INFO"} if isinstance(warning, Info) else {"WARNING"}, warning)
    operator.report({"INFO"}, f"Exported {path}")
    return {"FINISHED"}


@dataclass(frozen=True)
class ModelWriter:
    """An exporter made of a format's builder, serializer and parser: build the model from the
    objects, serialize it, and write it atomically, parsing the written bytes before the rename."""
    build: Callable[..., Any]          # (context, objects, options, progress) -> result with .model, .warnings
    serialize: Callable[[Any], bytes]
    parse: Callable[[bytes], Any]

    def __call__(self, context: bpy.types.Context, path: Path, objects: list[bpy.types.Object],
                 options: Any) -> list[str]:
        wm = context.window_manager
        result = self.build(context, objects, options, progress=lambda f: wm.progress_update(f * 0.9))
        atomic_write(path, self.serialize(result.model), verify=self.parse)
        return result.warnings + [Info(line) for line in getattr(result, "info", [])]
