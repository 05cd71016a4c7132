"""What every ``check --profile <game>-player`` prints: one line per error and deviation of each player
folder, then the summary (or the JSON report), and the exit status (``--fail-on`` picks which
statuses make it 1). Each format's profile finds its players and checks them; this reports them."""
from __future__ import annotations

import json
import sys
from typing import Callable

Check = Callable[[], tuple[list[str], list[str]]]     # a player's (deviations, errors)


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
