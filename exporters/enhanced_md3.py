"""The Quake enhanced model: ``progs/x.md3`` written beside ``progs/x.mdl`` in one export, which vkQuake,
ironwail and FTE draw in place of the MDL (docs/dev/format-facts.md, "Enhanced models in the engines": vkQuake
``Mod_LoadModel``, ironwail ``loadMd3Replacement``, FTE ``r_replacemodels``; DarkPlaces has no such replacement
and draws the file the game names).

* Frames one for one: the MD3 is sampled with the MDL export's own frame options through the same
  pipeline (:func:`..sampling.pipeline.sample_model`), so frame k of the MD3 is frame k of the MDL,
  with the same name (the engines play the MDL's frame numbers on the replacement).
* Skins as the ports look them up, one ``.skin`` file per MDL skin, numbered from 0 without a gap (ironwail
  ``Mod_LoadMD3Model`` reads ``x.md3_<n>.skin``, else ``x_<n>.skin``, until one is missing, and takes one
  only when the surfaces it names are exactly the MD3's, compared case for case; FTE ``Mod_CountSkinFiles``
  and DarkPlaces ``Mod_LoadSkinFiles`` count ``x.md3_<n>.skin`` the same way): one ``surface,path`` line per
  surface, naming a true-colour TGA written beside the model (``<x>_<k>.tga``, one per image; a material
  without an image gets a TGA of its base colour, as the MDL gets a flat skin); each surface's shader names
  its skin-0 image; every file names every surface. Skin n is the MDL's skin n: a surface showing the MDL's
  skin 0 (its first object's first skin material) shows the image of the MDL's skin slot n; other surfaces
  keep their own image. The slot order and the first object are the MDL export's own
  (:func:`..common.mdl_skins.mdl_skin_slots`, :func:`.mdl.build.skin_object`: a mesh without faces is left
  out). The entity's ``skin`` number then picks the same skin in both.
* The MD3 is built before anything is written, so a model the MD3 cannot hold leaves no file.

Here, beside the format folders, because it joins two of them (the MDL operator wraps its exporter).
"""
from __future__ import annotations

from dataclasses import dataclass, fields
from pathlib import Path

import bpy

from ..common.mdl_skins import material_skin_images, mdl_skin_slots
from ..common.skin_images import material_image
from ..formats.atomic_file import atomic_write
from ..formats.errors import FormatError
from ..formats.images.truecolour import encode_tga
from ..formats.md3.codec import read_md3, write_md3
from ..formats.md3.records import Md3Shader
from ..formats.md3.skin_file import SkinEntry, SkinFile, write_skin
from ..formats.mdl.codec import parse_mdl
from ..formats.message_text import quoted
from ..formats.report_lines import Message
from .game_path import game_location
from .image_files import image_rgba
from .md3.build import Md3ExportOptions, build_md3
from .mdl.build import skin_object
from .run_export import ExportReport
from .sampling.options import VertexModelOptions
from .sampling.skin_packing import FlatSkin

FLAT_SIZE = 8        # pixels per side of the TGA of a skin that is one colour (a material without an image)
FLAT_KIND = "{n} surface{s} of the enhanced MD3 show a flat skin (a material without an image)"   # one line


class _Images:
    """The TGA files of the skins, one per image (or flat colour), named ``<stem>_<k>.tga`` in order of use."""

    def __init__(self, folder: str, stem: str):
        self.folder, self.stem = folder, stem
        self.files: dict[str, bytes] = {}
        self.names: dict[tuple, str] = {}

    def path(self, key: tuple, rgba) -> str:
        name = self.names.get(key)
        if name is None:
            name = self.names[key] = f"{self.stem}_{len(self.names)}.tga"
            self.files[name] = encode_tga(rgba(), bottom_up=True)
        return f"{self.folder}/{name}" if self.folder else name

    def of_material(self, material: bpy.types.Material | None) -> tuple[str, FlatSkin | None]:
        """The path of the TGA showing ``material`` as the MDL does (its skin's first image, else a flat
        skin of its base colour, returned too for the report)."""
        pairs = material_skin_images(material)
        image = pairs[0][0] if pairs else None     # a skin group's first: a .skin line names one image a surface
        if image is not None and image.size[0] and image.size[1]:
            return self.path(("image", image.name), lambda: image_rgba(image)), None
        flat = FlatSkin.of(material, FLAT_SIZE, FLAT_SIZE)
        return self.path(("flat", material.name if material is not None else None), flat.rgba), flat


