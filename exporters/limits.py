"""Engine limits, checked before anything is written: one message shape for every exporter
(``2601 vertices, 553 over the limit of 2048``; names that do not fit their field with its NUL or are
not Latin-1), at most five problems named in the refusal."""
from __future__ import annotations

from ..formats.binary import name_length_problem
from .export_error import ExportError


def over_limits(counts: tuple[tuple[str, int, int], ...], limit_text: str = "the limit") -> list[str]:
    """``(what, count, limit)`` rows whose count is over the limit, as messages."""
    return [f"{count} {what}, {count - limit} over {limit_text} of {limit}" for what, count, limit in counts
            if count > limit]


def name_problems(what: str, names: list[str | None], size: int) -> list[str]:
    """Why new or changed ``names`` (None: written back from the file's own field) cannot be stored in a
    ``size``-byte field: too long to leave the NUL, or characters outside Latin-1."""
    problems = []
    for name in names:
        if name is None:
            continue
        if problem := name_length_problem(what, name, size):
            problems.append(problem)
        try:
            name.encode("latin-1")
        except UnicodeEncodeError:
            problems.append(f"{what} {name!r} has characters that cannot be stored (Latin-1 only)")
    return problems


def refuse(prefix: str, problems: list[str]) -> None:
    """Raise the export's refusal (``prefix`` + the first five problems) if there are any."""
    if problems:
        raise ExportError(prefix + "; ".join(problems[:5])
                          + (f" (and {len(problems) - 5} more)" if len(problems) > 5 else ""))
