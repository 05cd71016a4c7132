"""The MD3 exporter: build the model and write it atomically (:func:`...formats.atomic_file.atomic_write`),
reading the written bytes back before the rename; a refused model leaves no file.

New shaders are named under the folder the export path implies (``<game>/models/box/box.md3`` ->
``models/box/<image>.tga``) or *Skin Path*; the header of a new model holds its game path
(``models/box/box.md3``), as Quake III's own files do.
"""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import bpy

from ...formats.atomic_file import atomic_write
from ...formats.md3.codec import read_md3, write_md3
from ..game_path import skin_folder
from ..run_export import ExportReport
from .build import Md3ExportOptions, build_md3


def export_md3(context: bpy.types.Context, path: Path, objects: list[bpy.types.Object],
               options: Md3ExportOptions) -> ExportReport:
    folder = skin_folder(path, options.skin_path)
    options = replace(options, skin_folder=folder,
                      model_name=options.model_name or (f"{folder}/{path.name}" if folder else path.name))
    wm = context.window_manager
    result = build_md3(context, objects, options, progress=lambda f: wm.progress_update(f * 0.9))
    atomic_write(path, write_md3(result.model), verify=read_md3)
    return ExportReport(result.warnings, info=result.info)
