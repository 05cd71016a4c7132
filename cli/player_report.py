"""What every ``check --profile <game>-player`` prints: one line per error and deviation of each player
folder, then the summary (or the JSON report), and the exit status (``--fail-on`` picks which
statuses make it 1). Each format's profile finds its players and checks them; this reports them."""
from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path

Check = Callable[[], tuple[list[str], list[str]]]     # a player's (deviations, errors)


def profile_inputs(inputs: list[str], wanted: Callable[[Path], bool], unit: Callable[[Path], Path],
                   what: str, inside: str) -> tuple[list[Path], list[str]]:
    """What a profile checks: for each input, the ``unit`` of a ``wanted`` file named, or of each
    ``wanted`` file below a named folder, in order, once each; and a line for each input holding
    none (``what`` names the kind of file without an article, ``inside`` what to do with one inside an archive)."""
    units, missing = [], []
    for text in inputs:
        path = Path(text)
        if path.is_file() and wanted(path):
            found = [unit(path)]
        elif path.is_dir():
            found = sorted({unit(p) for p in path.rglob("*") if wanted(p) and p.is_file()})
        else:
            missing.append(f"{text}: neither a folder nor a {what} ({inside}: extract it first)")
            continue
        if not found:
            missing.append(f"{text}: no {what} in this folder or below it; name the folder that holds the models")
        units += [u for u in found if u not in units]
    return units, missing


def report_players(args, prog: str, profile: str, noun: str, players: list[tuple[str, Check]],
                   missing: list[str]) -> int:
    for text in missing:
        print(f"{prog} check: {text}", file=sys.stderr)
    if not players:
        return 2
    failing = {"warning": {"warning", "error"}, "error": {"error"}}[args.fail_on]
    reports = []
    for folder, check in players:
        deviations, errors = check()
        status = "error" if errors else "warning" if deviations else "clean"
        reports.append({"folder": folder, "status": status, "errors": errors, "deviations": deviations})
        if not args.json and not args.quiet:
            for line in errors:
                print(f"{folder}: error: {line}")
            for line in deviations:
                print(f"{folder}: warning: {line}")
    counts = {s: sum(r["status"] == s for r in reports) for s in ("clean", "warning", "error")}
    if args.json:
        json.dump({"profile": profile, "players": reports,
                   "summary": {"players": len(reports), **counts, "missing": missing}}, sys.stdout, indent=2)
        print()
    else:
        print(f"checked {len(reports)} {noun}(s): {counts['clean']} conform, "
              f"{counts['warning']} with deviations, {counts['error']} with errors")
    return 1 if missing or any(r["status"] in failing for r in reports) else 0
