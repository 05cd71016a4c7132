"""The MDL exporter: build the model (its skins are inside it) and write it atomically
(:func:`...formats.atomic_file.atomic_write`), parsing the written bytes before the rename."""
from __future__ import annotations

from pathlib import Path

import bpy

from ...formats.mdl.codec import parse_mdl, serialize_mdl
from ...formats.atomic_file import atomic_write
from ..md3_dropped import md3_dropped
from ..run_export import ExportReport
from .build import MdlExportOptions, build_mdl


def export_mdl(context: bpy.types.Context, path: Path, objects: list[bpy.types.Object],
               options: MdlExportOptions) -> ExportReport:
    wm = context.window_manager
    result = build_mdl(context, objects, options, progress=lambda f: wm.progress_update(f * 0.9))
    atomic_write(path, serialize_mdl(result.model), verify=parse_mdl)
    return ExportReport(result.warnings + md3_dropped(objects, "MDL"), info=result.info)
