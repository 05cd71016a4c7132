"""``check --profile q3-player FOLDER`` (the MD3 row's ``check_profile``): each Quake III player folder (one
holding ``lower.md3``) against what the game needs to load and draw it (:mod:`...formats.md3.player`):
its three parts and their tags, ``animation.cfg`` and its frame ranges, the skin sets and their icons.
One line per deviation, no Blender needed; a part that cannot be read is an error. Loose folders only
(a player inside a pk3: extract it first, ``list``/``convert`` read archives).
"""
from __future__ import annotations

from pathlib import Path

from ...formats.errors import FormatError
from ...formats.md3.animation_cfg import parse_animation_cfg
from ...formats.md3.codec import read_md3
from ...formats.md3.player import PARTS, player_problems
from ...formats.md3.skin_file import parse_skin
from ..player_report import report_players

PROFILE = "q3-player"
HELP = ("q3-player: check each folder holding a lower.md3 as a Quake III player (parts, tags, animation.cfg "
        "frame ranges, skin sets, icons)")
BODY = "lower.md3"


def player_folders(inputs: list[str]) -> tuple[list[Path], list[str]]:
    """Folders holding a ``lower.md3`` (an input folder or any below it; the file stands for its folder)."""
    folders, missing = [], []
    for text in inputs:
        path = Path(text)
        if path.is_file() and path.name.lower() == BODY:
            found = [path.parent]
        elif path.is_dir():
            found = sorted({p.parent for p in path.rglob("*") if p.name.lower() == BODY and p.is_file()})
        else:
            missing.append(f"{text}: not a folder or {BODY} (a player inside an archive: extract it first)")
            continue
        if not found:
            missing.append(f"{text}: no {BODY} in this folder or below it")
        folders += [f for f in found if f not in folders]
    return folders, missing


def check_player(folder: Path) -> tuple[list[str], list[str]]:
    """(deviations, errors) of the player in ``folder``."""
    files = {p.name.lower(): p for p in folder.iterdir() if p.is_file()}
    models, errors = {}, []
    for part in PARTS:
        if f"{part}.md3" in files:
            try:
                models[part] = read_md3(files[f"{part}.md3"].read_bytes())
            except (FormatError, OSError) as exc:
                errors.append(f"{part}.md3: cannot be read: {exc}")
    cfg = None
    if "animation.cfg" in files:
        try:
            cfg = parse_animation_cfg(files["animation.cfg"].read_bytes())
        except (FormatError, OSError) as exc:
            errors.append(f"animation.cfg: {exc}")
    skins = {}
    for name, path in files.items():
        if name.endswith(".skin"):
            skins[name] = parse_skin(path.read_bytes())
    deviations = player_problems(models, cfg, skins, sorted(p.name for p in files.values()))
    unreadable = {e.split(":")[0] for e in errors}
    return [d for d in deviations if not any(d.startswith(f"{u} is missing") for u in unreadable)], errors


def run(args, prog: str) -> int:
    """The ``check --profile q3-player`` command; the exit status."""
    folders, missing = player_folders(args.inputs)
    return report_players(args, prog, PROFILE, "Quake III player",
                          [(str(f), lambda f=f: check_player(f)) for f in folders], missing)
