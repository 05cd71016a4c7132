"""The MD2 exporter: build the model, plan its skin files, write the model, then the skins.

Every skin file is encoded before anything is written, so a refused skin leaves the disk as it
was (with *Enhanced Model*, the MD5 twin under ``md5/`` too, :func:`..md5.twin.quake2_twin`); the model
and each skin file are written atomically (:func:`...formats.atomic_file.atomic_write`).
A model exported alone into a player folder (``players/jetfire2/weapon.md2``) takes its skins into
that folder as the *Quake II Player* export does (:func:`.player_skins.into_player_folder`): Quake II
reads a weapon's skin from the name its MD2 stores, so the name must follow the new folder.
"""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import bpy

from ...formats.atomic_file import atomic_write
from ...formats.md2.codec import parse_md2, serialize_md2
from ...formats.md2.skin_fill import corner_fill_note
from ..image_files import pcx_skins, write_skin_files
from ..md3_left_out import md3_left_out
from ..run_export import ExportReport
from .build import Md2ExportOptions, build_md2
from .player_skins import into_player_folder
from .skins import plan_skin_files, replace_unusable_skins, skin_folder

PLAYER_FOLDERS = "players/"


def export_md2(context: bpy.types.Context, path: Path, objects: list[bpy.types.Object],
               options: Md2ExportOptions) -> ExportReport:
    options = replace(options, skin_folder=skin_folder(path, options.skin_path), model_stem=path.stem)
    wm = context.window_manager
    twin_writer = options.enhanced       # Enhanced Model: ..md5.twin.ENHANCED, handed in by the operator
    if twin_writer is not None:
        twin_writer.check(objects)
    result = build_md2(context, objects, options, progress=lambda f: wm.progress_update(f * 0.8))
    renamed = replace_unusable_skins(result.model, result.skin_images, options.skin_folder)
    moved = []
    if options.skin_folder.lower().startswith(PLAYER_FOLDERS):   # one model of a player (a weapon) alone
        moved = into_player_folder({path.name: result}, options.skin_folder, path.parent)
    files, warnings = plan_skin_files(path, result.model.skins, result.skin_images, options.skins, options.dither)
    warnings += corner_fill_note(result.model, pcx_skins(files))
    twin = twin_writer.quake2(context, path, objects, options, result, files) if twin_writer is not None else None
    atomic_write(path, serialize_md2(result.model), verify=parse_md2)
    written = write_skin_files(files)
    warnings = result.warnings + renamed + warnings + md3_left_out(objects, "MD2")
    if twin is None:
        return ExportReport(warnings, written, result.info + moved)
    return ExportReport(warnings + twin.warnings, written + write_skin_files(twin.files, "file"),
                        result.info + moved + twin.info)
