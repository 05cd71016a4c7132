"""The MS3D exporter: build the model, plan its texture files, write the model, then the textures.

Every texture file is planned (and encoded) before anything is written, so a refused image leaves
the disk as it was; the model and each texture file are written atomically
(:func:`...formats.atomic_file.atomic_write`). *Textures* 'NAMES' writes the model alone.
"""
from __future__ import annotations

from pathlib import Path

import bpy

from ...formats.atomic_file import atomic_write
from ...formats.ms3d.codec import parse_ms3d
from ...formats.ms3d.write import serialize_ms3d
from ..image_files import write_skin_files
from ..run_export import ExportReport
from .build import Ms3dExportOptions, build_ms3d
from .textures import plan_texture_files


def export_ms3d(context: bpy.types.Context, path: Path, objects: list[bpy.types.Object],
                options: Ms3dExportOptions) -> ExportReport:
    wm = context.window_manager
    result = build_ms3d(context, objects, options, progress=lambda f: wm.progress_update(f * 0.8))
    files, warnings = ([], []) if options.textures != "COPY" else plan_texture_files(
        path, result.materials, result.model.materials)
    atomic_write(path, serialize_ms3d(result.model), verify=parse_ms3d)
    return ExportReport(result.warnings + warnings, write_skin_files(files, "texture"), info=result.info)
