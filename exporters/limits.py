"""Engine limits, checked before anything is written: one message shape for every exporter
(``2601 vertices, 553 over the limit of 2048``; names that do not fit their field with its NUL or are
not Latin-1), each problem said once (names that are too long for the same reason in one message),
at most five problems named in the refusal."""
from __future__ import annotations

from ..formats.binary import name_length_problem
from ..formats.message_text import quoted
from .export_error import ExportError

SHOWN_NAMES = 3       # names quoted in a message about many


def over_limits(counts: tuple[tuple[str, int, int], ...], limit_text: str = "the limit") -> list[str]:
    """``(what, count, limit)`` rows whose count is over the limit, as messages."""
    return [f"{count} {what}, {count - limit} over {limit_text} of {limit}" for what, count, limit in counts
            if count > limit]


def name_problems(what: str, names: list[str | None], size: int, fix: str = "") -> list[str]:
    """Why new or changed ``names`` (None: written back from the file's own field) cannot be stored in a
    ``size``-byte field: too long to leave the NUL, or characters outside Latin-1. Several names with the
    same problem make one message; ``fix`` (e.g. the option that shortens them) ends it."""
    too_long, not_latin = [], []
    for name in dict.fromkeys(n for n in names if n is not None):
        if name_length_problem(what, name, size):
            too_long.append(name)
        try:
            name.encode("latin-1")
        except UnicodeEncodeError:
            not_latin.append(name)
    problems = []
    if len(too_long) == 1:
        problems.append(name_length_problem(what, too_long[0], size) + (f"; {fix}" if fix else ""))
    elif too_long:
        lengths = [len(n.encode("latin-1", "replace")) for n in too_long]
        shown = ", ".join(f"{quoted(n)} ({length} characters)" for n, length in zip(too_long[:SHOWN_NAMES], lengths))
        more = f" and {len(too_long) - SHOWN_NAMES} more" if len(too_long) > SHOWN_NAMES else ""
        problems.append(f"{len(too_long)} {what}s are longer than the limit of {size - 1} characters (a new or "
                        f"changed name leaves the last of the field's {size} bytes for the NUL that ends it): "
                        f"{shown}{more}" + (f"; {fix}" if fix else ""))
    if not_latin:
        shown = ", ".join(quoted(n) for n in not_latin[:SHOWN_NAMES])
        more = f" and {len(not_latin) - SHOWN_NAMES} more" if len(not_latin) > SHOWN_NAMES else ""
        problems.append(f"{what} {shown}{more} {'has' if len(not_latin) == 1 else 'have'} characters that "
                        "cannot be stored (Latin-1 only)")
    return problems


def refuse(prefix: str, problems: list[str]) -> None:
    """Raise the export's refusal (``prefix`` + the first five different problems) if there are any."""
    problems = list(dict.fromkeys(problems))
    if problems:
        raise ExportError(prefix + "; ".join(problems[:5])
                          + (f" (and {len(problems) - 5} more)" if len(problems) > 5 else ""))
