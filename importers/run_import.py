"""The one "read, build, report" loop every import operator and drop handler goes through."""
from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import bpy

from ..common.disk_names import readable_report, readable_text
from ..formats.errors import FormatError
from ..formats.report_lines import describe_bug, report_folded
from .results import ImportResult
from .transaction import datablock_transaction

Importer = Callable[[bpy.types.Context, Path, Any], ImportResult]   # also takes a file_source.ModelSource


def operator_paths(operator: bpy.types.Operator) -> list[Path]:
    """The files an import operator was given: ``files`` in ``directory``, else ``filepath``."""
    directory = Path(operator.directory) if getattr(operator, "directory", "") else None
    names = [f.name for f in getattr(operator, "files", []) if f.name]
    if directory is not None and names:
        return [directory / name for name in names]
    return [Path(operator.filepath)]


def import_files(operator: bpy.types.Operator, context: bpy.types.Context, paths: list[Path],
                 importer: Importer, options: Any) -> set[str]:
    """Import each path with progress; report warnings and per-file errors through ``operator``."""
    return import_jobs(operator, context, [(path, importer, options) for path in paths])


def import_jobs(operator: bpy.types.Operator, context: bpy.types.Context,
                jobs: list[tuple[Any, Importer, Any]]) -> set[str]:
    """Run each (file or model source, importer, options) with progress, each all or nothing; report
    warnings (folded: one line per kind, :func:`..formats.report_lines.report_folded`) and per-file
    errors through ``operator`` and go on with the next file after an error."""
    wm = context.window_manager
    imported: list[bpy.types.Object] = []
    files = 0
    errors: list[str] = []
    warnings: list[str] = []
    wm.progress_begin(0, max(len(jobs), 1))
    try:
        for done, (source, importer, options) in enumerate(jobs, 1):
            path = getattr(source, "where", source)
            try:
                with datablock_transaction(context.scene):
                    result = importer(context, source, options)
            except FormatError as exc:
                errors.append(str(exc) if exc.filename else f"{path}: {exc}")
            except OSError as exc:
                errors.append(f"{path}: cannot read: {exc.strerror or exc}")
            except MemoryError:
                errors.append(f"{path}: not enough memory to import")
            except Exception as exc:  # a bug rather than a bad file: undone all the same, reported, next file
                errors.append(f"{path}: internal error, please report it: {describe_bug(exc)}")
            else:
                imported.extend(result.objects)
                files += result.files
                for info in result.infos:
                    operator.report({"INFO"}, readable_text(info))
                warnings += result.warnings
            wm.progress_update(done)
    finally:
        wm.progress_end()
    # one line per kind, the full list in the Info editor; names that are not UTF-8 as a person reads them
    report_folded(readable_report(operator.report), warnings)
    if imported:
        for obj in context.view_layer.objects:
            obj.select_set(False)
        for obj in imported:
            obj.select_set(True)
        context.view_layer.objects.active = imported[-1]
        made = {o for obj in imported for o in (obj, *obj.children_recursive)}      # a model root's parts too
        operator.report({"INFO"}, f"Imported {len(made)} object(s) from {files} file(s)")
    for error in errors:
        operator.report({"ERROR"}, readable_text(error))
    return {"FINISHED"} if imported else {"CANCELLED"}
