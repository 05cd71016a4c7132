"""MD2 skins on export: skin names as game paths, and the skin files the game needs.

Names are paths relative to the game folder (docs/dev/format-facts.md, "MD2"). An export under a folder
named ``models`` or ``players`` (``baseq2/models/crate/tris.md2``) implies the game folder
(``baseq2``) and the names' folder part (``models/crate``); *Skin Path* sets that part by hand.
A skin file goes where the game looks for its name (under the implied game folder; folders and
file compared without case, as Quake II's file system does, so ``players/Jetfire/weapon.pcx`` goes
into an existing ``players/jetfire/``), else beside the model. Nothing is written outside the
export folder or that game folder: a name that is absolute, has a drive letter or climbs out with
``..``, or whose target leaves through a symlink, is written beside the model instead, with a warning.

PCX skins are 8-bit run-length PCX in the Quake II palette (nearest by CIEDE2000, optional
dithering; index 255 exactly for pixels with alpha below 0.5, as the import shows 255 with alpha 0;
pixels of an imported PCX that still show their colour keep their index, so repeated colours such
as 0 = 127 = 143 = 175 do not move; one report line counts the pixels whose colour moved visibly,
:mod:`...formats.images.colour_drift`).
Quake II has no fullbright range and no shirt/pants recolouring: its GL renderer expands every
index through ``d_8to24table`` with only 255 made transparent (id-Software/Quake-2
``ref_gl/gl_image.c`` ``Draw_GetPalette`` and ``GL_Upload8``; the alpha test is
on for every surface, ``ref_gl/gl_rmisc.c`` ``GL_SetDefaultState``), so no mask and no avoided
ranges apply; PNG and TGA are true colour, for
source ports that load them in place of the PCX name. An imported image nobody changed is
copied byte for byte when its file has the target's format; an existing file at the target is
replaced only by an image made or edited in Blender.
"""
from __future__ import annotations

import os
import re
from pathlib import Path

import bpy

from ...common.contract import SOURCE_PATH
from ...common.disk_names import disk_spelling, stored_path
from ...common.skin_images import image_unchanged, stored_pcx_indices, unchanged_member_bytes
from ...formats.errors import FormatError
from ...formats.images.colour_drift import drift_report
from ...formats.md2.codec import SKIN_NAME_SIZE
from ...formats.message_text import quoted
from ..export_error import ExportError
from ..game_path import _DRIVE, GAME_SUBFOLDERS, existing_case, game_location, skin_folder  # noqa: F401
from ..image_files import SkinFile, encode_skin, image_rgba, pcx_fitted
from ..sampling.skin_packing import FlatSkin

SKIN_EXTENSIONS = {"PCX": ".pcx", "PNG": ".png", "TGA": ".tga"}
def new_skin_name(folder: str, stem: str) -> str:
    return f"{folder}/{stem}.pcx" if folder else f"{stem}.pcx"


def _unsafe(name: str) -> str | None:
    if name.startswith(("/", "\\")) or _DRIVE.match(name):
        return "is an absolute path"
    if ".." in re.split(r"[\\/]", name):
        return "climbs out with '..'"
    return None


def unusable_skin_name(name: str) -> str | None:
    """Why the game cannot use the stored skin ``name`` as a file under its game folder, else None.

    Quake II loads a model's skins by their stored names relative to the game folder (id-Software/Quake-2
    ``ref_gl/gl_model.c`` ``Mod_LoadAliasModel`` -> ``GL_FindImage`` -> ``FS_LoadFile``), and its models
    and players keep them under ``models/`` and ``players/``. A name that is absolute, has a drive letter
    or climbs out with ``..`` leads out of the game folder; a name with folders under any other top folder
    is an editor's own path cut to 63 characters (``es/nathan corey/desktop/gekk.pcx``). A bare file name
    is left alone (its file is written beside the model, with a warning)."""
    reason = _unsafe(name)
    if reason is not None:
        return f"{reason}, out of the game folder"
    parts = [p for p in re.split(r"[\\/]", name) if p not in ("", ".")]
    if len(parts) > 1 and parts[0].lower() not in GAME_SUBFOLDERS:
        return f"lies under {quoted(parts[0])}, not under {' or '.join(f'{f}/' for f in GAME_SUBFOLDERS)} where the game keeps skins"
    return None


def replace_unusable_skins(model, images: dict, folder: str, label: str = "") -> list[str]:
    """Rename each skin of the built ``model`` that the game cannot use (:func:`unusable_skin_name`) to the
    model's own game path ``<folder>/<file name>`` (a bare file name without a folder); its image follows.
    Report lines saying from what to what."""
    notes, renamed = [], []
    for name in model.skins:
        reason = unusable_skin_name(name)
        if reason is None:
            renamed.append(name)
            continue
        parts = [p for p in re.split(r"[\\/]", name) if p not in ("", ".", "..")]
        stem = Path(parts[-1]).stem if parts else "skin"
        new = new_skin_name(folder, stem)
        if len(new.encode("latin-1", "replace")) >= SKIN_NAME_SIZE:
            raise ExportError(f"{label}skin name {quoted(new)} would be over 63 characters; choose a shorter folder "
                              "or set Skin Path")
        notes.append(f"{label}skin {quoted(name)} {reason}; written as {quoted(new)}")
        if name in images:
            images.setdefault(new, images[name])
        renamed.append(new)
    if renamed != list(model.skins):
        model.skins, model.skin_name_raw = renamed, None
    return notes


