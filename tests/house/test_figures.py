"""Every figure of the README and the manual comes from a script's stored record (tools/figures.py), and no
module cites reference files that are not in the repository. Needs no Blender."""
from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from tools import figures

CHECKOUT = Path(__file__).resolve().parents[2]
LAYERS = ("formats", "common", "importers", "exporters", "ui", "cli", "tools", "tests")


def test_every_generated_block_is_what_its_record_renders():
    assert figures.stale_blocks() == []


def test_the_pages_that_state_run_figures_hold_them_in_generated_blocks():
    names = {page.name: set(re.findall(r"<!-- figures:([\w.:-]+) -->", page.read_text(encoding="utf-8")))
             for page in figures.pages()}
    assert {"ci-run:total", "quick-run:total", "package:inline"} <= names["README.md"]
    assert {"ci-run", "quick-run", "bench-md2-mdl-5.2", "bench-md2-mdl-4.2", "palette", "bench-ms3d-5.2",
            "bench-ms3d-4.2", "fuzz", "package"} <= names["results.md"]
    assert {"archive", "md2-quality", "normals"} <= names["benchmarks.md"]
    # every stored record is shown somewhere, and every record names its script, command and date
    shown = {name.partition(":")[0] for found in names.values() for name in found}
    for path in figures.STORE.glob("*.json"):
        record = json.loads(path.read_text(encoding="utf-8"))
        assert path.stem in shown, path.name
        assert (CHECKOUT / record["script"]).is_file(), (path.name, record["script"])
        assert re.fullmatch(r"\d{4}-\d\d-\d\d", record["date"]) and record["command"], path.name


def test_a_figure_edited_by_hand_is_found(tmp_path):
    root = tmp_path / "checkout"
    (root / "docs" / "dev").mkdir(parents=True)
    shutil.copy(CHECKOUT / "README.md", root / "README.md")
    shutil.copy(CHECKOUT / "docs" / "dev" / "results.md", root / "docs" / "dev" / "results.md")
    assert figures.stale_blocks(root) == []
    page = root / "docs" / "dev" / "results.md"
    # one count of the last CI run's table, whatever the stored run said, changed by one
    text = page.read_text(encoding="utf-8")
    start = text.index("<!-- figures:ci-run -->")
    found = re.compile(r"(\d+) passed").search(text, start)
    edited = f"{int(found.group(1)) + 1} passed"
    page.write_text(text[:found.start()] + edited + text[found.end():])
    assert figures.stale_blocks(root) == ["docs/dev/results.md: ci-run"]
    page.write_text(figures.rendered(page.read_text(encoding="utf-8")))
    assert figures.stale_blocks(root) == []


def test_a_test_runs_logs_become_its_summary(tmp_path):
    """What tools/dev.sh test leaves in out/test-logs: pytest's closing line in NAME.log, the stage's line in
    NAME.result, the roots' exit status and seconds in roots.rc."""
    (tmp_path / "bpy-5.2.log").write_text("..s..\nSKIPPED [1] x\n1659 passed, 7 skipped in 253.12s (0:04:13)\n")
    (tmp_path / "bpy-5.2.result").write_text("Blender 5.2.3 LTS: passed in 253 s\n")
    (tmp_path / "inside-4.3.log").write_text("655 passed, 65 skipped, 946 deselected in 61.05s (0:01:01)\n")
    (tmp_path / "inside-4.3.result").write_text("suite inside Debian's Blender 4.3.x: passed in 65 s\n")
    (tmp_path / "bpy-4.2.log").write_text("5 failed, 1627 passed, 3 skipped in 203.17s (0:03:23)\n")
    (tmp_path / "lint.log").write_text("All checks passed!\n")
    (tmp_path / "lint.result").write_text("lint (ruff): passed in 0 s\n")
    (tmp_path / "roots.rc").write_text("0 107\n")
    summary = figures.run_summary(tmp_path, 761, "full", ["lint", "bpy-5.2", "inside-4.3"], date="2026-11-26")
    assert [s["stage"] for s in summary["stages"]] == ["lint", "bpy-5.2", "inside-4.3"]   # not the old 4.2 log
    lint, wheel, inside = summary["stages"]
    assert (lint.get("passed"), lint["seconds"], lint["label"]) == (None, 0, "lint (ruff)")
    assert (wheel["passed"], wheel["skipped"], wheel["seconds"]) == (1659, 7, 253)
    assert (inside["passed"], inside["skipped"], inside["deselected"], inside["seconds"]) == (655, 65, 946, 65)
    assert summary["roots_seconds"] == 107 and summary["total_seconds"] == 761
    failed = figures.stage_summary(tmp_path / "bpy-4.2.log")
    assert (failed["failed"], failed["passed"], failed["label"]) == (5, 1627, "bpy-4.2")
    store = tmp_path / "store"
    store.mkdir()
    (store / "run.json").write_text(json.dumps(summary))
    text = figures.render("run", store)
    assert "| Blender 5.2.3 LTS | 1659 passed, 7 skipped | 253 |" in text
    assert "761 s (12 min 41 s) in all; the Debian roots were ready 107 s after the start." in text
    assert figures.render("run:total", store) == "12 min 41 s (761 s) for `bash tools/dev.sh test` on 2026-11-26.\n"


def test_a_scripts_record_renders_as_its_table(tmp_path):
    figures.write_record(tmp_path / "bench.json", script="tools/benchmark.py", command="bash tools/dev.sh bench",
                         headers=["case", "import s"], rows=[["faerie.md2", 0.013]], date="2026-11-23",
                         environment="bpy 5.2.3 LTS, best of 3")
    assert figures.render("bench", tmp_path) == (
        "*Source: `bash tools/dev.sh bench` (tools/benchmark.py), 2026-11-23, bpy 5.2.3 LTS, best of 3.*\n\n"
        "| case | import s |\n|---|---:|\n| faerie.md2 | 0.013 |\n")
    with pytest.raises(KeyError, match="missing"):
        figures.render("absent", tmp_path)


CITES_ELSEWHERE = re.compile(r"format-notes|seeds/\d|reference/format|enhanced-models\.md|\.\./shared/\w+/[\w-]+\.md")


def test_no_module_cites_reference_files_outside_the_repository():
    """Docstrings and comments cite docs/dev/format-facts.md or the engine source, which a reader has; the
    corpus and palettes beside the checkout (test data that is not committed) may still be read from."""
    found = []
    for layer in LAYERS:
        for path in sorted((CHECKOUT / layer).rglob("*.py")):
            if path == Path(__file__).resolve():
                continue
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if CITES_ELSEWHERE.search(line):
                    found.append(f"{path.relative_to(CHECKOUT)}:{number}: {line.strip()}")
    assert found == []
