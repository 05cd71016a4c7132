"""``check --profile q3-player INPUT...`` (the MD3 row's ``check_profile``): each Quake III player against what
the game needs to load and draw it (:mod:`...formats.md3.player`): its three parts and their tags,
``animation.cfg`` and its frame ranges, the skin sets and their icons. One line per deviation, no Blender
needed; a part that cannot be read is an error.

Where players are found:

* a loose folder holding ``lower.md3`` (an input folder or any below it; a ``lower.md3`` given stands for
  its folder);
* a ``.pk3`` (or ``.pak``) given: each ``models/players/NAME/`` in it holding ``lower.md3``, checked with
  the files of that folder in the archive;
* a game folder (``baseoa/``) given: its archives as the game sees them together, a later pk3 by name
  overriding an earlier one member by member (:func:`...formats.archives.game_folder.search_archives`;
  ioquake3 ``FS_AddGameDirectory`` sorts a folder's pk3 names and puts each in front of the search path),
  so a patch pk3 that brings a new ``lower.md3`` is checked with the other files the game finds beside it.
"""
from __future__ import annotations

from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path, PurePosixPath

from ...formats.archives.archive import ArchiveError, is_archive_name, member_key, open_archive
from ...formats.archives.game_folder import search_archives
from ...formats.errors import FormatError
from ...formats.md3.animation_cfg import parse_animation_cfg
from ...formats.md3.codec import read_md3
from ...formats.md3.lods import lod_names
from ...formats.md3.player import PARTS, lod_problems, player_problems, skin_image_problems
from ...formats.md3.records import Md3Model
from ...formats.md3.shader_lookup import (
    find_in_folders,
    folder_script_names,
    image_candidates,
    script_key,
    script_shader_names,
    search_folders,
    unsafe_shader,
)
from ...formats.md3.skin_file import parse_skin
from ..player_report import report_players

PROFILE = "q3-player"
HELP = ("q3-player: check each Quake III player (a folder holding lower.md3, or models/players/NAME/ in a pk3 or "
        "in a game folder's pk3s): parts, tags, animation.cfg frame ranges, skin sets, icons, shaders, levels of "
        "detail")
BODY = "lower.md3"
PLAYERS = "models/players/"

Files = dict[str, tuple[str, Callable[[], bytes]]]       # lower-case name -> (name as stored, reader)


def player_folders(inputs: list[str]) -> tuple[list[Path], list[str]]:
    """Loose folders holding a ``lower.md3`` (an input folder or any below it; the file stands for its folder);
    archives and folders without loose players are left to :func:`archive_sets`."""
    folders, missing = [], []
    for text in inputs:
        path = Path(text)
        if path.is_file() and path.name.lower() == BODY:
            found = [path.parent]
        elif path.is_file() and is_archive_name(path):
            continue
        elif path.is_dir():
            found = sorted({p.parent for p in path.rglob("*") if p.name.lower() == BODY and p.is_file()})
            if not found and search_archives(path):
                continue
        else:
            missing.append(f"{text}: not a folder, a {BODY} or a pk3")
            continue
        if not found:
            missing.append(f"{text}: no {BODY} in this folder or below it")
        folders += [f for f in found if f not in folders]
    return folders, missing


def archive_sets(inputs: list[str]) -> list[tuple[str, list[Path]]]:
    """(label, archives highest priority first) for each archive given and each folder holding archives."""
    out = []
    for text in inputs:
        path = Path(text)
        if path.is_file() and is_archive_name(path):
            out.append((str(path), [path]))
        elif path.is_dir() and (archives := search_archives(path)):
            out.append((str(path), archives))
    return out


