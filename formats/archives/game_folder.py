"""A game folder (``id1/``, ``baseq2/``, ``data1/``, a mod) seen the way the engines search it.

Search order, first match wins (see README "Game archives" for the engine code each rule follows):

1. ``*.pk3`` in name order, the later overriding the earlier (DarkPlaces ``fs.c``
   ``FS_AddGameDirectory``: every pk3 is put in front of the paks; FTE ``engine/common/fs.c``
   registers ``pak`` before ``pk3`` and adds the archives of each format in that order);
2. ``pakN.pak`` by number, a higher number overriding a lower one (Quake ``common.c``
   ``COM_AddGameDirectory``, Quake II ``files.c`` ``FS_AddGameDirectory``: each pak goes in front of
   the search path), then any other ``*.pak`` in name order below them (DarkPlaces, FTE);
3. loose files under the folder, which every archive overrides: Quake (``WinQuake/common.c``) and
   Quake II (``qcommon/files.c``) add the directory before its paks, so each pak lands in front of it.

Raven's Hexen II (``H2MP/code/COMMON.C`` ``COM_AddGameDirectory``, kept by uHexen2) and DarkPlaces
add the directory *after* the archives, so loose files win there: ``loose_first=True`` searches
that way, and it is the default for the Hexen II folders ``data1``, ``portals`` and ``hw``.

A mod folder (a folder beside the base game folder, e.g. ``holyw/`` beside ``baseq2/``) is searched
first, then its base folder (``base``): Quake II ``qcommon/files.c`` ``FS_InitFilesystem`` adds
``baseq2`` and ``FS_SetGamedir`` then adds ``<basedir>/<game>`` in front of it; Quake
``WinQuake/common.c`` ``COM_InitFilesystem`` adds ``id1`` and then, for ``-game``, the mod folder in
front; Hexen II (uHexen2 ``engine/h2shared/quakefs.c`` ``FS_Init``) adds ``data1`` (then ``portals``),
then ``FS_Gamedir`` the ``-game`` folder, whose loose files go above its paks as in ``data1`` (so a mod
beside ``data1`` reads loose files first too). The base folders are ``baseq2``, ``id1`` and ``data1``.

Names compare without case and with ``/``; loose files are found case-insensitively too, so a
model that names ``Skins/Red.PCX`` finds ``skins/red.pcx`` on a case-sensitive file system.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import cast

from .archive import (
    ARCHIVE_SUFFIXES,
    Archive,
    ArchiveError,
    Member,
    is_archive_name,
    member_key,
    open_archive,
    unsafe_name,
)

_NUMBERED_PAK = re.compile(r"^pak(\d+)\.pak$", re.IGNORECASE)
HEXEN2_FOLDERS = ("data1", "portals", "hw")
BASE_FOLDERS = {"baseq2": "Quake II", "id1": "Quake", "data1": "Hexen II"}   # the game each base folder is


def base_folder_beside(folder: Path) -> Path | None:
    """The base game folder a mod ``folder`` sits beside (``quake2/holyw`` -> ``quake2/baseq2``), any case;
    None for a base folder itself or a folder with no base beside it."""
    if folder.name.lower() in BASE_FOLDERS:
        return None
    try:
        with os.scandir(folder.parent) as entries:
            siblings = {e.name.lower(): folder.parent / e.name for e in entries
                        if e.name.lower() in BASE_FOLDERS and _entry_is(e, "dir")}
    except OSError:
        return None
    return next((siblings[name] for name in BASE_FOLDERS if name in siblings), None)


def _archive_named(name: str) -> bool:
    """:func:`.archive.is_archive_name` of a file name, by ``Path.suffix``'s rule (from the last dot, unless
    the name starts or ends there) without making a ``Path`` of every name in a folder."""
    dot = name.rfind(".")
    return 0 < dot < len(name) - 1 and name[dot:].lower() in ARCHIVE_SUFFIXES


def _entry_is(entry: os.DirEntry, kind: str) -> bool:
    """``Path.is_file()`` / ``is_dir()`` of a listed entry (symbolic links followed; False when it cannot tell)."""
    try:
        return entry.is_file() if kind == "file" else entry.is_dir()
    except OSError:
        return False


@dataclass(frozen=True)
class GameFile:
    """A file the game sees: ``archive`` None means a loose file under the folder."""
    name: str
    archive: Path | None
    size: int
    root: Path | None = field(default=None, compare=False)   # the folder holding a loose file (a mod's or its base's)


def search_archives(root: Path) -> list[Path]:
    """The folder's archives, highest priority first."""
    try:
        with os.scandir(root) as entries:
            names = [root / e.name for e in entries if _archive_named(e.name) and _entry_is(e, "file")]
    except OSError:
        return []
    numbered = sorted((p for p in names if _NUMBERED_PAK.match(p.name)),
                      key=lambda p: (int(p.name[3:-4]), p.name))     # pakN.pak
    other_paks = sorted((p for p in names if p.suffix.lower() == ".pak" and not _NUMBERED_PAK.match(p.name)),
                        key=lambda p: p.name.lower())
    pk3s = sorted((p for p in names if p.suffix.lower() == ".pk3"), key=lambda p: p.name.lower())
    lowest_first = other_paks + numbered + pk3s
    return list(reversed(lowest_first))


