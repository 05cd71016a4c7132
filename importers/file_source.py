"""Where a model and the files it names come from: a loose file, or a member of a game archive.

Importers read the model's bytes and look up its skins, textures and weapon models through a
:class:`ModelSource`, never through the disk directly, so the same code builds
``players/male/tris.md2`` from a folder or from ``baseq2/pak0.pak`` (nothing is extracted).

- :class:`LooseSource` keeps the loose-file rules of :mod:`..formats.archives.skin_lookup` exactly; when a stored skin
  name is not found on disk it also asks the archives of the game folder the model sits in
  (``formats/archives/game_folder.py``: a loose ``baseq2/models/x/tris.md2`` gets its skin from
  ``baseq2/pak0.pak``).
- :class:`ArchiveSource` is a member of an opened archive. Files it names are looked up in the game
  folder the archive sits in (its archives, this one among them, and its loose files, in the engine's
  order: what the game would show), with the same rules as for loose files: beside the model, then the
  stored path from the game folder's root (member names are game paths), any case, the other image
  extensions.
"""
from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path, PurePosixPath

import numpy as np

import bpy

from ..common.contract import ARCHIVE_MEMBER, ARCHIVE_PATH, SOURCE_FILE
from ..common.disk_names import storable_path
from ..common.skin_images import load_skin_image, skin_image_from_data
from ..formats.archives.archive import Archive, open_archive
from ..formats.archives.game_folder import GameFolder
from ..formats.archives.game_palette import PaletteChoice, choose_palette, loose_palette
from ..formats.archives.skin_lookup import (
    describe_texture_search,
    find_own_skins,
    find_sized_skin,
    find_skin,
    find_texture,
    own_skins_among,
    sized_skin_among,
    skin_name_parts,
    stored_path_candidates,
    texture_candidates,
    unsafe_skin_name,
)
from ..formats.errors import FormatError
from ..formats.images.image_size import image_size_of
from ..formats.message_text import quoted


def member_label(archive: Path, member: str) -> str:
    """How messages name a member: ``/games/quake2/baseq2/pak0.pak:players/male/tris.md2``."""
    return f"{archive}:{member}"


@dataclass(frozen=True)
class FoundFile:
    """A file found for a model: loose (``path``) or an archive member (``archive``, ``member``)."""
    name: str                                   # its own name: grunt.pcx
    where: str                                  # for messages and ``image["source_path"]``
    read: Callable[[], bytes] = field(compare=False, repr=False)
    path: Path | None = None
    archive: Path | None = None
    member: str = ""


@dataclass
class SkinFound:
    """The skin a stored name refers to (None if not found or refused) and what the user should hear:
    ``warning`` a miss, a refusal or a substitute; ``note`` where a skin found elsewhere came from."""
    file: FoundFile | None
    warning: str | None = None
    note: str | None = None


@dataclass
class OwnFound:
    """Images beside the model that belong to it (see :func:`..formats.archives.skin_lookup.find_own_skins`)."""
    files: list[FoundFile]
    reason: str


def loose_file(path: Path) -> FoundFile:
    return FoundFile(path.name, str(path), path.read_bytes, path=path)


class ModelSource:
    """A model file and the files beside it. ``label`` prefixes the import's messages."""
    name: str
    where: str
    archive: Path | None = None
    member: str = ""

    @property
    def stem(self) -> str:
        return PurePosixPath(self.name).stem

    @property
    def label(self) -> str:
        return self.name

    def read(self) -> bytes:
        raise NotImplementedError

    def skin(self, skin_name: str) -> SkinFound:
        raise NotImplementedError

    def own_skins(self, width: int = 0, height: int = 0) -> OwnFound | None:
        """The model's own images by name (:func:`..formats.archives.skin_lookup.find_own_skins`); beside a loose model,
        then the looser rules that take an image only at the header's skin size ``width`` x ``height``
        (:func:`..formats.archives.skin_lookup.find_sized_skin`)."""
        raise NotImplementedError

    def siblings(self, keep, exclude: tuple[str, ...] = ()) -> list[ModelSource]:
        """The other files of the model's folder whose lower-case file name ``keep(name)`` accepts, by name
        (``exclude``: paths or members imported anyway), as sources (a Quake II player's weapon models)."""
        raise NotImplementedError

    def texture(self, stored: str) -> FoundFile | None:
        raise NotImplementedError

    def texture_search(self, stored: str) -> str:
        raise NotImplementedError

    def palette(self, rapo: bool) -> PaletteChoice:
        """The palette its paletted skins mean (:func:`...formats.archives.game_palette.choose_palette`)."""
        raise NotImplementedError


