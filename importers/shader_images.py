"""The images of a model's shader or material names: an MD5's shaders (for a model without a paired
classic model, whose skins the re-releases draw instead, ``importers/md5/classic_pair.py``) and an IQM
mesh's material (DarkPlaces ``Mod_INTERQUAKEMODEL_Load`` loads the material name as a texture the same way).

An ``.md5mesh`` names no image, only a shader: an engine without a material definition of that name
loads the image of the same name, trying its image extensions in turn (FTE ``r_imageextensions``,
default ``dds ktx tga png jpg pcx``; ioquake3's ``R_LoadImage`` order ``tga jpg jpeg png pcx bmp`` for
the names it gets from a model). Here a shader is looked up as written when it ends in an image
extension, then with each extension in FTE's order (without ``ktx``, which Blender cannot read) and then
ioquake3's others; each name as a path under the model's folder, then by its bare name beside the
model, in any case (:meth:`..file_source.ModelSource.texture`: nothing outside the model's folder).
So ``guard1_body`` finds ``guard1_body.png`` beside the mesh, and an editor's absolute path
(``C:/art/guard1_body.tga``) the image of its file name there.
"""
from __future__ import annotations

from pathlib import PurePosixPath

import bpy

from ..common.skin_images import has_holes, skin_material
from ..formats.errors import FormatError
from .file_source import FoundFile, ModelSource, load_found_image

IMAGE_EXTENSIONS = ("dds", "tga", "png", "jpg", "pcx", "jpeg", "bmp")     # FTE's order, then ioquake3's others


def image_names(shader: str) -> list[str]:
    """The file names tried for ``shader``, in order ('\\' read as '/')."""
    name = shader.strip().replace("\\", "/")
    if not name or name.endswith("/"):
        return []
    stem, dot, ext = name.rpartition(".")
    if dot and ext.lower() in IMAGE_EXTENSIONS and "/" not in ext:
        return [name] + [f"{stem}.{e}" for e in IMAGE_EXTENSIONS if e != ext.lower()]
    return [f"{name}.{e}" for e in IMAGE_EXTENSIONS]


def find_shader_image(source: ModelSource, shader: str) -> FoundFile | None:
    """The image file of ``shader`` beside the model (module docstring), or None."""
    for name in image_names(shader):
        found = source.texture(name)
        if found is not None:
            return found
    return None


def in_game_folder(source: ModelSource, shader: str) -> FoundFile | None:
    """The image of ``shader`` as a game path (``models/player/erebus/erebus``, the way DarkPlaces
    names an IQM's textures), else under the game folder's ``textures/``: :meth:`..file_source.ModelSource.skin`,
    which looks a stored path up from the model's folder up to the game folder and in its archives."""
    name = shader.strip().replace("\\", "/")
    for stored in ([name] if "/" in name else []) + [f"textures/{PurePosixPath(name).name}"]:
        found = source.skin(stored).file
        if found is not None:
            return found
    return None


def shader_materials(source: ModelSource, shaders: list[str | None], label: str, warnings: list[str],
                     infos: list[str], unnamed: str, game_folder: bool = False) -> list[bpy.types.Material]:
    """One material per distinct shader (in ``shaders`` order, one per block), showing its image where
    one is found (with ``game_folder``, also :func:`in_game_folder`); the shaders without one are said in
    one line."""
    by_shader: dict[str, bpy.types.Material] = {}
    missing = []
    for shader in shaders:
        shader = shader or ""
        if shader in by_shader:
            continue
        found = find_shader_image(source, shader) if shader.strip() else None
        if found is None and game_folder and shader.strip():
            found = in_game_folder(source, shader)
        image = None
        if found is not None:
            try:
                image = load_found_image(found)
            except (FormatError, OSError) as exc:
                warnings.append(f"{label}: image {found.name} of shader {shader} could not be loaded: {exc}")
        elif shader.strip():
            missing.append(shader)
        name = PurePosixPath(shader.replace("\\", "/")).name or unnamed
        by_shader[shader] = skin_material(name, image, has_holes(image))
    if missing:
        infos.append(f"{label}: no image named as shader{'s' if len(missing) > 1 else ''} "
                     f"{', '.join(missing[:5])}{' and more' if len(missing) > 5 else ''} beside it"
                     f"{' or in the game folder' if game_folder else ''} "
                     f"(tried {', '.join(IMAGE_EXTENSIONS)})")
    return [by_shader[s or ""] for s in shaders]
