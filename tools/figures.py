"""Every figure the README and the manual state, rendered from the stored outputs of the scripts that measure it.

    python tools/figures.py                      # rewrite every generated block from docs/dev/figures/*.json
    python tools/figures.py --check              # exit 1 naming each block that differs (a hand edit)
    python tools/figures.py tests out/test-logs --total S --lane full|quick
                                                 # out/test-logs/summary.json from a `tools/dev.sh test` run
    python tools/figures.py record NAME FILE     # store a script's JSON output as NAME and render again

A generated block sits between ``<!-- figures:NAME -->`` and ``<!-- /figures:NAME -->`` in ``README.md`` or
``docs/**/*.md``; NAME is a record of ``docs/dev/figures/`` (``NAME.json``), optionally with a view after a
colon (``ci-run:total``). The scripts that measure write their records with :func:`write_record` (``--json
PATH`` in the benchmark and report scripts, ``tools/dev.sh test`` through ``tests``); a record says which script
and command made it and on which date, and each block says so too. Standard library only (no Blender).
"""
from __future__ import annotations

import argparse
import datetime
import json
import re
import sys
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parents[1]
STORE = CHECKOUT / "docs" / "dev" / "figures"
BLOCK = re.compile(r"<!-- figures:(?P<name>[\w.:-]+) -->\n(?P<body>.*?)<!-- /figures:(?P=name) -->", re.S)


# ---- records ---------------------------------------------------------------------------------------------------

def write_record(path: str | Path, *, script: str, command: str, headers: list[str], rows: list[list[str]],
                 environment: str = "", notes: list[str] | None = None, date: str | None = None) -> dict:
    """Write one table's record (what :func:`render` reads) to ``path``; returns it."""
    record = {"script": script, "command": command, "date": date or datetime.date.today().isoformat(),
              "environment": environment, "headers": [str(h) for h in headers],
              "rows": [[str(cell) for cell in row] for row in rows], "notes": list(notes or [])}
    Path(path).write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return record


def load(name: str, store: Path = STORE) -> dict:
    path = store / f"{name}.json"
    if not path.is_file():
        raise KeyError(f"no stored figures {name!r} ({path} is missing)")
    return json.loads(path.read_text(encoding="utf-8"))


# ---- a test run's summary (tools/dev.sh test writes out/test-logs/NAME.log and NAME.result) ------------------

PYTEST_LINE = re.compile(r"^=*\s*(?P<counts>(?:\d+ \w+(?:, )?)+) in (?P<seconds>[\d.]+)s\b", re.M)
RESULT_SECONDS = re.compile(r"in (\d+) s\b")


def stage_summary(log: Path) -> dict:
    """One stage of a test run: its name, status line, pytest counts and seconds, from its log and result."""
    result_path = log.with_suffix(".result")
    result = result_path.read_text(encoding="utf-8").strip() if result_path.is_file() else ""
    stage = {"stage": log.stem, "label": result.partition(":")[0] or log.stem, "result": result}
    matches = list(PYTEST_LINE.finditer(log.read_text(encoding="utf-8", errors="replace")))
    if matches:
        for count in matches[-1]["counts"].split(", "):
            number, word = count.split(" ", 1)
            stage[word] = int(number)
    seconds = RESULT_SECONDS.search(result)
    if seconds:
        stage["seconds"] = int(seconds[1])
    return stage


def run_summary(logs: Path, total: int, lane: str, stages: list[str] | None = None,
                     date: str | None = None) -> dict:
    """The machine-readable summary of a `tools/dev.sh test` run from its logs folder (``stages``: the logs of
    this run; default every log there)."""
    names = stages or sorted(log.stem for log in logs.glob("*.log") if log.stem != "roots")
    stages = [stage_summary(logs / f"{name}.log") for name in names if (logs / f"{name}.log").is_file()]
    summary = {"script": "tools/dev.sh", "command": "bash tools/dev.sh test" + (" --quick" if lane == "quick" else ""),
               "date": date or datetime.date.today().isoformat(), "lane": lane, "total_seconds": total,
               "stages": stages, "environment": "", "notes": []}
    roots = logs / "roots.rc"
    if roots.is_file():
        rc, _, seconds = roots.read_text().strip().partition(" ")
        summary["roots_seconds"] = int(seconds) if rc == "0" and seconds.isdigit() else None
    return summary


# ---- rendering -------------------------------------------------------------------------------------------------

def minutes(seconds: int) -> str:
    return f"{seconds // 60} min {seconds % 60} s" if seconds >= 60 else f"{seconds} s"


def source_line(record: dict) -> str:
    parts = [f"`{record['command']}` ({record['script']})", record["date"]]
    if record.get("environment"):
        parts.append(record["environment"])
    return "*Source: " + ", ".join(parts) + ".*"


