"""The MDL exporter: build the model (its skins are inside it) and write it atomically
(:func:`...formats.atomic_file.atomic_write`), parsing the written bytes before the rename. With
*Enhanced Model* its MD5 twin (``options.enhanced``: :func:`..md5.twin.quake_twin`) is encoded before anything is written and
written after the MDL."""
from __future__ import annotations

from pathlib import Path

import bpy

from ...formats.atomic_file import atomic_write
from ...formats.mdl.codec import parse_mdl, serialize_mdl
from ..image_files import write_skin_files
from ..md3_left_out import md3_left_out
from ..run_export import ExportReport
from .build import MdlExportOptions, build_mdl


def export_mdl(context: bpy.types.Context, path: Path, objects: list[bpy.types.Object],
               options: MdlExportOptions) -> ExportReport:
    wm = context.window_manager
    twin_writer = options.enhanced       # Enhanced Model: ..md5.twin.ENHANCED, handed in by the operator
    if twin_writer is not None:
        twin_writer.check(objects)
    result = build_mdl(context, objects, options, progress=lambda f: wm.progress_update(f * 0.9))
    data = serialize_mdl(result.model)
    twin = twin_writer.quake(context, path, objects, options, result) if twin_writer is not None else None
    atomic_write(path, data, verify=parse_mdl)
    warnings = result.warnings + md3_left_out(objects, "MDL")
    if twin is None:
        return ExportReport(warnings, info=result.info)
    return ExportReport(warnings + twin.warnings, write_skin_files(twin.files, "file"), result.info + twin.info)
