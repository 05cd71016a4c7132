"""File menu entries and FileHandlers (drag and drop, collection exporters), one per format."""
from __future__ import annotations

from dataclasses import dataclass

import bpy
from bpy_extras.io_utils import poll_file_object_drop


@dataclass(frozen=True)
class FormatEntry:
    key: str
    label: str
    extension: str


FORMATS = (FormatEntry("md2", "Quake II Model", ".md2"), FormatEntry("mdl", "Quake Model", ".mdl"),
           FormatEntry("ms3d", "MilkShape 3D", ".ms3d"),)


def _menu_import(self, context):
    for entry in FORMATS:
        self.layout.operator(f"import_scene.{entry.key}", text=f"{entry.label} ({entry.extension})")
    self.layout.operator("import_scene.game_archive", text="Game Archive (.pak, .pk3)")


def _menu_export(self, context):
    for entry in FORMATS:
        self.layout.operator(f"export_scene.{entry.key}", text=f"{entry.label} ({entry.extension})")


def _file_handler(entry: FormatEntry) -> type:
    return type(f"IO_FH_classic_models_{entry.key}", (bpy.types.FileHandler,), {
        "bl_idname": f"IO_FH_classic_models_{entry.key}",
        "bl_label": entry.label,
        "bl_import_operator": f"import_scene.{entry.key}",
        "bl_export_operator": f"export_scene.{entry.key}",
        "bl_file_extensions": entry.extension,
        "poll_drop": classmethod(lambda cls, context: poll_file_object_drop(context)),
    })


class IO_FH_classic_models_archive(bpy.types.FileHandler):
    """Dropping a .pak or .pk3 opens the archive's model list (import only)."""
    bl_idname = "IO_FH_classic_models_archive"
    bl_label = "Game Archive"
    bl_import_operator = "import_scene.game_archive"
    bl_file_extensions = ".pak;.pk3"

    @classmethod
    def poll_drop(cls, context):
        return poll_file_object_drop(context)


FILE_HANDLERS = (*(_file_handler(entry) for entry in FORMATS), IO_FH_classic_models_archive)


def register() -> None:
    for cls in FILE_HANDLERS:
        bpy.utils.register_class(cls)
    bpy.types.TOPBAR_MT_file_import.append(_menu_import)
    bpy.types.TOPBAR_MT_file_export.append(_menu_export)


def unregister() -> None:
    bpy.types.TOPBAR_MT_file_export.remove(_menu_export)
    bpy.types.TOPBAR_MT_file_import.remove(_menu_import)
    for cls in reversed(FILE_HANDLERS):
        bpy.utils.unregister_class(cls)