def archive_players(label: str, archives: list[Path], stack: ExitStack,
                    missing: list[str]) -> list[tuple[str, Files, Callable[[str], bool]]]:
    """Each ``models/players/NAME/`` holding ``lower.md3`` in the archives seen together, with its files and
    whether an image is among the archives' members."""
    seen: dict[str, tuple[str, Callable[[], bytes]]] = {}
    every: set[str] = set()                                 # every member's name: where the images are found
    scripts: set[str] = set()                               # the shaders the archives' scripts define
    for path in archives:                                   # highest priority first: the first of a name wins
        try:
            archive = stack.enter_context(open_archive(path))
        except (ArchiveError, OSError) as exc:
            missing.append(f"{path}: cannot be read: {exc}")
            continue
        for member in archive.members():
            key = member_key(member.name)
            every.add(key)
            if key.startswith("scripts/") and key.endswith(".shader"):
                scripts |= script_shader_names(archive.read(member.name))
            if key.startswith(PLAYERS) and key not in seen:
                seen[key] = (member.name, lambda a=archive, n=member.name: a.read(n))
    folders: dict[str, Files] = {}
    for key, (name, read) in seen.items():
        folder, _, file = key.rpartition("/")
        if folder.count("/") == 2:                          # models/players/NAME/file
            folders.setdefault(folder, {})[file] = (PurePosixPath(name).name, read)
    players = [(f"{label}:{folder}/", files, _in_members(every, scripts)) for folder, files in sorted(folders.items())
               if BODY in files]
    if not players:
        missing.append(f"{label}: no {PLAYERS}NAME/{BODY} in it")
    return players


def check_files(files: Files, has_image: Callable[[str], bool] | None = None) -> tuple[list[str], list[str]]:
    """(deviations, errors) of the player whose folder holds ``files``; ``has_image``: whether the game finds
    an image for a shader name (None: not looked up)."""
    models, errors = {}, []
    for part in PARTS:
        if f"{part}.md3" in files:
            try:
                models[part] = read_md3(files[f"{part}.md3"][1]())
            except (FormatError, OSError) as exc:
                errors.append(f"{part}.md3: cannot be read: {exc}")
    lods: dict[str, Md3Model | None] = {}                    # a level that cannot be read: None, an error
    for part in PARTS:
        for name in lod_names(f"{part}.md3")[1:]:
            if name in files:
                try:
                    lods[name] = read_md3(files[name][1]())
                except (FormatError, OSError) as exc:
                    lods[name] = None
                    errors.append(f"{name}: cannot be read: {exc}")
    cfg = None
    if "animation.cfg" in files:
        try:
            cfg = parse_animation_cfg(files["animation.cfg"][1]())
        except (FormatError, OSError) as exc:
            errors.append(f"animation.cfg: {exc}")
    skins = {}
    for key, (name, read) in sorted(files.items()):
        if key.endswith(".skin"):
            try:
                skins[key] = parse_skin(read())
            except (FormatError, OSError) as exc:
                errors.append(f"{name}: cannot be read: {exc}")
    deviations = player_problems(models, cfg, skins, sorted(name for name, _ in files.values()))
    deviations += lod_problems(models, lods)
    if has_image is not None:
        deviations += skin_image_problems(skins, has_image)
    unreadable = {e.split(":")[0] for e in errors}
    return [d for d in deviations if not any(d.startswith(f"{u} is missing") for u in unreadable)], errors


def check_player(folder: Path) -> tuple[list[str], list[str]]:
    """(deviations, errors) of the player in the loose ``folder``; shader images looked up in the game folder
    it sits in as the importer looks them up (:func:`...formats.md3.shader_lookup.search_folders`)."""
    folders = search_folders(folder / BODY)
    try:
        scripts = folder_script_names(folders)
        return check_files({p.name.lower(): (p.name, p.read_bytes) for p in folder.iterdir() if p.is_file()},
                           lambda shader: script_key(shader) in scripts or find_in_folders(folders, shader) is not None)
    finally:
        for each in folders:
            each.close()


def _in_members(keys: set[str], scripts: set[str]) -> Callable[[str], bool]:
    """Whether a shader is defined by the archives' ``scripts`` or its image is among their members (lower-cased
    game paths) ``keys``."""
    return lambda shader: not unsafe_shader(shader) and (script_key(shader) in scripts or any(
        member_key(c) in keys for c in image_candidates(shader)))


def run(args, prog: str) -> int:
    """The ``check --profile q3-player`` command; the exit status."""
    folders, missing = player_folders(args.inputs)
    with ExitStack() as stack:
        players = [(str(f), lambda f=f: check_player(f)) for f in folders]
        for label, archives in archive_sets(args.inputs):
            players += [(name, lambda files=files, found=found: check_files(files, found))
                        for name, files, found in archive_players(label, archives, stack, missing)]
        return report_players(args, prog, PROFILE, "Quake III player", players, missing)
