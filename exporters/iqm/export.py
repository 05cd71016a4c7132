"""The IQM export: the objects to a file.

- The model: the one armature among the exported objects or deforming their meshes (an Armature
  modifier's object, else an armature parent), and the exported mesh objects, an imported file's in its
  mesh order (``IQM_MESH_INDEX``); meshes without an armature are a static model.
- An untouched import (:mod:`.write_back`: the whole model as the import built it, every anim chosen
  in the file's order, *Scale* 1, *Vertex Colours* on) is written back byte for byte, with the
  ``.iqm.framegroups`` the import read.
- Anything else is built from Blender (:func:`.build.build_iqm`) with the anims of :mod:`.anim_list`,
  handed the stored model decoded where the objects are an import's (what the build keeps of it:
  :mod:`.imported_parts`), and written by ``formats/iqm/write.py``. An import's frame groups, still as
  imported, are written in the file's own anims (:mod:`.kept_layout`); groups that no longer match fall
  back to one anim per action, and the report says so.
- *Frame Groups File*: ``<file>.iqm.framegroups`` beside it, the written anims one a line
  (:func:`.build.framegroups_text`), so DarkPlaces names and plays them; in the file's own anims, the
  ``.iqm.framegroups`` the import read, unchanged.

Every file is written atomically (``formats/atomic_file.py``), the model first.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import bpy

from ...common.iqm.contract import IQM_MESH_INDEX
from ...common.stored_records import stored_int
from ...formats.atomic_file import atomic_write
from ...formats.errors import FormatError
from ...formats.iqm.codec import read_iqm
from ...formats.iqm.framegroups import SUFFIX
from ...formats.iqm.write import write_iqm
from ...formats.message_text import quoted
from ..armature_rig import deforming_armature
from ..export_error import ExportError
from ..run_export import ExportReport
from .anim_list import armature_actions, export_anims, scene_rate
from .build import IqmExportOptions, build_iqm, framegroups_text
from .kept_layout import fallback_note, group_layout
from .write_back import find_root, kept_model, untouched


@dataclass
class IqmFileOptions:
    """The dialog's options: the build's, the action list's ``(name, ticked)`` pairs, the framegroups file."""
    build: IqmExportOptions
    listed: list[tuple[str, bool]] | None = None
    framegroups: bool = False


def model_parts(objects: list[bpy.types.Object]) -> tuple[bpy.types.Object | None, list[bpy.types.Object]]:
    """(the armature or None, the mesh objects in export order) of ``objects``; several armatures are refused."""
    meshes = sorted((o for o in objects if o.type == "MESH"),
                    key=lambda o: (stored_int(o, IQM_MESH_INDEX, 1 << 30), o.name))
    found = [o for o in objects if o.type == "ARMATURE"] + [deforming_armature(m) for m in meshes]
    armatures = list({a.as_pointer(): a for a in found if a is not None}.values())
    if len(armatures) > 1:
        names = ", ".join(quoted(a.name) for a in sorted(armatures, key=lambda a: a.name))
        raise ExportError(f"the objects belong to {len(armatures)} armatures ({names}): an IQM model has one "
                          "skeleton; export each armature with its meshes on its own")
    return (armatures[0] if armatures else None), meshes


def _count(count: int, one: str, many: str = "") -> str:
    return f"{count} {one if count == 1 else many or one + 's'}"


def _write_groups(path: Path, text: bytes, why: str) -> str:
    groups = path.with_name(path.name + SUFFIX)
    try:
        atomic_write(groups, text)
    except OSError as exc:
        raise ExportError(f"{path.name} was written, but {groups} could not be written: "
                          f"{exc.strerror or exc}") from exc
    return f"wrote {groups} ({why})"


def export_iqm(context: bpy.types.Context, path: Path, objects: list[bpy.types.Object],
               options: IqmFileOptions | None = None) -> ExportReport:
    """Write ``objects`` as ``path`` (module docstring)."""
    options = options or IqmFileOptions(IqmExportOptions())
    if not objects:
        raise ExportError("nothing to export: select the model's armature or meshes")
    armature, meshes = model_parts(objects)
    root = find_root(objects)
    kept = kept_model(root)
    anims = export_anims(context, armature, options.listed, kept)
    every = armature_actions(armature) if armature is not None else []
    plain = options.build.scale == 1.0 and options.build.colours
    same = untouched(root, objects) if plain and [a[0] for a in anims] == every else None
    if same is not None:
        atomic_write(path, same.data)
        report = ExportReport(info=[f"{path.name}: the imported file, untouched, written back byte for byte"])
        if same.framegroups is not None:
            report.written.append(_write_groups(path, same.framegroups, "the frame groups the import read"))
        elif options.framegroups:
            report.written.append(_write_groups(path, framegroups_text(read_iqm(same.data)).encode("utf-8"),
                                                "the file's anims"))
        return report
    layout = group_layout(root, kept, anims, scene_rate(context.scene))
    model = build_iqm(context, armature, meshes, anims, kept=kept, options=options.build, layout=layout)
    kept_groups = layout is not None and model.num_frames == kept.num_frames and \
        model.anims.tobytes() == kept.anims.tobytes()
    try:
        data = write_iqm(model)
    except FormatError as exc:
        raise ExportError(f"cannot write IQM: {exc}") from exc
    atomic_write(path, data)
    report = ExportReport(warnings=list(model.warnings))
    if not kept_groups and (note := fallback_note(root, kept, layout)):
        report.warnings.append(note)
    report.info.append(f"{_count(len(model.joints), 'joint')}, {_count(len(model.meshes), 'mesh', 'meshes')} "
                       f"({_count(model.num_vertexes, 'vertex', 'vertices')}), {_count(len(model.anims), 'anim')} "
                       f"({_count(model.num_frames, 'frame')})")
    if options.framegroups and kept_groups:
        report.written.append(_write_groups(path, layout.data, "the frame groups the import read"))
    elif options.framegroups:
        report.written.append(_write_groups(path, framegroups_text(model).encode("utf-8"), "the anims, one a line"))
    return report
