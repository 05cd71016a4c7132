"""The Quake enhanced model: ``progs/x.md3`` written beside ``progs/x.mdl`` in one export, which vkQuake,
ironwail, FTE and DarkPlaces draw in place of the MDL (docs/dev/format-facts.md, the engines' replacement rules).

* Frames one for one: the MD3 is sampled with the MDL export's own frame options through the same
  pipeline (:func:`..sampling.pipeline.sample_model`), so frame k of the MD3 is frame k of the MDL,
  with the same name (the engines play the MDL's frame numbers on the replacement).
* Skins as the ports look them up (ironwail ``Mod_LoadMD3Model``; DarkPlaces and FTE read the same file):
  ``x.md3_0.skin``, one ``surface,path`` line per surface, naming a true-colour TGA of the surface's
  material image written beside the model (``<x>_<n>.tga``); each surface's shader names the same image.
* The MD3 is built before anything is written, so a model the MD3 cannot hold leaves no file.

Here, beside the format folders, because it joins two of them (the MDL operator wraps its exporter).
"""
from __future__ import annotations

from dataclasses import dataclass, fields
from pathlib import Path

import bpy

from ..common.skin_images import material_image
from ..formats.atomic_file import atomic_write
from ..formats.images.truecolour import encode_tga
from ..formats.md3.codec import read_md3, write_md3
from ..formats.md3.records import Md3Shader
from ..formats.md3.skin_file import SkinEntry, SkinFile, write_skin
from .image_files import image_rgba
from .game_path import game_location
from .run_export import ExportReport
from .sampling.options import VertexModelOptions
from .md3.build import Md3ExportOptions, build_md3


def _images(result, folder: str, stem: str) -> tuple[dict[str, bytes], list[str]]:
    """The TGA of each surface's material image (one file per image), with each surface's shader set to
    it; the notes for surfaces without an image."""
    files: dict[str, bytes] = {}
    by_image: dict[str, str] = {}
    notes = []
    for surface, material in zip(result.model.surfaces, result.surface_materials):
        image = material_image(material)
        if image is None or image.size[0] == 0:
            notes.append(f"surface {surface.name}: no image on its material, so no texture for the enhanced MD3")
            continue
        name = by_image.get(image.name)
        if name is None:
            name = f"{stem}_{len(by_image)}.tga"
            by_image[image.name] = name
            files[name] = encode_tga(image_rgba(image), bottom_up=True)
        surface.shaders = [Md3Shader(f"{folder}/{name}" if folder else name)]
    return files, notes


@dataclass
class WithEnhancedMd3:
    """An MDL exporter that also writes the enhanced MD3 beside the MDL."""
    exporter: object

    def __call__(self, context: bpy.types.Context, path: Path, objects: list[bpy.types.Object], options):
        shared = {f.name: getattr(options, f.name) for f in fields(VertexModelOptions)}
        folder = game_location(path)[1] or "progs"
        result = build_md3(context, objects, Md3ExportOptions(**shared, skin_folder=folder,
                                                              model_name=f"{folder}/{path.stem}.md3"))
        images, notes = _images(result, folder, path.stem)
        report = self.exporter(context, path, objects, options)
        if not isinstance(report, ExportReport):
            report = ExportReport(report)
        md3_path = path.with_suffix(".md3")
        atomic_write(md3_path, write_md3(result.model), verify=read_md3)
        skin = SkinFile([SkinEntry(s.name.lower(), s.shaders[0].name) for s in result.model.surfaces if s.shaders])
        written = {f"{md3_path.name}_0.skin": write_skin(skin), **images}
        for name, data in written.items():
            atomic_write(path.parent / name, data)
        report.warnings += notes + result.warnings
        report.written += [str(md3_path)] + [str(path.parent / n) for n in written]
        return report
