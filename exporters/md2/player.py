"""MD2 export as a Quake II player: the selected objects into one folder as ``tris.md2`` (the body:
every object not named like a weapon), ``weapon.md2`` (objects named ``weapon*``) and ``w_<name>.md2``
(each object named ``w_*``), all sampled with the same options so their frame lists are identical,
and quantised on one grid per frame (:mod:`.player_grid`) so the points they share coincide.

Actions named after Quake II's animations are sampled in the game's order (``stand``, ``run``,
... ``death3``, any case), the others after them. Skin names pointing outside the player's folder
are moved into it with their files, and the player's other skins are carried over
(:mod:`.player_skins`); every player skin gets its menu icon ``<skin>_i.pcx`` (:mod:`.player_icons`).

Every model, skin and icon is built and checked before any file is written; then each is written
atomically. The Quake II player conventions (:mod:`..formats.md2.player`) come back as warnings,
with what would give a wrong-length animation its expected frame count (:mod:`.player_counts`).
"""
from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import bpy

from ...formats.md2.player import BODY_FILE, WEAPON_FILE, PlayerPart, is_weapon_name, player_deviations
from ...formats.md2.codec import parse_md2, serialize_md2
from ...formats.atomic_file import atomic_write
from ..export_error import ExportError
from .build import Md2ExportOptions, build_md2
from .player_counts import count_hints
from .player_grid import share_player_grid
from .player_icons import plan_icons
from .player_skins import carried_skins, into_player_folder
from .skins import plan_skin_files, replace_unusable_skins, skin_folder, write_skin_files
from ..run_export import ExportReport

PLAYER_BODY_FILE = BODY_FILE
_BLENDER_SUFFIX = re.compile(r"\.\d{3}$")


def player_files(objects: list[bpy.types.Object]) -> dict[str, list[bpy.types.Object]]:
    """File name -> the mesh objects written into it; the body first."""
    files: dict[str, list[bpy.types.Object]] = {BODY_FILE: []}
    for obj in objects:
        if obj.type != "MESH":
            continue
        name = _BLENDER_SUFFIX.sub("", obj.name)
        if not is_weapon_name(name):
            files[BODY_FILE].append(obj)
        elif name.lower().startswith("w_"):
            files.setdefault(f"{name.lower().removesuffix('.md2')}.md2", []).append(obj)
        else:
            files.setdefault(WEAPON_FILE, []).append(obj)
    if not files[BODY_FILE]:
        raise ExportError("a Quake II player needs a body: select a mesh object not named weapon* or w_*")
    return files


def export_md2_player(context: bpy.types.Context, path: Path, objects: list[bpy.types.Object],
                      options: Md2ExportOptions) -> ExportReport:
    """Build every model of the player folder, check their frames agree, then write each model and
    its skins (as :func:`.export.export_md2` does for one model)."""
    folder = path.parent
    # keep_still_frames: the models share one frame list (a still weapon beside a moving body keeps them all)
    options = replace(options, skin_folder=skin_folder(path, options.skin_path), standard_order="PLAYER",
                      keep_still_frames=True)
    wm = context.window_manager
    files = player_files(objects)
    results = {}
    for i, (file_name, members) in enumerate(files.items()):
        results[file_name] = build_md2(context, members, replace(options, model_stem=Path(file_name).stem),
                                       progress=lambda f, i=i: wm.progress_update((i + f) / len(files) * 0.9))
    body = results[BODY_FILE].model
    for file_name, result in results.items():
        model = result.model
        if len(model.frame_names) != len(body.frame_names):
            raise ExportError(f"{file_name} would get {len(model.frame_names)} frames, {BODY_FILE} "
                              f"{len(body.frame_names)}; a weapon needs the same frames as the body")
        if model.frame_names != body.frame_names:      # the body names the frames for every file
            model.frame_names, model.frame_name_raw = list(body.frame_names), None
    grid_note = share_player_grid(results, options.grid)
    warnings = [w for result in results.values() for w in result.warnings]
    warnings += [note for file_name, result in results.items()
                 for note in replace_unusable_skins(result.model, result.skin_images, options.skin_folder, f"{file_name}: ")]
    moved = into_player_folder(results, options.skin_folder, folder)
    skin_files = []
    for file_name, result in results.items():
        planned, notes = plan_skin_files(folder / file_name, result.model.skins, result.skin_images,
                                         options.skins, options.dither)
        skin_files += planned
        warnings += notes
    body_result = results[BODY_FILE]
    player_skins = {name: body_result.skin_images.get(name) for name in body_result.model.skins}
    if options.skin_folder and options.skins != "NAMES":
        carried = carried_skins(files[BODY_FILE], options.skin_folder, list(player_skins))
        planned, notes = plan_skin_files(path, list(carried), carried, options.skins, options.dither)
        skin_files += planned
        warnings += notes
        player_skins.update(carried)
    icon_notes: list[str] = []
    if options.skins == "NAMES" or options.icons == "NONE":
        warnings.append(f"{'Skins: Names Only' if options.skins == 'NAMES' else 'Icons: None'}: no menu icons "
                        "written; Quake II's player menu lists a skin only with its icon <skin>_i.pcx beside it")
    if options.skins != "NAMES":
        icons, icon_notes = plan_icons(path, body_result, [r for n, r in results.items() if n != BODY_FILE],
                                       player_skins, options.icons)
        skin_files += icons
    data = {name: serialize_md2(result.model) for name, result in results.items()}
    for file_name, blob in data.items():
        atomic_write(folder / file_name, blob, verify=parse_md2)
    written = write_skin_files(skin_files)
    parts = {name: PlayerPart(name, list(r.model.frame_names), list(r.model.skins)) for name, r in results.items()}
    deviations = player_deviations(parts[BODY_FILE], [p for n, p in parts.items() if n != BODY_FILE])
    if options.frame_source == "ACTIONS":
        deviations += count_hints(context.scene, list(body.frame_names), options.frame_rate, options.step)
    return ExportReport(warnings + [f"Quake II player: {line}" for line in deviations], written,
                        [note for result in results.values() for note in result.info]
                        + ([grid_note] if grid_note else []) + moved + icon_notes)
