"""The MDL exporter: build the model (its skins are inside it) and write it atomically
(:func:`...formats.atomic_file.atomic_write`), parsing the written bytes before the rename. With
*Enhanced Model* its MD5 twin (:func:`..md5.twin.quake_twin`) is encoded before anything is written and
written after the MDL."""
from __future__ import annotations

from pathlib import Path

import bpy

from ...formats.mdl.codec import parse_mdl, serialize_mdl
from ...formats.atomic_file import atomic_write
from ..image_files import write_skin_files
from ..md5.twin import check_rigged, quake_twin
from ..run_export import ExportReport
from .build import MdlExportOptions, build_mdl


def export_mdl(context: bpy.types.Context, path: Path, objects: list[bpy.types.Object],
               options: MdlExportOptions) -> ExportReport:
    wm = context.window_manager
    if options.enhanced:
        check_rigged(objects)
    result = build_mdl(context, objects, options, progress=lambda f: wm.progress_update(f * 0.9))
    data = serialize_mdl(result.model)
    twin = quake_twin(context, path, objects, options, result) if options.enhanced else None
    atomic_write(path, data, verify=parse_mdl)
    if twin is None:
        return ExportReport(result.warnings, info=result.info)
    return ExportReport(result.warnings + twin.warnings, write_skin_files(twin.files, "file"), result.info + twin.info)