def _inside(path: Path, root: Path) -> bool:
    return Path(os.path.realpath(path)).is_relative_to(os.path.realpath(root))


def skin_target(model_path: Path, name: str, extension: str) -> tuple[Path | None, str | None]:
    """Where the skin ``name`` is written, and a warning when it cannot go where the game looks."""
    model_dir = Path(os.path.abspath(model_path)).parent
    parts = [disk_spelling(p) for p in re.split(r"[\\/]", name) if p not in ("", ".")]
    if not parts:
        return None, f"skin name {quoted(name)} names no file; not written"
    file_name = Path(parts[-1]).stem + extension
    warning = None
    game_dir, _ = game_location(model_path)
    reason = _unsafe(name)
    if reason is not None:
        warning = f"skin name {quoted(name)} {reason}; not followed, its file is written beside the model"
    elif game_dir is not None and len(parts) > 1:
        target = existing_case(game_dir, [*parts[:-1], file_name])
        if _inside(target, game_dir):
            return target, None
        warning = f"skin {quoted(name)} leads outside the game folder {game_dir}; its file is written beside the model"
    beside = model_dir / file_name
    if not _inside(beside, model_dir):
        return None, f"{beside} leads outside the export folder; skin {quoted(name)} not written"
    return beside, warning


def plan_skin_files(model_path: Path, skins: list[str], images: dict[str, bpy.types.Image],
                    mode: str, dither: bool) -> tuple[list[SkinFile], list[str]]:
    """Every skin file to write for ``skins`` (names in the file) and their images; nothing is
    written here, so a refused skin leaves the disk untouched. Also the warnings to report.

    An image may also be a packed skin (``rgba()`` and ``sources``) or a flat one (``rgba()`` and
    ``note``), see :mod:`..sampling.skin_packing`: it is always encoded, being made at export."""
    if mode not in SKIN_EXTENSIONS:
        return [], []
    extension = SKIN_EXTENSIONS[mode]
    files: list[SkinFile] = []
    warnings: list[str] = []
    planned: set[Path] = set()
    drifts: list = []
    for name in skins:
        image = images.get(name)
        if image is None:
            continue
        target, warning = skin_target(model_path, name, extension)
        if warning:
            warnings.append(warning)
        if target is None or target in planned:
            continue
        planned.add(target)
        if not isinstance(image, bpy.types.Image):
            flat = isinstance(image, FlatSkin)          # a PCX's top-left texel black: no fill (FlatSkin.rgba)
            rgba, scaled = (pcx_fitted(image.rgba(True) if flat else image.rgba()) if mode == "PCX"
                            else (image.rgba(), ""))
            try:
                data = encode_skin(rgba, mode, dither, drifts=drifts, label=f"skin {quoted(name)}")
            except FormatError as exc:
                raise ExportError(f"packed skin {quoted(name)}: {exc}") from exc
            note = getattr(image, "note", None) or f"packing the images of {len(image.sources)} materials"
            files.append(SkinFile(target, data, f"{mode}, {note}{scaled}"))
            continue
        unchanged = image_unchanged(image)
        source = Path(stored_path(image.get(SOURCE_PATH))) if unchanged else None
        member = unchanged_member_bytes(image, extension)
        if source is not None and source.suffix.lower() == extension and source.is_file():
            if target.exists() and os.path.samefile(source, target):
                continue
            data, note = source.read_bytes(), f"copied from {source}"
        elif member is not None:
            data, note = member[0], f"copied from {member[1]}"
        else:
            if image.size[0] == 0 or image.size[1] == 0:
                warnings.append(f"image {quoted(image.name)} of skin {quoted(name)} has no pixels; not written")
                continue
            rgba, scaled = pcx_fitted(image_rgba(image)) if mode == "PCX" else (image_rgba(image), "")
            try:
                data = encode_skin(rgba, mode, dither, stored_pcx_indices(image), drifts, f"skin {quoted(name)}")
            except FormatError as exc:
                raise ExportError(f"skin {quoted(name)} (image {quoted(image.name)}): {exc}") from exc
            note = f"{mode} from image {quoted(image.name)}{scaled}"
        if target.exists() and unchanged:
            if target.read_bytes() != data:
                warnings.append(f"{target} exists and differs; kept it, since skin {quoted(name)} was not changed "
                                "in Blender")
            continue
        files.append(SkinFile(target, data, note))
    moved = drift_report(drifts)
    if moved:
        warnings.append(moved)
    if not any("/" in s.replace("\\", "/") for s in skins if images.get(s) is not None) and files:
        warnings.append("skin names carry no game path, so the game will not find them; export under "
                        "<game>/models/... or <game>/players/..., or set Skin Path")
    return files, warnings
