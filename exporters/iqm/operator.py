"""File > Export > Inter-Quake Model (.iqm): an untouched import written back byte for byte
(:mod:`.write_back`), anything else built from Blender by :mod:`.build` (``build_iqm``) and written by
``formats/iqm/write.py``; every file written atomically (``formats/atomic_file.py``)."""
from __future__ import annotations

from pathlib import Path

import bpy
from bpy.props import StringProperty

from ...common.dialog_layout import applies_when, group, in_file_browser, start
from ...formats.atomic_file import atomic_write
from ...formats.errors import FormatError
from ...formats.iqm.framegroups import SUFFIX
from ...formats.iqm.write import write_iqm
from ..export_error import ExportError
from ..operators import ExportOperatorBase
from ..run_export import ExportReport, export_file
from .write_back import find_root, kept_model, untouched


def export_iqm(context: bpy.types.Context, path: Path, objects: list[bpy.types.Object], options=None) -> ExportReport:
    """Write ``objects`` as ``path``: the import's own files while they are untouched, else the model
    ``build_iqm(context, objects, kept=...)`` builds (the stored model decoded, or None)."""
    if not objects:
        raise ExportError("nothing to export: select the model's armature or meshes")
    root = find_root(objects)
    same = untouched(root, objects)
    if same is not None:
        atomic_write(path, same.data)
        report = ExportReport(info=[f"{path.name}: the imported file, untouched, written back byte for byte"])
        if same.framegroups is not None:
            groups = path.with_name(path.name + SUFFIX)
            atomic_write(groups, same.framegroups)
            report.written.append(f"wrote {groups} (the frame groups the import read)")
        return report
    from .build import build_iqm
    model = build_iqm(context, objects, kept=kept_model(root))
    try:
        data = write_iqm(model)
    except FormatError as exc:
        raise ExportError(f"cannot write IQM: {exc}") from exc
    atomic_write(path, data)
    return ExportReport(warnings=list(model.warnings))


def draw_iqm_export(operator, layout, context) -> None:
    """Subfolders above the groups, then Include (Selected Only, Source Collection: the file browser only,
    as the other exports draw them in ``exporters/dialogs.py``)."""
    start(layout)
    layout.prop(operator, "game_folder_path")
    if not in_file_browser(context):
        return
    body = group(layout, "CLASSIC_MODELS_iqm_export_include", "Include")
    if body:
        applies_when(body, not operator.collection).prop(operator, "use_selection")
        body.prop_search(operator, "collection", bpy.data, "collections")


class EXPORT_SCENE_OT_iqm(bpy.types.Operator, ExportOperatorBase):
    """Export an Inter-Quake Model (.iqm): an imported IQM untouched back byte for byte; an armature with its
    meshes and actions otherwise"""
    bl_idname = "export_scene.iqm"
    bl_label = "Export IQM"

    filename_ext = ".iqm"
    filter_glob: StringProperty(default="*.iqm", options={"HIDDEN"})

    def execute(self, context):
        return export_file(self, context, export_iqm, None)

    def draw(self, context):
        draw_iqm_export(self, self.layout, context)


OPERATOR = EXPORT_SCENE_OT_iqm
