"""Exporting an object imported from a game archive back into a game folder.

An object read from ``baseq2/pak0.pak`` as ``players/male/tris.md2`` keeps the archive and member
(``common/contract.py``). Its export dialog opens in the archive's folder (the game folder) with the
member's file name (or in the folder it was last exported to under that name), and *Path in Game
Folder* holds the member's folders (``players/male``): the file is written at
``<chosen folder>/players/male/tris.md2``, creating the missing folders, so choosing the game folder or
a mod folder puts it where the game looks for that name. A chosen folder that already ends with those
folders (``.../baseq2/players/male``) is used as it is. Folders compare without case, as the game's
file system does: an existing ``players/Male`` is used for ``players/male``. An object imported from a
loose file opens the dialog at that file's folder and name. Every missing folder of the path is
created. Bpy-free.
"""
from __future__ import annotations

import os
import re
from pathlib import Path, PurePosixPath

from ..formats.archives.archive import unsafe_name
from ..formats.message_text import quoted
from .export_error import ExportError


def default_export_path(archive: str, member: str, extension: str) -> tuple[str, str]:
    """(file path for the dialog, folders in the game folder) for an object read from ``member``."""
    name = PurePosixPath(member.replace("\\", "/"))
    stem = name.stem if extension else name.name
    return str(Path(archive).parent / f"{stem}{extension}"), str(name.parent) if str(name.parent) != "." else ""


def export_dialog_path(remembered: str, archive: str, member: str, extension: str) -> tuple[str, str]:
    """The export dialog's (file path, Subfolders) for an object read from ``member``: the
    archive's folder and the member's name, unless the dialog remembers a path with that same file
    name (an earlier export of it to a game or mod folder), whose folder is kept."""
    default, folders = default_export_path(archive, member, extension)
    if remembered and Path(remembered).name.lower() == Path(default).name.lower():
        return remembered, folders
    return default, folders


def loose_export_path(remembered: str, source: str, extension: str) -> str:
    """The export dialog's file path for an object imported from the loose file ``source``: its folder and
    name with the exporter's ``extension``, unless the dialog remembers a path with that same file name."""
    default = str(Path(source).with_suffix(extension)) if extension else source
    if remembered and Path(remembered).name.lower() == Path(default).name.lower():
        return remembered
    return default


def game_folder_target(path: Path, folders: str) -> Path:
    """Where the file goes: ``folders`` under the chosen file's folder, unless that folder already
    ends with them (any case). Refuses folders that could lead outside (absolute, ``..``)."""
    folders = folders.strip().replace("\\", "/").rstrip("/")
    if not folders:
        return path
    problem = unsafe_name(folders)
    if problem:
        raise ExportError(f"Subfolders {quoted(folders)}: {problem}; it must stay under the chosen folder")
    parts = folders.split("/")
    chosen = path.parent
    tail = [p.lower() for p in chosen.parts[-len(parts):]]
    if tail == [p.lower() for p in parts]:
        return path
    return existing_case(chosen, parts) / path.name


def existing_case(root: Path, parts: list[str]) -> Path:
    """``root`` joined with ``parts``, each part spelled as an existing entry that differs from it only in
    case (``players/Jetfire`` -> ``players/jetfire`` where that folder exists): Quake II's file system
    compares names without case on the platforms it shipped on (Windows, the CD's FAT/ISO names), so
    a game path names that entry, and writing beside it would make a second folder the game never
    reads on Linux. Parts with no such entry are kept as given."""
    current = root
    for part in parts:
        candidate = current / part
        if not candidate.exists() and current.is_dir():
            lower = part.lower()
            try:
                same = sorted(e.name for e in current.iterdir() if e.name.lower() == lower)
            except OSError:
                same = []
            if same:
                candidate = current / same[0]
        current = candidate
    return current


def make_folders(folder: Path) -> list[Path]:
    """Create ``folder`` and every missing folder above it (a game layout is several levels deep); the
    ones created, deepest first (for removal). Raises :class:`ExportError` naming the folder that could
    not be made, after removing the ones it made."""
    missing = []
    current = folder
    while not current.exists() and current != current.parent:
        missing.append(current)
        current = current.parent
    for made, target in enumerate(reversed(missing)):
        try:
            target.mkdir()
        except FileExistsError:
            if not target.is_dir():
                remove_empty(missing[len(missing) - made:])
                raise ExportError(f"cannot create folder {target}: a file of that name is in the way") from None
        except OSError as exc:
            remove_empty(missing[len(missing) - made:])
            raise ExportError(f"cannot create folder {target}: {exc.strerror or exc}") from exc
    return missing


def remove_empty(folders: list[Path]) -> None:
    """Remove folders :func:`make_folders` created, deepest first, if nothing was written in them."""
    for folder in folders:
        try:
            folder.rmdir()
        except OSError:
            return


GAME_SUBFOLDERS = ("models", "players")     # where a game keeps models and skins (the folder part of skin names)
_DRIVE = re.compile(r"^[A-Za-z]:")


def game_location(model_path: Path) -> tuple[Path | None, str]:
    """(game folder, folder part of skin names) implied by the export path, or (None, '')."""
    folder = Path(os.path.abspath(model_path)).parent
    parts = folder.parts
    for i in range(len(parts) - 1, 0, -1):
        if parts[i].lower() in GAME_SUBFOLDERS:
            return Path(*parts[:i]), "/".join(parts[i:])
    return None, ""


def skin_folder(model_path: Path, skin_path: str) -> str:
    """The folder part of new skin names: *Skin Path* if set, else the one the export path implies."""
    given = "/".join(p for p in re.split(r"[\\/]", skin_path.strip()) if p not in ("", "."))
    return given or game_location(model_path)[1]
