"""``check --profile q2-player FOLDER``: each Quake II player folder (one holding ``tris.md2``) against
the player conventions of :mod:`..formats.md2.player`, one line per deviation (no Blender needed).

Deviations are warnings, a model that cannot be read is an error; ``--fail-on`` picks which make the
exit status 1, as for the plain ``check``.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

from ..formats.errors import FormatError
from ..formats.md2.codec import parse_md2
from ..formats.md2.player import BODY_FILE, PlayerPart, is_weapon_name, player_deviations
from ..importers.skin_lookup import find_skin


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


def _part(path: Path, load_skins: bool) -> PlayerPart:
    model = parse_md2(path.read_bytes())
    missing = [s for s in dict.fromkeys(model.skins) if load_skins and find_skin(path, s).path is None]
    return PlayerPart(path.name, list(model.frame_names), list(model.skins), missing)


def check_player(folder: Path, load_skins: bool = True) -> tuple[list[str], list[str]]:
    """(deviations, errors) of the player in ``folder``."""
    models = sorted((p for p in folder.iterdir() if p.suffix.lower() == ".md2" and p.is_file()),
                    key=lambda p: p.name.lower())
    errors: list[str] = []
    body, weapons = None, []
    for path in models:
        name = path.name.lower()
        if name != BODY_FILE and not is_weapon_name(name):
            continue
        try:
            part = _part(path, load_skins)
        except (FormatError, OSError) as exc:
            errors.append(f"{path.name}: cannot be read: {exc}")
            continue
        if name == BODY_FILE:
            body = part
        else:
            weapons.append(part)
    if body is None and errors:
        return [], errors
    return player_deviations(body, weapons), errors


def run_player_check(args, prog: str) -> int:
    """The ``check --profile q2-player`` command; the exit status."""
    folders, missing = player_folders(args.inputs)
    for text in missing:
        print(f"{prog} check: {text}", file=sys.stderr)
    if not folders:
        return 2
    failing = {"warning": {"warning", "error"}, "error": {"error"}}[args.fail_on]
    reports = []
    for folder in folders:
        deviations, errors = check_player(folder, load_skins=not args.no_skins)
        status = "error" if errors else "warning" if deviations else "clean"
        reports.append({"folder": str(folder), "status": status, "errors": errors, "deviations": deviations})
        if not args.json and not args.quiet:
            for line in errors:
                print(f"{folder}: error: {line}")
            for line in deviations:
                print(f"{folder}: warning: {line}")
    counts = {s: sum(r["status"] == s for r in reports) for s in ("clean", "warning", "error")}
    if args.json:
        json.dump({"profile": "q2-player", "players": reports,
                   "summary": {"players": len(reports), **counts, "missing": missing}}, sys.stdout, indent=2)
        print()
    else:
        print(f"checked {len(reports)} Quake II player(s): {counts['clean']} conform, "
              f"{counts['warning']} with deviations, {counts['error']} with errors")
    return 1 if missing or any(r["status"] in failing for r in reports) else 0
