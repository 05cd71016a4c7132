"""The files an ``.md5mesh`` import reads beside the mesh: its ``.md5anim`` files and the paired classic
model, loose or in a game archive (through :mod:`..file_source`, nothing extracted).

- Anims: *Same Name* takes ``<stem>.md5anim`` beside the mesh (the layouts of both re-releases: ironwail
  ``loadMd5Replacement`` and Q2PRO ``MOD_LoadMD5`` open the mesh's path with ``.md5anim``); *Folder*
  every ``.md5anim`` beside it (Red Eclipse keeps several per model, named by what they play); files
  chosen with the mesh in the file browser are taken whatever the setting.
- An ``.md5anim`` imported alone (dropped, chosen or ticked in the Game Archive dialog without its mesh)
  goes onto the mesh beside it whose joints are its own, else onto its own skeleton (:mod:`.anim_mesh`).
- Scales: ``<anim stem>.md5scale`` beside each anim (Q2PRO ``MD5_ParseAnim`` builds its path from the
  anim's; the remaster's ``models/x/md5/tris.md5scale``).
- Classic model: ``<stem>.mdl`` beside the mesh (Quake re-release: ``progs/x.md5mesh`` beside
  ``progs/x.mdl``), else ``<stem>.md2`` one folder up when the mesh sits in a folder ``md5``
  (Quake II remaster: ``models/x/md5/tris.md5mesh`` beside ``models/x/tris.md2``, Q2PRO ``MOD_LoadMD5``).
"""
from __future__ import annotations

import os
from pathlib import Path, PurePosixPath

from ...formats.md5.scale import SCALE_SUFFIX
from ..file_source import ArchiveSource, FoundFile, LooseSource, ModelSource, loose_file

ANIM_SUFFIX = ".md5anim"
MESH_SUFFIX = ".md5mesh"


def folder_files(source: ModelSource, up: int = 0) -> dict[str, FoundFile]:
    """Lower-cased file name -> file, for the files in the mesh's folder (``up`` folders higher)."""
    if isinstance(source, ArchiveSource):
        parts = [p for p in source.folder.split("/") if p]
        if up > len(parts):
            return {}
        return source.files.folder("/".join(parts[:len(parts) - up]))
    if isinstance(source, LooseSource):
        folder = Path(os.path.abspath(source.path)).parent
        for _ in range(up):
            folder = folder.parent
        try:
            with os.scandir(folder) as entries:
                names = sorted(e.name for e in entries if e.is_file())
        except OSError:
            return {}
        return {name.lower(): loose_file(folder / name) for name in names}
    return {}


def anim_files(source: ModelSource, mode: str) -> list[FoundFile]:
    """The ``.md5anim`` files ``mode`` ('STEM', 'FOLDER' or 'NONE') takes beside the mesh, by name."""
    if mode == "NONE":
        return []
    listing = folder_files(source)
    if mode == "STEM":
        found = listing.get((source.stem + ANIM_SUFFIX).lower())
        return [found] if found is not None else []
    return [listing[name] for name in sorted(listing) if name.endswith(ANIM_SUFFIX)]


def scale_file(source: ModelSource, anim: FoundFile,
               listings: dict[str, dict[str, FoundFile]] | None = None) -> FoundFile | None:
    """The ``.md5scale`` of ``anim``'s name beside it, or None. ``listings``: the loose folders already
    listed (folder -> :func:`folder_files`), filled as folders are listed, so that an import of many anims
    lists their folder once."""
    name = PurePosixPath(anim.name).stem + SCALE_SUFFIX
    if anim.path is not None:
        folder = os.path.dirname(os.path.abspath(anim.path))
        listing = listings.get(folder) if listings is not None else None
        if listing is None:
            listing = folder_files(LooseSource(anim.path))
            if listings is not None:
                listings[folder] = listing
        return listing.get(name.lower())
    if isinstance(source, ArchiveSource):
        folder = PurePosixPath(anim.member).parent.as_posix()
        return source.files.folder("" if folder == "." else folder).get(name.lower())
    return None


def classic_model(source: ModelSource) -> FoundFile | None:
    """The paired classic model of the layouts (module docstring), or None."""
    found = folder_files(source).get((source.stem + ".mdl").lower())
    if found is not None:
        return found
    if isinstance(source, ArchiveSource):
        folder_name = PurePosixPath(source.folder).name
    else:
        folder_name = Path(os.path.abspath(getattr(source, "path", "."))).parent.name
    if folder_name.lower() != "md5":
        return None
    return folder_files(source, up=1).get((source.stem + ".md2").lower())


def loose_or_member(source: ModelSource) -> FoundFile:
    """``source`` as a found file (what the anims are)."""
    if isinstance(source, ArchiveSource):
        return FoundFile(source.name, source.where, source.read, archive=source.archive, member=source.member)
    return loose_file(Path(source.path))
