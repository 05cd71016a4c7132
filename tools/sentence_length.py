"""Mean sentence length (words per sentence) of the README and each page of the manual; part of the lint stage.

    python3 tools/sentence_length.py [--limit 25] [ROOT]

Counts prose only: fenced code blocks, tables, headings, pictures, HTML comments (the ``<!-- figures:... -->``
markers) are left out; a link counts as its text and an inline code span as one word. A sentence ends at
``.``, ``!`` or ``?`` before a space, or at the end of a paragraph or list item. Prints one line per page,
longest mean first, and exits 1 when a page a modder reads first (FIRST_READ) is over the limit.
Standard library only.
"""
from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parents[1]
FIRST_READ = ("README.md", "docs/quick-start.md", "docs/install.md", "docs/index.md")
LIMIT = 25.0

FENCE = re.compile(r"^\s*(```|~~~)")
COMMENT = re.compile(r"<!--.*?-->", re.S)
PICTURE = re.compile(r"!\[[^\]]*\]\([^)]*\)")
LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")
CODE = re.compile(r"`[^`]+`")
ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
END = re.compile(r"(?<!\be\.g)(?<!\bi\.e)(?<!\betc)(?<!\bvs)[.!?]+[)\"'*_]*\s+")
WORD = re.compile(r"[\w]")


def paragraphs(text: str) -> list[str]:
    """The page's prose: one string per paragraph or list item, markup reduced to words."""
    text = COMMENT.sub("\n", text)
    blocks, current, fenced = [], [], False

    def close():
        if current:
            blocks.append(" ".join(current))
            current.clear()

    for line in text.splitlines():
        if FENCE.match(line):
            fenced = not fenced
            close()
            continue
        stripped = line.strip()
        if fenced or not stripped or stripped.startswith(("#", "|")):
            close()
            continue
        if ITEM.match(line):
            close()
            line = ITEM.sub("", line)
        current.append(line.strip())
    close()
    cleaned = []
    for block in blocks:
        block = CODE.sub("code", LINK.sub(r"\1", PICTURE.sub(" ", block)))
        if WORD.search(block):
            cleaned.append(block)
    return cleaned


def sentences(text: str) -> list[int]:
    """Word counts of the page's sentences."""
    counts = []
    for block in paragraphs(text):
        for sentence in END.split(block + " "):
            words = [w for w in sentence.split() if WORD.search(w)]
            if words:
                counts.append(len(words))
    return counts


def mean_length(text: str) -> float:
    counts = sentences(text)
    return sum(counts) / len(counts) if counts else 0.0


def pages(root: Path) -> list[Path]:
    found = [root / "README.md"] if (root / "README.md").is_file() else []
    return found + sorted((root / "docs").rglob("*.md"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", nargs="?", type=Path, default=CHECKOUT)
    parser.add_argument("--limit", type=float, default=LIMIT, help=f"words per sentence (default {LIMIT:g})")
    args = parser.parse_args(argv)
    rows = []
    for path in pages(args.root):
        counts = sentences(path.read_text(encoding="utf-8"))
        name = path.relative_to(args.root).as_posix()
        rows.append((sum(counts) / len(counts) if counts else 0.0, len(counts), name))
    over = []
    for mean, count, name in sorted(rows, reverse=True):
        first = name in FIRST_READ
        if first and mean > args.limit:
            over.append(name)
        print(f"{mean:5.1f} words a sentence, {count:4d} sentences  {name}{'  (read first)' if first else ''}")
    missing = [name for name in FIRST_READ if not (args.root / name).is_file()]
    for name in missing:
        print(f"sentence length: {name} is missing (a page a modder reads first)", file=sys.stderr)
    for name in over:
        print(f"sentence length: {name} averages over {args.limit:g} words a sentence: shorten its sentences",
              file=sys.stderr)
    return 1 if over or missing else 0


if __name__ == "__main__":
    sys.exit(main())
