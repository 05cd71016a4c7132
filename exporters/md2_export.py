"""Write an MD2 file from Blender objects: build the model, serialize, verify, rename into place."""
from __future__ import annotations

from pathlib import Path

import bpy

from ..formats.md2 import parse_md2, serialize_md2
from .atomic_write import atomic_write
from .md2_build import Md2ExportOptions, build_md2


def export_md2(context: bpy.types.Context, path: Path, objects: list[bpy.types.Object],
               options: Md2ExportOptions) -> list[str]:
    wm = context.window_manager
    result = build_md2(context, objects, options, progress=lambda f: wm.progress_update(f * 0.9))
    atomic_write(path, serialize_md2(result.model), verify=parse_md2)
    return result.warnings