def table(headers: list[str], rows: list[list[str]]) -> str:
    def numeric(column: int) -> bool:
        cells = [row[column] for row in rows if row[column] not in ("", "-")]
        return bool(cells) and all(re.match(r"^[\d.,x%–\-~ ]+(?:e-?\d+)?[a-zA-Z%]*x?$", c) for c in cells)
    lines = ["| " + " | ".join(headers) + " |",
             "|" + "|".join("---:" if numeric(i) else "---" for i in range(len(headers))) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def counts(stage: dict) -> str:
    words = [f"{stage[w]} {w}" for w in ("passed", "failed", "skipped", "deselected") if stage.get(w)]
    return ", ".join(words)


def render_test_run(record: dict, view: str) -> str:
    total = record["total_seconds"]
    if view == "total":
        whole = next((s for s in record["stages"] if s.get("passed") and s["stage"] == "bpy-5.2"), None)
        tail = f": {counts(whole)} on the newest bpy" if whole and record["lane"] == "quick" else ""
        return f"{minutes(total)} ({total} s) for `{record['command']}` on {record['date']}{tail}.\n"
    rows = [[s.get("label", s["stage"]), counts(s) or "-", str(s["seconds"]) if "seconds" in s else "-"]
            for s in record["stages"]]
    lines = [source_line(record), "", table(["stage", "tests", "seconds"], rows), ""]
    extra = f"; the Debian roots were ready {record['roots_seconds']} s after the start" \
        if record.get("roots_seconds") else ""
    lines.append(f"{total} s ({minutes(total)}) in all{extra}.")
    lines += [f"\n{note}" for note in record.get("notes", [])]
    return "\n".join(lines)


def render(name: str, store: Path = STORE) -> str:
    """The Markdown a block ``<!-- figures:NAME -->`` holds, from the stored record."""
    record_name, _, view = name.partition(":")
    record = load(record_name, store)
    if "stages" in record:
        text = render_test_run(record, view)
        return text if text.endswith("\n") else text + "\n"
    if view == "source":
        return source_line(record) + "\n"
    if view == "inline":    # one row as a phrase: "366 KB size, 1.01 MB unpacked ..." and its source
        cells = ", ".join(f"{cell} {header}" for header, cell in zip(record["headers"][1:], record["rows"][0][1:]))
        return f"{cells} (`{record['command']}`, {record['date']})\n"
    lines = [source_line(record), "", table(record["headers"], record["rows"])]
    lines += [f"\n{note}" for note in record.get("notes", [])]
    return "\n".join(lines) + "\n"


def pages(root: Path = CHECKOUT) -> list[Path]:
    return [root / "README.md", *sorted((root / "docs").rglob("*.md"))]


def rendered(text: str, store: Path = STORE) -> str:
    """``text`` with every generated block rendered again from the store."""
    return BLOCK.sub(lambda m: f"<!-- figures:{m['name']} -->\n{render(m['name'], store)}<!-- /figures:{m['name']} -->",
                     text)


def stale_blocks(root: Path = CHECKOUT, store: Path = STORE) -> list[str]:
    """``page: NAME`` for each block whose text is not what its record renders."""
    stale = []
    for page in pages(root):
        for match in BLOCK.finditer(page.read_text(encoding="utf-8")):
            if match["body"] != render(match["name"], store):
                stale.append(f"{page.relative_to(root)}: {match['name']}")
    return stale


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 where a block differs from its record")
    sub = parser.add_subparsers(dest="command")
    tests = sub.add_parser("tests", help="write LOGS/summary.json from a tools/dev.sh test run")
    tests.add_argument("logs", type=Path)
    tests.add_argument("--total", type=int, required=True, help="the run's seconds in all")
    tests.add_argument("--lane", choices=("full", "quick"), default="full")
    tests.add_argument("--stages", nargs="*", help="the stages of this run (default: every log in LOGS)")
    record = sub.add_parser("record", help="store a script's JSON output as NAME and render the blocks")
    record.add_argument("name")
    record.add_argument("file", type=Path)
    args = parser.parse_args(argv)
    if args.command == "tests":
        summary = run_summary(args.logs, args.total, args.lane, args.stages)
        (args.logs / "summary.json").write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")
        print(f"wrote {args.logs / 'summary.json'} (store it: python tools/figures.py record "
              f"{'quick-run' if args.lane == 'quick' else 'ci-run'} {args.logs / 'summary.json'})")
        return 0
    if args.command == "record":
        data = json.loads(args.file.read_text(encoding="utf-8"))
        (STORE / f"{args.name}.json").write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n",
                                                 encoding="utf-8")
    if args.check:
        stale = stale_blocks()
        for line in stale:
            print(f"{line}: differs from what tools/figures.py renders from docs/dev/figures/")
        return 1 if stale else 0
    for page in pages():
        text = page.read_text(encoding="utf-8")
        new = rendered(text)
        if new != text:
            page.write_text(new, encoding="utf-8")
            print(f"rendered {page.relative_to(CHECKOUT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
