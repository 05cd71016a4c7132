"""The menu icons of a Quake II player export: ``<skin>_i.pcx`` beside every player skin.

Quake II's player menu lists a skin only when its icon lies beside it, named exactly
(id-Software/Quake-2 ``client/menu.c``: ``PlayerConfig_ScanDirectories``, ``IconOfSkinExists``);
see :mod:`...formats.md2.player`. For every skin of the body written into the player's folder
(and every skin carried there) the icon comes from, in this order (*Icons: Supplied or Rendered*):

1. an icon file already at the target (made by hand earlier): kept;
2. an image in the .blend named ``<skin>_i`` (any extension, any case), scaled to 32x32 if needed;
3. for a skin image unchanged since its import, the icon beside the file (or archive member) it
   came from (``zarlag_i.pcx`` beside ``zarlag.pcx``): copied byte for byte;
4. otherwise a 32x32 picture rendered by Blender (:mod:`.icon_render`).

*Icons: Render* always renders (replacing what is there), *None* writes none. Icons are 8-bit PCX
in the Quake II palette, index 255 where the picture is transparent (as the skins, :func:`..image_files.encode_skin`).
"""
from __future__ import annotations

import os
from pathlib import Path, PurePosixPath

import numpy as np

import bpy

from ...common.contract import SOURCE_ARCHIVE, SOURCE_MEMBER, SOURCE_PATH
from ...common.disk_names import stored_path
from ...common.skin_images import image_unchanged
from ...formats.archives.archive import ArchiveError, open_archive
from ...formats.errors import FormatError
from ...formats.md2.player import ICON_SIZE, ICON_SUFFIX, icon_name
from ...formats.message_text import quoted
from ..export_error import ExportError
from ..image_files import SkinFile, encode_skin, image_rgba
from .build import BuildResult
from .icon_render import render_icons
from .skins import skin_target


def _blend_icon(stem: str) -> bpy.types.Image | None:
    wanted = f"{stem}{ICON_SUFFIX}".lower()
    for image in bpy.data.images:
        if Path(image.name).stem.lower() == wanted and image.size[0] > 0 and image.size[1] > 0:
            return image
    return None


def _icon_rgba(image: bpy.types.Image) -> np.ndarray:
    """The image's pixels at 32x32 (the nearest pixel of each icon pixel's centre when it has another size)."""
    rgba = image_rgba(image)
    height, width = rgba.shape[:2]
    rows = ((np.arange(ICON_SIZE) + 0.5) * height / ICON_SIZE).astype(np.int64)
    cols = ((np.arange(ICON_SIZE) + 0.5) * width / ICON_SIZE).astype(np.int64)
    return rgba[rows][:, cols]


def _source_icon(image) -> tuple[bytes, str] | None:
    """The icon beside the file or archive member an unchanged imported skin came from."""
    if not isinstance(image, bpy.types.Image) or not image_unchanged(image):
        return None
    archive, member = image.get(SOURCE_ARCHIVE), image.get(SOURCE_MEMBER)
    if archive and member:
        wanted = str(PurePosixPath(str(member).replace("\\", "/")).with_name(icon_name(PurePosixPath(str(member)).name)))
        try:
            with open_archive(str(archive)) as opened:
                return (opened.read(wanted), f"{archive}:{wanted}") if opened.find(wanted) is not None else None
        except ArchiveError:
            return None
    source = Path(stored_path(image.get(SOURCE_PATH)))
    if not source.name or not source.parent.is_dir():
        return None
    wanted = icon_name(source.name).lower()
    for found in source.parent.iterdir():
        if found.name.lower() == wanted and found.is_file():
            return found.read_bytes(), str(found)
    return None


def _rgba(image) -> np.ndarray | None:
    if image is None:
        return None
    if not isinstance(image, bpy.types.Image):
        return image.rgba()           # a packed skin
    return image_rgba(image) if image.size[0] > 0 and image.size[1] > 0 else None


def plan_icons(model_path: Path, body: BuildResult, weapons: list[BuildResult], skins: dict[str, object],
               mode: str) -> tuple[list[SkinFile], list[str]]:
    """The icon files for the player skins ``skins`` (name in the file -> image), and report lines."""
    if mode == "NONE":
        return [], []
    files: list[SkinFile] = []
    notes: list[str] = []
    render: list[tuple[Path, str, np.ndarray]] = []
    planned: set[Path] = set()
    for name, image in skins.items():
        skin_path, _ = skin_target(model_path, name, ".pcx")
        if skin_path is None or os.path.realpath(skin_path.parent) != os.path.realpath(model_path.parent):
            continue                # the menu looks for icons in the player's folder only
        target = skin_path.parent / icon_name(skin_path.name)
        if target in planned:
            continue
        planned.add(target)
        if mode == "AUTO":
            if target.exists():
                notes.append(f"kept the icon {target} already there for skin {quoted(name)}")
                continue
            supplied = _blend_icon(skin_path.stem)
            if supplied is not None:
                files.append(SkinFile(target, _encode(_icon_rgba(supplied), name),
                                      f"icon from image {quoted(supplied.name)}"))
                continue
            copied = _source_icon(image)
            if copied is not None:
                files.append(SkinFile(target, copied[0], f"icon copied from {copied[1]}"))
                continue
        rgba = _rgba(image)
        if rgba is None:
            notes.append(f"skin {quoted(name)} has no image to draw; no icon written, so Quake II's menu will not list it")
            continue
        render.append((target, name, rgba))
    if render:
        others = [(w.model, _rgba(w.skin_images.get(w.model.skins[0])) if w.model.skins else None) for w in weapons]
        try:
            pictures = render_icons(body.model, [rgba for _, _, rgba in render], others)
        except RuntimeError as exc:
            raise ExportError(f"could not render the skins' menu icons ({str(exc).strip()}); supply images "
                              "named <skin>_i or export with Icons: None") from exc
        for (target, name, _), picture in zip(render, pictures):
            files.append(SkinFile(target, _encode(picture, name), "icon rendered from the model's front"))
    return files, notes


def _encode(rgba: np.ndarray, name: str) -> bytes:
    try:
        return encode_skin(rgba, "PCX", False)
    except FormatError as exc:
        raise ExportError(f"icon of skin {quoted(name)}: {exc}") from exc
