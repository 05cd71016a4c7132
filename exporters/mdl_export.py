"""Write an MDL file from Blender objects: build the model, serialize, verify, rename into place."""
from __future__ import annotations

from pathlib import Path

import bpy

from ..formats.mdl import parse_mdl, serialize_mdl
from .atomic_write import atomic_write
from .mdl_build import MdlExportOptions, build_mdl


def export_mdl(context: bpy.types.Context, path: Path, objects: list[bpy.types.Object],
               options: MdlExportOptions) -> list[str]:
    wm = context.window_manager
    result = build_mdl(context, objects, options, progress=lambda f: wm.progress_update(f * 0.9))
    atomic_write(path, serialize_mdl(result.model), verify=parse_mdl)
    return result.warnings
