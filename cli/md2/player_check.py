"""``check --profile q2-player FOLDER`` (the MD2 row's ``check_profile``): each Quake II player folder (one holding ``tris.md2``) against
the player conventions of :mod:`..formats.md2.player`, one line per deviation (no Blender needed):
frames, skins, and (unless ``--no-skins``) each player skin without its menu icon ``<skin>_i.pcx``.
An archive (``pak0.pak``, or ``pak0.pak:players/male`` for one folder) is checked the same way over
its members, skins looked up in its game folder in the engine's order.

Deviations are warnings, a model that cannot be read is an error; ``--fail-on`` picks which make the
exit status 1, as for the plain ``check``.
"""
from __future__ import annotations

from collections.abc import Callable
from pathlib import Path, PurePosixPath

from ...formats.archives.archive import ArchiveError, open_archive
from ...formats.archives.game_folder import GameFolder
from ...formats.archives.skin_lookup import DEFAULT_EXTENSIONS, candidate_names, find_skin, skin_name_parts
from ...formats.errors import FormatError
from ...formats.md2.codec import parse_md2
from ...formats.md2.player import BODY_FILE, PlayerPart, is_weapon_name, player_deviations
from ..archives import ArchiveInput, member_label, split_inputs
from ..player_report import report_players

PROFILE = "q2-player"
HELP = ("q2-player: check each folder holding a tris.md2 as a Quake II player (the 198 standard frames, weapon "
        "models with as many frames, skins, name limits)")
Source = tuple[str, Callable[[], bytes], Callable[[str], bool]]   # (file name, read, does a skin exist)


def player_folders(inputs: list[str]) -> tuple[list[Path], list[str]]:
    """Folders holding a ``tris.md2`` (an input folder itself or any folder below it; a ``tris.md2``
    given as a file stands for its folder), and the inputs that name none."""
    folders: list[Path] = []
    missing: list[str] = []
    for text in inputs:
        path = Path(text)
        if path.is_file() and path.name.lower() == BODY_FILE:
            found = [path.parent]
        elif path.is_dir():
            found = sorted({p.parent for p in path.rglob("*") if p.name.lower() == BODY_FILE and p.is_file()})
        else:
            missing.append(f"{text}: no such file or directory" if not path.exists()
                           else f"{text}: not a player folder or {BODY_FILE}")
            continue
        if not found:
            missing.append(f"{text}: no {BODY_FILE} in this folder or below it")
        folders += [f for f in found if f not in folders]
    return folders, missing


def _part(name: str, data: bytes, skin_exists: Callable[[str], bool], load_skins: bool) -> PlayerPart:
    model = parse_md2(data)
    missing = [s for s in dict.fromkeys(model.skins) if load_skins and not skin_exists(s)]
    return PlayerPart(name, list(model.frame_names), list(model.skins), missing)


def check_player(folder: Path, load_skins: bool = True) -> tuple[list[str], list[str]]:
    """(deviations, errors) of the player in ``folder``."""
    models = sorted((p for p in folder.iterdir() if p.suffix.lower() == ".md2" and p.is_file()),
                    key=lambda p: p.name.lower())
    files = sorted((p.name for p in folder.iterdir() if p.is_file()), key=str.lower)
    return check_sources([(p.name, p.read_bytes, lambda s, p=p: find_skin(p, s).path is not None)
                          for p in models], load_skins, files)


def check_sources(models: list[Source], load_skins: bool = True,
                  files: list[str] | None = None) -> tuple[list[str], list[str]]:
    """(deviations, errors) of the player made of ``models`` (the ``.md2`` files of its folder);
    ``files``: the names of the files in its folder, to check each skin's icon (with ``load_skins``)."""
    errors: list[str] = []
    body, weapons = None, []
    for name, read, skin_exists in models:
        lower = name.lower()
        if lower != BODY_FILE and not is_weapon_name(lower):
            continue
        try:
            part = _part(name, read(), skin_exists, load_skins)
        except (FormatError, OSError) as exc:
            errors.append(f"{name}: cannot be read: {exc}")
            continue
        if lower == BODY_FILE:
            body = part
        else:
            weapons.append(part)
    if body is None and errors:
        return [], errors
    return player_deviations(body, weapons, files if load_skins else None), errors


def archive_players(item: ArchiveInput) -> tuple[list[tuple[str, list[Source], list[str]]], list[str]]:
    """The player folders of an archive argument (all of them, or those at or below ``ARCHIVE:FOLDER``
    or ``ARCHIVE:FOLDER/tris.md2``) as (label, models, the file names in that folder in the archive and
    its game folder), and the problems naming none."""
    try:
        archive = open_archive(item.archive)
    except ArchiveError as exc:
        return [], [str(exc)]
    game = GameFolder.around(item.archive)
    names = [m.name for m in archive.members()]
    wanted = (item.member or "").strip("/").lower()
    if wanted.endswith("/" + BODY_FILE) or wanted == BODY_FILE:
        wanted = wanted.rpartition("/")[0]
    folders = sorted({n.rpartition("/")[0] for n in names if PurePosixPath(n).name.lower() == BODY_FILE
                      and (not wanted or n.lower().startswith(wanted + "/"))}, key=str.lower)
    if not folders:
        return [], [f"{item.text}: no {BODY_FILE} in this archive{' folder' if wanted else ''}"]
    seen = names + ([f.name for f in game.files()] if game is not None else [])
    players = []
    for folder in folders:
        models = sorted((n for n in names if n.rpartition("/")[0] == folder and n.lower().endswith(".md2")),
                        key=str.lower)
        files = sorted({PurePosixPath(n).name for n in seen if n.rpartition("/")[0].lower() == folder.lower()},
                       key=str.lower)
        players.append((member_label(item.archive, folder),
                        [(PurePosixPath(n).name, lambda n=n: archive.read(n),
                          lambda s, f=folder: _skin_in_game(archive, game, f, s)) for n in models], files))
    return players, []


def _skin_in_game(archive, game: GameFolder | None, folder: str, skin: str) -> bool:
    """A stored skin name found as the importer finds it: beside the model or at its game path, any
    case, the stored extension or another image one; in the archive, else its game folder."""
    parts = skin_name_parts(skin)
    if not parts:
        return False
    names = candidate_names(parts[-1], DEFAULT_EXTENSIONS)
    for where in dict.fromkeys([folder, "/".join(parts[:-1])]):
        for name in names:
            path = f"{where}/{name}" if where else name
            if archive.find(path) is not None or (game is not None and game.find(path) is not None):
                return True
    return False


def run(args, prog: str) -> int:
    """The ``check --profile q2-player`` command; the exit status."""
    plain, archive_items = split_inputs(args.inputs)
    folders, missing = player_folders(plain) if plain else ([], [])
    players: list[tuple[str, Callable[[], tuple[list[str], list[str]]]]] = [
        (str(f), lambda f=f: check_player(f, load_skins=not args.no_skins)) for f in folders]
    for item in archive_items:
        found, problems = archive_players(item)
        missing += problems
        players += [(label, lambda m=models, f=files: check_sources(m, not args.no_skins, f))
                    for label, models, files in found]
    return report_players(args, prog, PROFILE, "Quake II player", players, missing)
