"""The MD3 exporter: build the model, encode its new textures, then write the model and the textures
atomically (:func:`...formats.atomic_file.atomic_write`), the model read back before the rename; a refused
model leaves no file. *Levels of Detail* writes ``x_1.md3``/``x_2.md3`` beside ``x.md3`` from the LOD
roots an import made (:mod:`.lods`).

New shaders are named under the folder the export path implies (``<game>/models/box/box.md3`` ->
``models/box/<image>.tga``) or *Shader Path*; the header of a new model holds its game path
(``models/box/box.md3``), as Quake III's own files do. *Textures: TGA* writes each such image as a TGA
where the game looks the shader up: under the game folder the export path lies in, else beside the
model (an image already there, read from that file and unchanged, is left as it is).
"""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import bpy

from ...common.skin_images import unchanged_source_file
from ...formats.atomic_file import atomic_write
from ...formats.images.truecolour import encode_tga
from ...formats.md3.codec import read_md3, write_md3
from ..game_path import game_location, skin_folder
from ..image_files import image_rgba
from ..run_export import ExportReport
from .build import Md3ExportOptions, build_md3
from .lods import build_lods, left_out_lods
from .objects import collect


def texture_files(path: Path, images: dict[str, bpy.types.Image]) -> tuple[dict[Path, bytes], list[str]]:
    """Where each new shader's TGA goes and its bytes (an image read from that very file and unchanged:
    none), and a note for each one whose place lies outside the export's folder (not written there)."""
    game = game_location(path)[0]
    folder = path.parent.resolve()
    out, notes = {}, []
    for shader, image in images.items():
        target = game / shader if game is not None else path.parent / Path(shader).name
        if not target.resolve().is_relative_to(folder):
            notes.append(f"texture for shader {shader} not written: the game looks for it outside the export's "
                         f"folder ({target.parent})")
            continue
        source = unchanged_source_file(image)
        if source is not None and source.resolve() == target.resolve():
            continue
        out[target] = encode_tga(image_rgba(image), bottom_up=True)
    return out, notes


def export_md3(context: bpy.types.Context, path: Path, objects: list[bpy.types.Object],
               options: Md3ExportOptions) -> ExportReport:
    folder = skin_folder(path, options.skin_path)
    options = replace(options, skin_folder=folder,
                      model_name=options.model_name or (f"{folder}/{path.name}" if folder else path.name))
    wm = context.window_manager
    result = build_md3(context, objects, options, progress=lambda f: wm.progress_update(f * 0.9))
    root = collect(objects).root
    lods = build_lods(context, root, path.name, options) if options.lods else {}
    if options.lods:
        result.warnings += left_out_lods(root, path.name, path.parent)
    textures, notes = {}, []
    if options.textures == "TGA":
        for each in [result, *lods.values()]:
            found, skipped = texture_files(path, each.shader_images)
            textures.update(found)
            notes += [n for n in skipped if n not in notes]
    atomic_write(path, write_md3(result.model), verify=read_md3)
    for name, lod in lods.items():
        atomic_write(path.with_name(name), write_md3(lod.model), verify=read_md3)
    for target, data in textures.items():
        target.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(target, data)
    info = result.rate + result.info + [f"level of detail {name}: {lod.info[-1]}" for name, lod in lods.items()]
    return ExportReport(result.warnings + [w for lod in lods.values() for w in lod.warnings] + notes,
                        [str(path.with_name(n)) for n in lods] + [str(t) for t in textures], info)
