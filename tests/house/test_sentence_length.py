"""tools/sentence_length.py, the lint stage's check of the manual's prose: a page a modder reads first over
25 words a sentence fails the stage, one under passes; code, tables, headings and figure markers are not prose."""
from __future__ import annotations

from pathlib import Path

from support.environment import CHECKOUT

from tools import sentence_length

SHORT = "Import a model. Press Space to play it. Export it back.\n"       # 3, 5, 3 words
LONG = ("This sentence goes on and on with one clause after another, naming every option, every engine, "
        "every format and every folder a modder could ever want to know about before the first step. ")


def checkout(tmp_path: Path, pages: dict[str, str] | None = None) -> Path:
    """A checkout holding the pages a modder reads first (short ones unless given) and ``pages``."""
    pages = {**dict.fromkeys(sentence_length.FIRST_READ, SHORT), **(pages or {})}
    for name, text in pages.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return tmp_path


def test_mean_counts_words_of_prose_sentences():
    text = ("# A heading of many many words that is not prose\n\n" + SHORT
            + "\n```\nbash tools/dev.sh demo   # a comment of many words that is not a sentence at all\n```\n\n"
            + "| a | table | row | of | words | that | is | not | prose |\n|---|---|---|---|---|---|---|---|---|\n\n"
            + "<!-- figures:quick-run:total -->\n![a picture with a long caption text](x.png)\n\n"
            + "- See [the install page](docs/install.md), e.g. `python3 -m classic_models info x`.\n")
    assert sentence_length.sentences(text) == [3, 5, 3, 6]      # the list item: See the install page, e.g. code
    assert sentence_length.mean_length(text) == 17 / 4


def test_a_first_read_page_over_the_limit_fails(tmp_path, capsys):
    root = checkout(tmp_path, {"docs/quick-start.md": LONG * 3})
    assert sentence_length.mean_length(LONG) > 25
    assert sentence_length.main([str(root)]) == 1
    assert "docs/quick-start.md averages over 25 words" in capsys.readouterr().err


def test_pages_under_the_limit_pass_and_other_pages_are_only_reported(tmp_path, capsys):
    root = checkout(tmp_path, {"docs/dev/testing.md": LONG})
    assert sentence_length.main([str(root)]) == 0
    out = capsys.readouterr().out
    assert "docs/dev/testing.md" in out and "README.md  (read first)" in out


def test_a_missing_first_read_page_fails(tmp_path, capsys):
    root = checkout(tmp_path)
    (root / "docs" / "index.md").unlink()
    assert sentence_length.main([str(root)]) == 1
    assert "docs/index.md is missing" in capsys.readouterr().err


def test_the_lint_stage_runs_it():
    dev = (CHECKOUT / "tools" / "dev.sh").read_text()
    assert dev.count("tools/sentence_length.py") >= 2      # the test run's lint stage and `dev.sh lint`