def as_source(model: Path | str | ModelSource) -> ModelSource:
    return model if isinstance(model, ModelSource) else LooseSource(Path(model))


class LooseSource(ModelSource):
    """A model file on disk; the lookups of :mod:`..formats.archives.skin_lookup`, then its game folder's archives."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.name = self.path.name
        self.where = str(self.path)

    def read(self) -> bytes:
        return self.path.read_bytes()

    def skin(self, skin_name: str) -> SkinFound:
        """:func:`..formats.archives.skin_lookup.find_skin` on disk; if it finds nothing, the stored path in the archives
        of the game folder the model sits in (their loose files were searched already)."""
        lookup = find_skin(self.path, skin_name)
        if lookup.path is not None:
            return SkinFound(loose_file(lookup.path), lookup.warning)
        if unsafe_skin_name(skin_name.strip()) is None:
            try:
                game = GameFolder.around(self.path)
            except (FormatError, OSError):
                game = None
            if game is not None:
                with game:
                    found = _stored_path(GameFiles(None, game), skin_name)
                if found is not None and found.archive is not None:
                    other = found.name.lower() != _base(skin_name).lower()
                    return SkinFound(found, f"skin {quoted(skin_name)} not found as stored; using {found.name}" if other
                                     else None, f"skin {quoted(skin_name)} found in {found.where}")
        return SkinFound(None, lookup.warning)

    def own_skins(self, width: int = 0, height: int = 0) -> OwnFound | None:
        own = find_own_skins(self.path) or find_sized_skin(self.path, width, height)
        return None if own is None else OwnFound([loose_file(p) for p in own.paths], own.reason)

    def siblings(self, keep, exclude: tuple[str, ...] = ()) -> list[ModelSource]:
        return [LooseSource(p) for p in sibling_paths(self.path, keep, exclude)]

    def texture(self, stored: str) -> FoundFile | None:
        found = find_texture(self.path.parent, stored)
        return None if found is None else loose_file(found)

    def texture_search(self, stored: str) -> str:
        return describe_texture_search(self.path.parent, stored)

    def palette(self, rapo: bool) -> PaletteChoice:
        return loose_palette(self.path, rapo)


def sibling_paths(path: Path, keep, exclude: tuple[str, ...] = ()) -> list[Path]:
    """The files beside ``path`` whose lower-case name ``keep`` accepts, by name (not ``path``, not ``exclude``)."""
    skip = {str(Path(p).resolve()) for p in exclude} | {str(path.resolve())}
    try:
        entries = sorted(path.parent.iterdir())
    except OSError:
        return []
    return [p for p in entries if p.is_file() and keep(p.name.lower()) and str(p.resolve()) not in skip]


def _base(skin_name: str) -> str:
    parts = skin_name_parts(skin_name)
    return parts[-1] if parts else ""


class GameFiles:
    """The files a member model reaches: those of the game folder its archive sits in, in the engine's
    order (the archive is one of the folder's archives; without a game folder, the archive alone).
    Names compare case-insensitively; the archives' folder listings are built once."""

    def __init__(self, archive: Archive | None, game: GameFolder | None) -> None:
        self.archive, self.game = archive, game
        self._folders: dict[str, dict[str, tuple[str, Path | None, float]]] | None = None

    def _found(self, name: str, archive_path: Path | None, root: Path | None = None) -> FoundFile:
        if archive_path is None and self.game is not None:
            path = (root or self.game.root) / name
            return FoundFile(PurePosixPath(name).name, str(path), path.read_bytes, path=path)
        if self.archive is not None and archive_path == self.archive.path:
            reader = self.archive.read
        else:
            reader = partial(_read_member, archive_path)
        return FoundFile(PurePosixPath(name).name, member_label(archive_path, name), partial(reader, name),
                         archive=archive_path, member=name)

    def find(self, name: str) -> FoundFile | None:
        if self.game is not None:
            found = self.game.find(name)
            if found is not None:
                return self._found(found.name, found.archive, found.root)
        if self.archive is not None and not self._in_game():
            member = self.archive.find(name)
            if member is not None:
                return self._found(member.name, self.archive.path)
        return None

    def _in_game(self) -> bool:
        """True when the own archive is one of the game folder's (so the folder's order covers it)."""
        if self.game is None or self.archive is None:
            return False
        own = Path(os.path.abspath(self.archive.path)).resolve()
        return any(Path(p).resolve() == own for p in self.game.archive_paths)

    def folder(self, folder: str) -> dict[str, FoundFile]:
        """Lower-cased base name -> file, for the files directly in ``folder`` ('' = the root): the game
        folder's archives in search order and that one loose folder (last, or first where the folder
        reads loose files first); nothing is walked."""
        if self._folders is None:
            self._folders = {}
            for rank, archive in self._archives():
                for member in archive.members():
                    parent, _, base = member.name.rpartition("/")
                    entry = (member.name, archive.path, rank)
                    self._folders.setdefault(parent.lower(), {}).setdefault(base.lower(), entry)
        listing = dict(self._folders.get(folder.lower(), {}))
        if self.game is not None:
            loose_rank = 0.5 if self.game.loose_first else float("inf")
            for name in _loose_folder(self.game.root, folder):
                base = name.rpartition("/")[2].lower()
                if base not in listing or listing[base][2] > loose_rank:
                    listing[base] = (name, None, loose_rank)
        return {base: self._found(name, where) for base, (name, where, _) in listing.items()}

    def _archives(self) -> list[tuple[float, Archive]]:
        """(rank, archive) in search order: the game folder's (1, 2, ...), then the own archive if it
        is not one of them."""
        ranked = []
        if self.game is not None:
            opened = [self.game.archive(path) for path in self.game.archive_paths]
            ranked += [(1.0 + i, a) for i, a in enumerate(opened) if a is not None]
        if self.archive is not None and not self._in_game():
            ranked.append((1.0 + len(ranked), self.archive))
        return ranked


def _loose_folder(root: Path, folder: str) -> list[str]:
    """The files directly in ``root/folder`` (each part matched without case), as game paths."""
    current, parts = root, []
    for part in [p for p in folder.split("/") if p]:
        try:
            match = next((e.name for e in sorted(os.scandir(current), key=lambda e: e.name)
                          if e.name.lower() == part.lower() and e.is_dir()), None)
        except OSError:
            return []
        if match is None:
            return []
        current, parts = current / match, parts + [match]
    try:
        with os.scandir(current) as entries:
            return sorted("/".join(parts + [e.name]) for e in entries if e.is_file())
    except OSError:
        return []


def _read_member(archive: Path, name: str) -> bytes:
    """One member of another archive of the game folder, opened for this read only."""
    with open_archive(archive) as opened:
        return opened.read(name)


def _stored_path(files: GameFiles, skin_name: str, beside: str | None = None) -> FoundFile | None:
    """A stored skin name looked up as :func:`..formats.archives.skin_lookup.find_skin` does on disk: beside the model
    (folder ``beside``), then the stored path from the game folder's root; any case, other extensions."""
    for name in stored_path_candidates(skin_name, beside):
        found = files.find(name)
        if found is not None:
            return found
    return None


class ArchiveSource(ModelSource):
    """A member of an opened archive; ``game`` is the game folder the archive sits in (or None)."""

    def __init__(self, archive: Archive, member: str, game: GameFolder | None = None,
                 files: GameFiles | None = None, found: FoundFile | None = None) -> None:
        self.files = files if files is not None else GameFiles(archive, game)
        self.game = game
        self.member = member
        self.archive = Path(found.archive if found is not None else archive.path)
        self.name = PurePosixPath(member).name
        self.where = member_label(self.archive, member)
        self.folder = member.rpartition("/")[0]
        self._read = found.read if found is not None else (lambda: archive.read(member))

    @property
    def label(self) -> str:
        return self.member

    def read(self) -> bytes:
        return self._read()

    def skin(self, skin_name: str) -> SkinFound:
        refusal = unsafe_skin_name(skin_name.strip())
        if refusal is not None:
            return SkinFound(None, refusal)
        found = _stored_path(self.files, skin_name, self.folder)
        if found is None:
            return SkinFound(None, f"skin {quoted(skin_name)} not found in {self.archive.name}"
                                   f"{' or its game folder' if self.game is not None else ''}")
        if found.name.lower() != _base(skin_name).lower():
            return SkinFound(found, f"skin {quoted(skin_name)} not found as stored; using {found.name}")
        return SkinFound(found)

    def own_skins(self, width: int = 0, height: int = 0) -> OwnFound | None:
        listing = self.files.folder(self.folder)
        names = sorted(f.name for f in listing.values())
        own = own_skins_among(self.name, names)
        if own is not None:
            return OwnFound([listing[n.lower()] for n in own[0]], own[1])
        sized = sized_skin_among(self.name, PurePosixPath(self.folder).name, names,
                                 lambda n: image_size_of(listing[n.lower()].read(), n), width, height)
        return None if sized is None else OwnFound([listing[sized[0].lower()]], sized[1])

    def siblings(self, keep, exclude: tuple[str, ...] = ()) -> list[ModelSource]:
        """The files of the member's folder, in the archive and then the game folder (``exclude``: members)."""
        skip = {e.lower() for e in exclude} | {self.member.lower()}
        found = []
        for base, file in sorted(self.files.folder(self.folder).items()):
            if keep(base) and file.member.lower() not in skip:
                found.append(LooseSource(file.path) if file.path is not None
                             else ArchiveSource(None, file.member, self.game, self.files, file))
        return found

    def texture(self, stored: str) -> FoundFile | None:
        """As :func:`..formats.archives.skin_lookup.find_texture`: the relative path under the model's folder, else the bare
        name there; nothing outside the model's folder."""
        home = [p for p in self.folder.split("/") if p]
        for parts in texture_candidates(stored):
            folder = list(home)
            for part in parts:
                if part != "..":
                    folder.append(part)
                elif folder:
                    folder.pop()
            if folder[:len(home)] != home or len(folder) <= len(home):
                continue
            found = self.files.find("/".join(folder))
            if found is not None:
                return found
        return None

    def texture_search(self, stored: str) -> str:
        return describe_texture_search(member_label(self.archive, self.folder + "/"), stored)

    def palette(self, rapo: bool) -> PaletteChoice:
        return choose_palette(self.game, self.files.archive, rapo)


def load_found_image(found: FoundFile, palette: np.ndarray | None = None,
                     transparent: int | None = None) -> bpy.types.Image:
    """The packed image of a found file: read from disk as before for a loose file, from memory for a
    member (``transparent``: a PCX index shown with alpha 0). Raises FormatError (``ArchiveError`` for
    a broken member) or OSError."""
    if found.path is not None:
        return load_skin_image(found.path, palette, transparent)
    return skin_image_from_data(found.name, found.read(), found.where, palette, found.archive, found.member,
                                transparent)


def remember_source(obj: bpy.types.Object, source: ModelSource) -> None:
    """An object read from an archive keeps the archive and its member name, one read from a loose file
    that file's full path (see contract)."""
    if source.archive is not None:
        obj[ARCHIVE_PATH] = str(source.archive)
        obj[ARCHIVE_MEMBER] = source.member
    elif isinstance(source, LooseSource):
        obj[SOURCE_FILE] = storable_path(os.path.abspath(source.path))
