"""Where an MD3's shader names and skin sets are found, as Quake III looks for them (bpy-free: the
importer and ``info`` share it).

Image of a shader name (ioquake3 renderergl1 tr_image.c ``R_FindImageFile`` -> ``R_LoadImage``): the
name as written when its extension is one the renderer loads, then the name without that extension
with each other one in the renderer's order (``imageLoaders``: tga, jpg, jpeg, png, pcx, bmp); a name
without a known extension gets each of them appended. Names are game paths. Shader scripts
(``scripts/*.shader``) are not read: a name a script defines finds the image of the same name, if any.

Skin sets beside a model: ``<stem>_<set>.skin`` (Quake III players: ``lower_default.skin``, cgame
cg_players.c ``CG_RegisterClientSkin``) and ``<file>_<n>.skin`` (DarkPlaces model_shared.c
``Mod_LoadSkinFiles``: ``arm.md3_0.skin``). The default set is ``default`` (what Quake III loads
without a skin name), else ``0`` (DarkPlaces' first skin), else the first by name.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import TypeVar

from ..archives.game_folder import GameFile, GameFolder
from .q3_text import Q3Text, com_parse

IMAGE_EXTENSIONS = ("tga", "jpg", "jpeg", "png", "pcx", "bmp")   # tr_image.c imageLoaders, in order
T = TypeVar("T")


def image_candidates(name: str) -> list[str]:
    """The names ``R_LoadImage`` tries for ``name``, in order ('\\' read as '/')."""
    name = name.strip().replace("\\", "/")
    base = name.rpartition("/")[2]
    _, dot, ext = base.rpartition(".")
    ext = ext.lower() if dot else ""
    if ext in IMAGE_EXTENSIONS:
        stripped = name[:len(name) - len(ext) - 1]
        return [name] + [f"{stripped}.{e}" for e in IMAGE_EXTENSIONS if e != ext]
    return [f"{name}.{e}" for e in IMAGE_EXTENSIONS]


def script_shader_names(data: bytes) -> set[str]:
    """The shader names a ``scripts/*.shader`` file defines, lower-cased: each name at the top level
    followed by its braced body (ioquake3 tr_shader.c ``ScanAndLoadShaderFiles``: ``COM_ParseExt`` then
    ``SkipBracedSection``)."""
    names: set[str] = set()
    text, depth = Q3Text(data), 0
    while True:
        token, _ = com_parse(text)
        if not token:
            return names
        if token == b"{":
            depth += 1
        elif token == b"}":
            depth = max(depth - 1, 0)
        elif depth == 0:
            names.add(token.decode("latin-1").replace("\\", "/").lower())


def script_key(shader: str) -> str:
    """How ``R_FindShader`` compares a name with the scripts': without its extension, any case."""
    name = shader.strip().replace("\\", "/")
    base = name.rpartition("/")[2]
    return (name[:len(name) - len(base)] + base.rpartition(".")[0] if "." in base else name).lower()


def folder_script_names(folders: list[GameFolder]) -> set[str]:
    """Every shader the ``scripts/*.shader`` files of ``folders`` define (loose, and in their archives)."""
    names: set[str] = set()
    for folder in folders:
        for each in folder.folders():
            scripts = each.root / "scripts"
            try:
                loose = [p for p in scripts.iterdir() if p.suffix.lower() == ".shader" and p.is_file()]
            except OSError:
                loose = []
            for path in loose:
                try:
                    names |= script_shader_names(path.read_bytes())
                except OSError:
                    continue
            for archive_path in each.own_archive_paths:
                archive = each.archive(archive_path)
                if archive is None:
                    continue
                for member in archive.members():
                    key = member.name.replace("\\", "/").lower()
                    if key.startswith("scripts/") and key.endswith(".shader"):
                        names |= script_shader_names(archive.read(member.name))
    return names


def unsafe_shader(name: str) -> bool:
    """An empty, absolute or ``..`` name: never looked up."""
    return (not name.strip() or name.startswith(("/", "\\")) or bool(re.match(r"^[A-Za-z]:", name))
            or ".." in re.split(r"[\\/]", name))


def search_folders(model_path: Path) -> list[GameFolder]:
    """The game folder a loose model sits in; outside a recognised one, each folder above the model
    (nearest first), as if it were the game folder's root. Close them after use."""
    try:
        game = GameFolder.around(model_path)
    except OSError:
        game = None
    if game is not None:
        return [game]
    return [GameFolder(folder) for folder in Path(model_path).resolve().parents]


def find_in_folders(folders: list[GameFolder], shader: str) -> tuple[GameFolder, GameFile] | None:
    """The first image file of ``shader`` in ``folders`` (each in its own search order)."""
    if unsafe_shader(shader):
        return None
    for name in image_candidates(shader):
        for folder in folders:
            found = folder.find(name)
            if found is not None:
                return folder, found
    return None


def skin_set_files(model_name: str, listing: dict[str, T]) -> dict[str, T]:
    """Set name -> entry of ``listing`` (lower-cased file name -> anything) for the ``.skin`` files of the
    model file ``model_name`` (``lower.md3``, ``arm.md3``); the set name as the file spells it when the
    entries have a ``name``, else lower-cased."""
    lower = model_name.lower()
    prefixes = (f"{lower}_", f"{lower.partition('.')[0]}_")    # R_RegisterMD3 cuts names at the first dot
    out: dict[str, T] = {}
    for base, entry in sorted(listing.items()):
        if not base.endswith(".skin"):
            continue
        prefix = next((p for p in prefixes if base.startswith(p) and len(base) > len(p) + len(".skin")), None)
        if prefix is not None:
            spelled = getattr(entry, "name", base)
            out.setdefault(spelled[len(prefix):-len(".skin")], entry)
    return out


def default_set(names: list[str]) -> str:
    """The set shown at import: ``default``, else ``0``, else the first by name ('' for none)."""
    for wanted in ("default", "0"):
        match = next((n for n in names if n.lower() == wanted), None)
        if match is not None:
            return match
    return sorted(names)[0] if names else ""
