"""MD3 skins: the shader each surface shows, the image it names, and the ``.skin`` files beside a model.

The names Quake III tries for a shader's image and the skin sets beside a model are
:mod:`...formats.md3.shader_lookup`'s. Names are game paths, looked up in the game folder the model
sits in (its pk3s and loose files; a member of an archive: the game folder of the archive), else under
each folder above a loose model, and last of all by the bare file name beside the model (what the game
would not do: a note says so). Images are decoded by Blender (PCX by our decoder) and packed. With a
skin set applied a surface shows the shader its ``.skin`` names for it (:mod:`...formats.md3.skin_file`);
a surface the file does not name shows nothing (ioquake3 ``R_AddMD3Surfaces`` gives it the default
shader). A material's ``md3_shader`` is always the surface's own shader in the file (what an export
writes back); the skin set's shader it shows is its ``md3_skin_shader``.
"""
from __future__ import annotations

import json
import os
from pathlib import Path, PurePosixPath

import bpy

from ...common.md3.contract import MD3_SHADER, MD3_SKIN_SET, MD3_SKIN_SHADER, MD3_SKINS
from ...common.skin_images import has_holes, skin_material
from ...formats.errors import FormatError
from ...formats.md3.shader_lookup import (
    IMAGE_EXTENSIONS,
    default_set,
    image_candidates,
    search_folders,
    skin_set_files,
    unsafe_shader,
)
from ...formats.md3.skin_file import SkinFile, parse_skin
from ...formats.message_text import quoted
from ...formats.report_lines import Message
from ..file_source import ArchiveSource, FoundFile, GameFiles, ModelSource, load_found_image, loose_file


class ShaderImages:
    """Finds and loads (once per name) the images of shader names for the models of one import."""

    def __init__(self, source: ModelSource) -> None:
        self.source = source
        self._images: dict[str, bpy.types.Image | None] = {}
        self._materials: dict[tuple[str, str], bpy.types.Material] = {}
        self._beside: dict[str, dict[str, FoundFile]] = {}
        self._games = []
        if isinstance(source, ArchiveSource):
            self._files = [source.files]
        else:
            self._games = search_folders(Path(os.path.abspath(source.where)))
            self._files = [GameFiles(None, game) for game in self._games]

    def close(self) -> None:
        for game in self._games:
            game.close()

    def find(self, shader: str) -> tuple[FoundFile | None, str | None]:
        """The image file of ``shader`` and, for one found only beside the model, a note."""
        if unsafe_shader(shader):
            return None, None
        names = image_candidates(shader)
        for name in names:
            for files in self._files:
                found = files.find(name)
                if found is not None:
                    return found, None
        beside = self.beside()
        for name in names:
            found = beside.get(PurePosixPath(name).name.lower())
            if found is not None:
                return found, (f"shader {quoted(shader)} is not in the game folder; using {found.name} beside "
                               "the model (the game would not find it)")
        return None, None

    def beside(self) -> dict[str, FoundFile]:
        """Lower-cased name -> file, for the files in the model's folder."""
        if self.source.where not in self._beside:
            self._beside[self.source.where] = self._listing()
        return self._beside[self.source.where]

    def _listing(self) -> dict[str, FoundFile]:
        if isinstance(self.source, ArchiveSource):
            return self.source.files.folder(self.source.folder)
        folder = Path(self.source.where).parent
        try:
            return {p.name.lower(): loose_file(p) for p in sorted(folder.iterdir()) if p.is_file()}
        except OSError:
            return {}

    def image(self, shader: str, label: str, warnings: list[str], infos: list[str]) -> bpy.types.Image | None:
        key = shader.strip().replace("\\", "/").lower()
        if key in self._images:
            return self._images[key]
        found, note = self.find(shader)
        image = None
        if found is None:
            if shader.strip():
                warnings.append(Message(f"{label}: shader {quoted(shader)}: no image found (tried "
                                        f"{', '.join(IMAGE_EXTENSIONS)})",
                                        f"{label}: {{n}} shader{{s}} without an image", shader))
        else:
            if note:
                infos.append(f"{label}: {note}")
            try:
                image = load_found_image(found)
            except (FormatError, OSError) as exc:
                warnings.append(Message(f"{label}: image {found.name} could not be loaded: {exc}",
                                        f"{label}: {{n}} image{{s}} could not be loaded", found.name))
        self._images[key] = image
        return image

    def material(self, shader: str, fallback_name: str, label: str, warnings: list[str], infos: list[str],
                 skin_shader: str | None = None) -> bpy.types.Material:
        """One material per (shader, skin shader) for the import, shared by the surfaces that show it.
        ``shader`` is the file's (what the export writes back, ``md3_shader``); with ``skin_shader`` (a
        skin set's shader for the surface, '' when the set names none) the material shows that one's
        image and records it (``md3_skin_shader``)."""
        shown = shader if skin_shader is None else skin_shader
        key = (shader.strip().replace("\\", "/").lower(), None if skin_shader is None else shown.strip().lower(),
               "" if shown.strip() else fallback_name)
        if key not in self._materials:
            image = self.image(shown, label, warnings, infos) if shown.strip() else None
            name = PurePosixPath(shown.replace("\\", "/")).stem or fallback_name
            material = skin_material(name, image, has_holes(image))
            material[MD3_SHADER] = shader
            if skin_shader is not None:
                material[MD3_SKIN_SHADER] = skin_shader
            self._materials[key] = material
        return self._materials[key]


def read_skin_sets(images: ShaderImages, name: str, label: str,
                   warnings: list[str]) -> tuple[dict[str, SkinFile], dict[str, dict[str, str]]]:
    """The parsed skin sets beside the model and their MD3_SKINS record."""
    parsed, record = {}, {}
    for set_name, found in skin_set_files(name, images.beside()).items():
        try:
            data = found.read()
        except (OSError, FormatError) as exc:
            warnings.append(f"{label}: {found.name} could not be read: {exc}")
            continue
        parsed[set_name] = parse_skin(data)
        warnings += [f"{label}: {found.name}: {w}" for w in parsed[set_name].warnings]
        record[set_name] = {"file": found.member or str(found.path or found.where), "raw": data.hex()}
    return parsed, record


def apply_skins(root: bpy.types.Object, surfaces: list[tuple[bpy.types.Object, object]], images: ShaderImages,
                name: str, label: str, warnings: list[str], infos: list[str]) -> None:
    """Materials for ``surfaces`` ((object, Md3Surface) pairs): the default skin set's shaders, or the
    surfaces' own first shader without a set; the sets are kept on ``root``."""
    sets, record = read_skin_sets(images, name, label, warnings)
    chosen = default_set(list(sets))
    root[MD3_SKINS] = json.dumps(record)
    root[MD3_SKIN_SET] = chosen
    skin = sets.get(chosen)
    unnamed = []
    for obj, surface in surfaces:
        shown = None
        if skin is not None:
            shown = skin.shader_for(surface.name)
            if shown is None:
                unnamed.append(surface.name)
                shown = ""
        shader = surface.shaders[0].name if surface.shaders else ""
        obj.data.materials.append(images.material(shader, surface.name or "surface", label, warnings, infos, shown))
    if chosen and len(sets) > 1:
        infos.append(f"{label}: skin {quoted(chosen)} shown; skin sets {', '.join(sorted(sets))} kept on the model")
    if unnamed:
        warnings.append(f"{label}: skin {quoted(chosen)} names no shader for surface"
                        f"{'s' if len(unnamed) > 1 else ''} {', '.join(quoted(n) for n in unnamed)} (the game "
                        "draws them with its default shader)")
