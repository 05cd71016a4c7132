"""File menu entries and FileHandlers (drag and drop, collection exporters), one per row of the table of
formats (``formats/table.py``), built when the extension registers."""
from __future__ import annotations

import bpy

from bpy_extras.io_utils import poll_file_object_drop

from ..formats import table


def _menu_import(self, context):
    for row in table.importable():
        self.layout.operator(row.import_operator, text=row.menu_text)
    self.layout.operator(table.ARCHIVE_OPERATOR, text=table.ARCHIVE_MENU_TEXT)


def _menu_export(self, context):
    for row in table.exportable():
        self.layout.operator(row.export_operator, text=row.menu_text)


_made_handlers: dict[str, tuple[table.FormatRow, type]] = {}


def _file_handler(row: table.FormatRow) -> type:
    """The row's FileHandler class, made once per row: registering the extension again (reloading it, a
    row added) reuses it, so Blender's ``FileHandler.__subclasses__()`` never holds two for one format."""
    made = _made_handlers.get(row.key)
    if made is not None and made[0] == row:
        return made[1]
    handler = type(f"IO_FH_classic_models_{row.key}", (bpy.types.FileHandler,), {
        "bl_idname": f"IO_FH_classic_models_{row.key}",
        "bl_label": row.menu_label,
        "bl_import_operator": row.import_operator if row.importer else "",
        "bl_export_operator": row.export_operator if row.exporter else "",
        "bl_file_extensions": ";".join(row.extensions),
        "poll_drop": classmethod(lambda cls, context: poll_file_object_drop(context)),
    })
    _made_handlers[row.key] = (row, handler)
    return handler


class IO_FH_classic_models_archive(bpy.types.FileHandler):
    """Dropping a .pak or .pk3 opens the archive's model list (import only)."""
    bl_idname = "IO_FH_classic_models_archive"
    bl_label = "Game Archive"
    bl_import_operator = table.ARCHIVE_OPERATOR
    bl_file_extensions = ";".join(table.archive_extensions())

    @classmethod
    def poll_drop(cls, context):
        return poll_file_object_drop(context)


def file_handlers() -> tuple[type, ...]:
    """A FileHandler per row of the table that imports or exports (an export-only row's serves Collection
    Exporters), then the archives'."""
    rows = [row for row in table.FORMATS if row.importer or row.exporter]
    return (*(_file_handler(row) for row in rows), IO_FH_classic_models_archive)


_registered: tuple[type, ...] = ()


def register() -> None:
    global _registered
    _registered = file_handlers()
    for cls in _registered:
        bpy.utils.register_class(cls)
    bpy.types.TOPBAR_MT_file_import.append(_menu_import)
    bpy.types.TOPBAR_MT_file_export.append(_menu_export)


def unregister() -> None:
    bpy.types.TOPBAR_MT_file_export.remove(_menu_export)
    bpy.types.TOPBAR_MT_file_import.remove(_menu_import)
    for cls in reversed(_registered):
        bpy.utils.unregister_class(cls)