class GameFolder:
    """Loose files plus archives of one folder, then (``base``) of the base game folder a mod folder
    sits beside; archives open on first use. A context manager."""

    def __init__(self, root: str | os.PathLike, loose_first: bool | None = None,
                 base: GameFolder | None = None) -> None:
        self.root = Path(root)
        self.base = base
        if loose_first is None:
            loose_first = self.root.name.lower() in HEXEN2_FOLDERS or (
                base is not None and base.root.name.lower() == "data1")
        self.loose_first = loose_first
        self.own_archive_paths = search_archives(self.root)
        self.archive_paths: list[Path] = self.own_archive_paths + (base.archive_paths if base is not None else [])
        self.problems: list[ArchiveError] = []
        self._open: dict[Path, Archive | None] = {}
        self._dirs: dict[Path, dict[str, str]] = {}

    @staticmethod
    def with_base(root: str | os.PathLike) -> GameFolder:
        """The folder, with the base game folder beside it when it is a mod folder."""
        base = base_folder_beside(Path(root))
        return GameFolder(root, base=GameFolder(base) if base is not None else None)

    @property
    def game(self) -> str | None:
        """The game the folder belongs to by its name or its base's (``Hexen II`` for ``data1``,
        ``portals``, ``hw`` and mods beside ``data1``), else None."""
        for folder in (self, self.base):
            name = folder.root.name.lower() if folder is not None else ""
            if name in BASE_FOLDERS:
                return BASE_FOLDERS[name]
            if name in HEXEN2_FOLDERS:
                return "Hexen II"
        return None

    def folders(self) -> list[GameFolder]:
        """This folder and its base, in search order."""
        return [self] + ([self.base] if self.base is not None else [])

    def __enter__(self) -> GameFolder:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"GameFolder({str(self.root)!r}, {len(self.archive_paths)} archives)"

    @staticmethod
    def around(path: str | os.PathLike) -> GameFolder | None:
        """The game folder ``path`` sits in: an archive's own folder, else the nearest ancestor that
        holds ``pak*.pak`` or ``*.pk3``, is a base folder (``baseq2``, ``id1``, ``data1``) or sits beside
        one (a mod folder); with its base folder when it is a mod folder. None when there is none."""
        path = Path(path).resolve()
        if is_archive_name(path) and path.is_file():
            return GameFolder.with_base(path.parent)
        for folder in path.parents:
            if search_archives(folder) or folder.name.lower() in BASE_FOLDERS or base_folder_beside(folder):
                return GameFolder.with_base(folder)
        return None

    def archive(self, path: Path) -> Archive | None:
        """The open archive at ``path`` (one of :attr:`archive_paths`), None if it cannot be opened
        (the error goes to :attr:`problems`)."""
        if self.base is not None and path not in self.own_archive_paths and path in self.base.archive_paths:
            opened = self.base.archive(path)
            self.problems += [p for p in self.base.problems if p not in self.problems]
            return opened
        if path not in self._open:
            try:
                self._open[path] = open_archive(path)
            except ArchiveError as exc:
                self._open[path] = None
                self.problems.append(exc)
        return self._open[path]

    def find(self, name: str) -> GameFile | None:
        """The file the engine would load for ``name`` (any case, ``\\`` or ``/``), or None."""
        if unsafe_name(name):
            return None
        if self.loose_first:
            found = self._find_loose(name) or self._find_packed(name)
        else:
            found = self._find_packed(name) or self._find_loose(name)
        return found if found is not None or self.base is None else self.base.find(name)

    def _find_packed(self, name: str) -> GameFile | None:
        for path in self.own_archive_paths:
            archive = self.archive(path)
            member = archive.find(name) if archive else None
            if member is not None:
                return GameFile(member.name, path, member.size)
        return None

    def _find_loose(self, name: str) -> GameFile | None:
        loose = self._loose(name)
        if loose is None:
            return None
        try:
            size = loose.stat().st_size
        except OSError:
            return None
        return GameFile(loose.relative_to(self.root).as_posix(), None, size, self.root)

    def read(self, name: str) -> bytes:
        """The bytes of :meth:`find`'s file; :class:`ArchiveError` naming folder and name if absent."""
        found = self.find(name)
        if found is None:
            raise ArchiveError(self.root, "not in this game folder (archives and loose files)", name)
        if found.archive is not None:
            return cast(Archive, self.archive(found.archive)).read(found.name)     # find() has just opened it
        loose = (found.root or self.root) / found.name
        try:
            return loose.read_bytes()
        except OSError as exc:
            raise ArchiveError(self.root, f"cannot read: {exc.strerror or exc}", found.name) from exc

    def files(self) -> list[GameFile]:
        """The winning entry of every name, sorted by name (a mod folder's over its base's)."""
        if self.base is not None:
            winners = {member_key(f.name): f for f in self.base.files()}
            with GameFolder(self.root, self.loose_first) as own:
                winners.update({member_key(f.name): f for f in own.files()})
            return sorted(winners.values(), key=lambda f: member_key(f.name))
        packed: dict[str, GameFile] = {}
        for path in self.archive_paths:
            archive = self.archive(path)
            if archive is None:
                continue
            for member in archive.members():
                key = member_key(member.name)
                if key not in packed:
                    winner = cast(Member, archive.find(member.name))      # one of its members
                    packed[key] = GameFile(winner.name, path, winner.size)
        loose = self._loose_files()
        first, second = (loose, packed) if self.loose_first else (packed, loose)
        winners = dict(second)
        winners.update(first)
        return sorted(winners.values(), key=lambda f: member_key(f.name))

    def _loose_files(self) -> dict[str, GameFile]:
        winners: dict[str, GameFile] = {}
        archives = {p.resolve() for p in self.archive_paths}
        for dirpath, _dirs, filenames in os.walk(self.root):
            for filename in filenames:
                full = Path(dirpath, filename)
                if full.resolve() in archives:
                    continue
                name = full.relative_to(self.root).as_posix()
                try:
                    size = full.stat().st_size
                except OSError:
                    continue
                winners.setdefault(member_key(name), GameFile(name, None, size, self.root))
        return winners

    def close(self) -> None:
        if self.base is not None:
            self.base.close()
        for archive in self._open.values():
            if archive is not None:
                archive.close()
        self._open.clear()

    def _loose(self, name: str) -> Path | None:
        """``name`` under the root, matching each part without case; None if absent."""
        folder = self.root
        parts = name.replace("\\", "/").split("/")
        for depth, part in enumerate(parts):
            listing = self._listing(folder)
            child = listing.get(part.lower())
            if child is None:
                return None
            found = folder / child
            if depth == len(parts) - 1:
                return found if found.is_file() else None
            if not found.is_dir():
                return None
            folder = found
        return None

    def _listing(self, folder: Path) -> dict[str, str]:
        """Lower-cased name -> the name of the first entry of ``folder`` so named, in the order of its sorted
        paths (a path compares by its ``os.path.normcase``)."""
        if folder not in self._dirs:
            entries: dict[str, str] = {}
            try:
                for child in sorted(os.listdir(folder), key=os.path.normcase):
                    entries.setdefault(child.lower(), child)
            except OSError:
                pass
            self._dirs[folder] = entries
        return self._dirs[folder]
