"""The one "collect objects, build, write, report" path every export operator goes through."""
from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import bpy

from ..common.contract import ARCHIVE_MEMBER, ARCHIVE_PATH, SOURCE_FILE
from ..common.disk_names import blender_safe, readable_report, readable_text, stored_path
from ..formats.errors import FormatError
from ..formats.report_lines import describe_bug, report_folded
from .export_error import ExportError
from .game_path import game_folder_target, make_folders, remove_empty
from .object_mode import in_object_mode


@dataclass
class ExportReport:
    """What an exporter hands back when it has more to say than warnings: ``written`` lists the
    other files it wrote (skins, textures), ``info`` notes such as the grid an MD2 export chose."""
    warnings: list[str] = field(default_factory=list)
    written: list[str] = field(default_factory=list)
    info: list[str] = field(default_factory=list)
    main: Path | None = None        # the file written in place of the chosen one (an MD5 anim alone: x.md5anim)


Exporter = Callable[[bpy.types.Context, Path, list[bpy.types.Object], Any], "list[str] | ExportReport"]


def export_objects(operator: bpy.types.Operator, context: bpy.types.Context) -> list[bpy.types.Object]:
    """The collection's objects (collection exporter), else the selected ones."""
    name = getattr(operator, "collection", "")
    if name:
        collection = bpy.data.collections.get(name)
        return list(collection.all_objects) if collection is not None else []
    if getattr(operator, "use_selection", True):
        return [o for o in context.selected_objects]
    return [o for o in context.view_layer.objects if o.visible_get()]


def _recorded_on(context: bpy.types.Context, objects: list[bpy.types.Object]):
    """The objects whose import records to read, in order: the active object (if exported, or if nothing
    is), then the exported ones, each followed by its parents."""
    active = context.view_layer.objects.active
    first = [active] if active is not None and (active in objects or not objects) else []
    for obj in first + objects:
        while obj is not None:
            yield obj
            obj = obj.parent


def archive_source(context: bpy.types.Context, objects: list[bpy.types.Object]) -> tuple[str, str] | None:
    """(archive, member) the exported objects were imported from: the active object's (or a parent's)
    if it is exported, else the first exported object's that has one."""
    for obj in _recorded_on(context, objects):
        if obj.get(ARCHIVE_PATH) and obj.get(ARCHIVE_MEMBER):
            return str(obj[ARCHIVE_PATH]), str(obj[ARCHIVE_MEMBER])
    return None


def loose_source(context: bpy.types.Context, objects: list[bpy.types.Object]) -> str | None:
    """The loose file the exported objects were imported from, as :func:`archive_source` chooses; None
    when none was, or when its name is not one Blender's file browser can hold (see disk_names)."""
    for obj in _recorded_on(context, objects):
        if obj.get(SOURCE_FILE):
            path = stored_path(obj[SOURCE_FILE])
            return path if blender_safe(path) else None
    return None


def unsaved_relative(operator: bpy.types.Operator) -> bool:
    """True for a path relative to a .blend file that is not saved: ``//...``, or a Collection Exporter's
    path, which Blender hands over with ``//`` stripped (``Collection.md2``); it would land in whatever
    folder Blender was started from."""
    if bpy.data.filepath:
        return False
    return operator.filepath.startswith("//") or bool(getattr(operator, "collection", "")
                                                      and not os.path.isabs(operator.filepath))


def export_file(operator: bpy.types.Operator, context: bpy.types.Context, exporter: Exporter,
                options: Any) -> set[str]:
    """Run ``exporter`` with progress; report its warnings, or the reason nothing was written."""
    if unsaved_relative(operator):
        operator.report({"ERROR"}, f"{operator.filepath}: a path relative to the .blend file, which is not saved "
                                   f"yet, would land in Blender's working folder {os.getcwd()}; save the .blend "
                                   "file or give the exporter a full path")
        return {"CANCELLED"}
    path = Path(os.path.abspath(bpy.path.abspath(operator.filepath)))
    wm = context.window_manager
    wm.progress_begin(0, 1)
    created: list[Path] = []
    existed = False
    try:
        path = game_folder_target(path, getattr(operator, "game_folder_path", ""))
        existed = path.exists()
        created = make_folders(path.parent)
        with in_object_mode(context):      # what Blender shows, unsaved Edit Mode changes included
            report = exporter(context, path, export_objects(operator, context), options)
    except (ExportError, FormatError) as exc:
        remove_empty(created)
        operator.report({"ERROR"}, f"{path.name}: {exc}")
        return {"CANCELLED"}
    except OSError as exc:
        remove_empty(created)
        kept = "; the old file is untouched" if existed else ""
        operator.report({"ERROR"}, f"{path}: could not write: {exc.strerror or exc}{kept}")
        return {"CANCELLED"}
    except MemoryError:
        remove_empty(created)
        operator.report({"ERROR"}, f"{path.name}: not enough memory to export")
        return {"CANCELLED"}
    except Exception as exc:  # a bug rather than bad data: nothing written (files are written whole, last), reported
        remove_empty(created)
        operator.report({"ERROR"}, f"{path.name}: internal error, please report it: {describe_bug(exc)}")
        return {"CANCELLED"}
    finally:
        wm.progress_end()
    if not isinstance(report, ExportReport):
        report = ExportReport(report)
    # one line per kind; the full list in the Info editor; names that are not UTF-8 as a person reads them
    report_folded(readable_report(operator.report), report.warnings)
    for line in dict.fromkeys(report.info + report.written):     # a line several models give, once
        operator.report({"INFO"}, readable_text(line))
    operator.report({"INFO"}, f"Exported {report.main or path}")
    return {"FINISHED"}

