"""The corpus manifest (``corpus/MANIFEST.tsv`` beside this module) and where the corpus is: read by
tests/support/environment.py and by tools/corpus.py, which fills the folder. Standard library only: the tool
runs before any venv exists.

The manifest is tab-separated, one row per file: ``format``, ``path`` (under the corpus folder),
``source_repo`` (GitHub ``OWNER/REPO``, or ``debian:PACKAGE=VERSION``), ``source_path`` (in the repository or
package; ``ARCHIVE.pk3:MEMBER`` for a member of a pk3 there), ``commit``, ``size_bytes``, ``sha256``,
``license_note``.
"""
from __future__ import annotations

import csv
import os
from dataclasses import dataclass
from pathlib import Path

MANIFEST = Path(__file__).resolve().with_name("corpus") / "MANIFEST.tsv"


def corpus_dir(checkout: Path, environ=os.environ) -> Path:
    """Where the tests read the corpus: the variable, else ``../shared/corpus`` beside ``checkout`` when there,
    else the checkout's ``.venvs/corpus``."""
    if environ.get("CLASSIC_MODELS_CORPUS"):
        return Path(environ["CLASSIC_MODELS_CORPUS"])
    shared = checkout.parent / "shared" / "corpus"
    return shared if shared.is_dir() else checkout / ".venvs" / "corpus"


@dataclass(frozen=True)
class Row:
    path: str
    source_repo: str
    source_path: str
    commit: str
    size: int
    sha256: str


class CorpusError(Exception):
    """A file is wrong, or a source refused it (exit 1)."""


def read_manifest(path: Path) -> list[Row]:
    """The manifest's rows; a row whose path could leave the corpus folder, or whose size or hash is not one, is
    an error naming its line."""
    rows = []
    with path.open(newline="", encoding="utf-8") as handle:
        for line, record in enumerate(csv.DictReader(handle, delimiter="\t"), start=2):
            try:
                row = Row(record["path"], record["source_repo"], record["source_path"], record["commit"],
                          int(record["size_bytes"]), record["sha256"].lower())
            except (KeyError, TypeError, ValueError):
                raise CorpusError(f"{path}, line {line}: a row needs path, source_repo, source_path, commit, "
                                  "size_bytes (a number) and sha256")
            parts = Path(row.path).parts
            if not parts or Path(row.path).is_absolute() or ".." in parts or len(row.sha256) != 64:
                raise CorpusError(f"{path}, line {line}: the path {row.path!s} must stay inside the corpus folder "
                                  "and the sha256 be 64 hex digits")
            rows.append(row)
    return rows


def size_ok(dest: Path, row: Row) -> bool:
    target = dest / row.path
    return target.is_file() and target.stat().st_size == row.size
