"""MD3 skins: the shader each surface shows, the image it names, and the ``.skin`` files beside a model.

Image of a shader name (ioquake3 renderergl1 tr_image.c ``R_FindImageFile`` -> ``R_LoadImage``): the
name as written when its extension is one the renderer loads, then the name without that extension
with each other one in the renderer's order ``tga, jpg, jpeg, png, pcx, bmp``; a name without a known
extension gets each of them appended. Names are game paths, looked up in the game folder the model
sits in (its pk3s and loose files, :mod:`...formats.archives.game_folder`); a loose model outside a
recognised game folder looks them up under each folder above it (nearest first), and last of all by
the bare file name beside the model (what the game would not do: a note says so). Shader scripts
(``scripts/*.shader``) are not read: a name a script defines finds the image of the same name, if any.

Skin sets: ``<model stem>_<set>.skin`` (Quake III players: ``lower_default.skin``, cgame
``CG_RegisterClientSkin``) and ``<model file>_<n>.skin`` (DarkPlaces ``Mod_LoadSkinFiles``:
``arm.md3_0.skin``) beside the model. The default set is ``default`` (what Quake III loads without a
skin name), else ``0`` (DarkPlaces' first skin), else the first by name. With a set applied a surface
shows the shader its ``.skin`` names for it (:mod:`...formats.md3.skin_file`); a surface the file does
not name shows nothing (ioquake3 ``R_AddMD3Surfaces`` gives it the default shader).
"""
from __future__ import annotations

import json
import os
import re
from pathlib import Path, PurePosixPath

import bpy

from ...common.contract import MD3_SHADER, MD3_SKIN_SET, MD3_SKINS
from ...common.skin_images import has_holes, skin_material
from ...formats.archives.game_folder import GameFolder
from ...formats.errors import FormatError
from ...formats.md3.skin_file import SkinFile, parse_skin
from ...formats.report_lines import Message
from ...formats.shown import quoted
from ..file_source import ArchiveSource, FoundFile, GameFiles, ModelSource, load_found_image, loose_file

IMAGE_EXTENSIONS = ("tga", "jpg", "jpeg", "png", "pcx", "bmp")   # tr_image.c imageLoaders, in order


def image_candidates(name: str) -> list[str]:
    """The names ``R_LoadImage`` tries for ``name``, in order."""
    name = name.replace("\\", "/")
    base = name.rpartition("/")[2]
    stem, dot, ext = base.rpartition(".")
    ext = ext.lower() if dot else ""
    if ext in IMAGE_EXTENSIONS:
        stripped = name[:len(name) - len(ext) - 1]
        return [name] + [f"{stripped}.{e}" for e in IMAGE_EXTENSIONS if e != ext]
    return [f"{name}.{e}" for e in IMAGE_EXTENSIONS]


class ShaderImages:
    """Finds and loads (once per name) the images of shader names for the models of one import."""

    def __init__(self, source: ModelSource) -> None:
        self.source = source
        self._images: dict[str, bpy.types.Image | None] = {}
        self._materials: dict[tuple[str, str], bpy.types.Material] = {}
        self._games: list[GameFolder] = []
        self._files: list[GameFiles] = []
        if isinstance(source, ArchiveSource):
            self._files = [source.files]
        else:
            path = Path(os.path.abspath(source.where))
            game = _game_around(path)
            if game is not None:
                self._games.append(game)
                self._files.append(GameFiles(None, game))
            else:
                for folder in path.parents:
                    holder = GameFolder(folder)
                    self._games.append(holder)
                    self._files.append(GameFiles(None, holder))

    def close(self) -> None:
        for game in self._games:
            game.close()

    def find(self, shader: str) -> tuple[FoundFile | None, str | None]:
        """The image file of ``shader`` and, for one found only beside the model, a note."""
        if not shader.strip() or shader.startswith(("/", "\\")) or ".." in re.split(r"[\\/]", shader):
            return None, None
        names = image_candidates(shader.strip())
        for files in self._files:
            for name in names:
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

    def material(self, shader: str, fallback_name: str, label: str, warnings: list[str],
                 infos: list[str]) -> bpy.types.Material:
        """One material per shader name for the import (shared by the surfaces that show it)."""
        key = (shader.strip().replace("\\", "/").lower(), "" if shader.strip() else fallback_name)
        if key not in self._materials:
            image = self.image(shader, label, warnings, infos) if shader.strip() else None
            name = PurePosixPath(shader.replace("\\", "/")).stem or fallback_name
            material = skin_material(name, image, has_holes(image))
            material[MD3_SHADER] = shader
            self._materials[key] = material
        return self._materials[key]


def _game_around(path: Path) -> GameFolder | None:
    try:
        return GameFolder.around(path)
    except (FormatError, OSError):
        return None


def skin_set_files(name: str, listing: dict[str, FoundFile]) -> dict[str, FoundFile]:
    """Set name -> ``.skin`` file beside a model file ``name`` (``lower.md3`` or ``arm.md3``), by name."""
    lower = name.lower()
    stem = lower.partition(".")[0]        # R_RegisterMD3 cuts names at the first dot
    prefixes = (f"{lower}_", f"{stem}_")
    out = {}
    for base, found in sorted(listing.items()):
        if not base.endswith(".skin"):
            continue
        for prefix in prefixes:
            if base.startswith(prefix) and len(base) > len(prefix) + len(".skin"):
                out.setdefault(found.name[len(prefix):-len(".skin")], found)
                break
    return out


def default_set(names: list[str]) -> str:
    for wanted in ("default", "0"):
        match = next((n for n in names if n.lower() == wanted), None)
        if match is not None:
            return match
    return sorted(names)[0] if names else ""


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
        if skin is not None:
            shader = skin.shader_for(surface.name)
            if shader is None:
                unnamed.append(surface.name)
                shader = ""
        else:
            shader = surface.shaders[0].name if surface.shaders else ""
        obj.data.materials.append(images.material(shader, surface.name or "surface", label, warnings, infos))
    if chosen and len(sets) > 1:
        infos.append(f"{label}: skin {quoted(chosen)} shown; skin sets {', '.join(sorted(sets))} kept on the model")
    if unnamed:
        warnings.append(f"{label}: skin {quoted(chosen)} names no shader for surface"
                        f"{'s' if len(unnamed) > 1 else ''} {', '.join(quoted(n) for n in unnamed)} (the game "
                        "draws them with its default shader)")