def _skin_sets(result, images: _Images, first: bpy.types.Object) -> tuple[list[SkinFile], list[str]]:
    """Skin 0 (each surface its material's image, else a flat skin of its base colour, which its shader
    names too) and, for every further skin slot of the MDL, the same with the MDL's skin 0 swapped for that
    slot's image: every file names every surface. The notes for the flat skins and skin groups."""
    notes, base = [], []
    for surface, material in zip(result.model.surfaces, result.surface_materials):
        image = material_image(material)
        if image is not None and image.size[0] and image.size[1]:
            shader = images.path(("image", image.name), lambda image=image: image_rgba(image))
        else:
            shader, flat = images.of_material(material)
            if flat is not None:
                notes.append(_flat_note(surface.name, shader, material, flat, image))
        surface.shaders = [Md3Shader(shader)]
        base.append(shader)
    sets = [SkinFile([SkinEntry(s.name, shader) for s, shader in zip(result.model.surfaces, base)])]
    skins = mdl_skin_slots(first)
    shown = skins[0][0] if skins else None
    for other, _ in skins[1:]:
        swapped = images.of_material(other)[0]
        sets.append(SkinFile([SkinEntry(s.name, swapped if material == shown else shader)
                              for s, material, shader in zip(result.model.surfaces, result.surface_materials, base)]))
    notes += [f"skin {n} is a group of {len(pairs)} images in the MDL: the enhanced MD3 shows its first (a .skin "
              "file names one image per surface)" for n, (_, pairs) in enumerate(skins) if pairs and len(pairs) > 1]
    return sets, notes


def _flat_note(surface: str, shader: str, material, flat: FlatSkin, image) -> Message:
    """The surface's own line, folded with the others' into one line of :data:`FLAT_KIND` (its details)."""
    shown = f"surface {surface} shows {shader} in the enhanced MD3: a flat skin of "
    if material is None:
        return Message(shown + f"Blender's grey {flat.colour[:3]}, as it has no material", FLAT_KIND, surface)
    why = (f"whose image {quoted(image.name)} has no pixels (a missing file?)" if image is not None
           else "which has no image")
    return Message(shown + f"the base colour {flat.colour[:3]} of material {quoted(material.name)}, {why}", FLAT_KIND,
                   surface)


def _mdl_skin_count(path: Path) -> int:
    try:
        return len(parse_mdl(path.read_bytes()).skins)
    except (OSError, FormatError):
        return 1


@dataclass
class WithEnhancedMd3:
    """An MDL exporter that also writes the enhanced MD3 beside the MDL."""
    exporter: object

    def __call__(self, context: bpy.types.Context, path: Path, objects: list[bpy.types.Object], options):
        shared = {f.name: getattr(options, f.name) for f in fields(VertexModelOptions)}
        folder = game_location(path)[1] or "progs"
        result = build_md3(context, objects, Md3ExportOptions(**shared, skin_folder=folder,
                                                              model_name=f"{folder}/{path.stem}.md3"))
        images = _Images(folder, path.stem)
        sets, notes = _skin_sets(result, images, skin_object(objects))
        report = self.exporter(context, path, objects, options)
        if not isinstance(report, ExportReport):
            report = ExportReport(report)
        count = _mdl_skin_count(path)          # the skins the MDL holds (one when its materials were packed)
        if count != len(sets):
            if count > 1:
                notes.append(f"the MDL has {count} skins but its first object {len(sets)} skin materials: the "
                             "enhanced MD3 got skin 0 only")
            sets = sets[:1]
        md3_path = path.with_suffix(".md3")
        atomic_write(md3_path, write_md3(result.model), verify=read_md3)
        used = {entry.shader.rsplit("/", 1)[-1] for skin in sets for entry in skin.entries}
        written = {**{f"{md3_path.name}_{n}.skin": write_skin(skin) for n, skin in enumerate(sets)},
                   **{name: data for name, data in images.files.items() if name in used}}
        for name, data in written.items():
            atomic_write(path.parent / name, data)
        report.warnings += notes + result.warnings
        report.written += [str(md3_path)] + [str(path.parent / n) for n in written]
        if len(sets) > 1:
            report.info.append(f"Enhanced MD3: {len(sets)} skins, {md3_path.name}_0.skin to "
                               f"{md3_path.name}_{len(sets) - 1}.skin, one per MDL skin")
        return report
