"""One short line per kind of problem, the full list beside it (bpy-free).

A producer that repeats a message per item (a skin per missing file, a line per animation) makes
each one a :class:`Message`: a ``str`` holding the full text, plus the ``kind`` it belongs to (a
template such as ``"tris.md2: {n} skin{s} not found"``) and the ``item`` it names (``a.pcx``).
Plain strings stay their own kind; identical ones are counted. :func:`fold` turns a list into
:class:`Folded` lines: ``tris.md2: 12 skins not found: a.pcx, b.pcx, c.pcx and 9 more``, each
under :data:`LINE_LIMIT` characters, with the full messages it stands for as ``details``.

Blender shows an operator's WARNING and ERROR reports in the popup after a file-browser operator
(``wm_event_system``: the file-select handler sets the reports' print level to RPT_WARNING before
``UI_popup_menu_reports``; elsewhere the level stays RPT_ERROR, ``BKE_reports_init``), never its
INFO reports, and moves every report to the window manager's list the Info editor shows. So
:func:`report_folded` reports each folded line as a WARNING and its details as INFO lines starting
with :data:`DETAIL_MARK`; the bpy module prints reports as ``Warning: ...`` / ``Info: ...`` lines,
from which the command line reads them back (:func:`unfold_reported`). A message longer than the bpy
module prints whole (:data:`REPORT_BYTES`) is reported in pieces, each after the first starting with
:data:`MORE_MARK`, and read back whole.
"""
from __future__ import annotations

import traceback
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import cast

LINE_LIMIT = 100          # characters of a popup line
EXAMPLES = 3              # items a folded line names before "and N more"
DETAIL_MARK = "\u2022 "   # starts an INFO report that is one message of the folded line above it
MORE_MARK = "\u2026 "     # starts an INFO report that goes on with the message above it
REPORT_BYTES = 900        # the most UTF-8 bytes of one report: the bpy module prints a report of over
                          # 1,023 bytes with its prefix cut, ending "... truncated" and no line break


class Message(str):
    """A message for people (its text is the ``str``) that is one ``item`` of a ``kind`` of problem.

    ``kind`` is the folded line's template: ``{n}`` is the count, ``{s}`` is ``s`` for more than one."""
    kind: str
    item: str

    def __new__(cls, text: str, kind: str, item: str) -> Message:
        message = super().__new__(cls, text)
        message.kind, message.item = kind, item
        return message

    def __reduce__(self):          # pickled across the command line's worker processes as what it is
        return Message, (str(self), self.kind, self.item)


def stored_base(name: str) -> str:
    """The file name a stored path ends with (``/`` or ``\\``), as a folded line names its items."""
    return name.replace("\\", "/").rstrip("/").rpartition("/")[2] or name


@dataclass
class Folded:
    """One line for the popup or the terminal, and the full messages it stands for (none when the
    line is the message itself)."""
    line: str
    details: list[str] = field(default_factory=list)


def shorten(text: str, limit: int = LINE_LIMIT) -> str:
    """``text`` cut at a word boundary to at most ``limit`` characters, ending in an ellipsis."""
    if len(text) <= limit:
        return text
    cut = text[:limit - 1]
    space = cut.rfind(" ")
    return (cut[:space] if space > limit // 2 else cut).rstrip(" ,;:") + "\u2026"


def _kind_line(kind: str, items: list[str], limit: int) -> str:
    head = kind.format(n=len(items), s="" if len(items) == 1 else "s")
    unique = list(dict.fromkeys(items))
    for shown in range(min(EXAMPLES, len(unique)), 0, -1):
        more = len(unique) - shown
        line = f"{head}: {', '.join(unique[:shown])}" + (f" and {more} more" if more else "")
        if len(line) <= limit:
            return line
    return shorten(f"{head}: {unique[0]}" + (f" and {len(unique) - 1} more" if len(unique) > 1 else ""), limit)


def fold(messages: Iterable[str], limit: int | None = LINE_LIMIT) -> list[Folded]:
    """One :class:`Folded` per kind (:class:`Message`) or per distinct plain text, in first-seen order;
    ``limit`` None leaves plain texts whole (a terminal wraps them)."""
    groups: dict[tuple[bool, str], list[str]] = {}
    for message in messages:
        kind = getattr(message, "kind", None)
        groups.setdefault((kind is not None, kind if kind is not None else str(message)), []).append(message)
    folded = []
    for (is_kind, key), members in groups.items():
        if is_kind:
            details = list(dict.fromkeys(str(m) for m in members))
            items = [cast(Message, m).item for m in members]
            folded.append(Folded(_kind_line(key, items, limit or LINE_LIMIT), details))
        else:
            line = key if len(members) == 1 else f"{key} ({len(members)} times)"
            short = shorten(line, limit) if limit else line
            folded.append(Folded(short, [] if short == line else [line]))
    return folded


def full_list(folded: Iterable[Folded]) -> list[str]:
    """Every message the folded lines stand for, in order (a line without details is its message)."""
    return [detail for item in folded for detail in (item.details or [item.line])]


def report_folded(report: Callable[[set[str], str], None], messages: Iterable[str], level: str = "WARNING") -> None:
    """Report ``messages`` through an operator's ``report``: each folded line at ``level`` (the popup),
    then its full messages as INFO (the Info editor only)."""
    for item in fold(messages):
        report({level}, item.line)
        for detail in item.details:
            for number, piece in enumerate(_pieces(detail)):
                report({"INFO"}, (MORE_MARK if number else DETAIL_MARK) + piece)


def _pieces(text: str) -> list[str]:
    """``text`` in pieces of at most :data:`REPORT_BYTES` bytes each, cut at a space (which joins them
    again, :func:`unfold_reported`), or within a word only where it has none in the second half."""
    pieces = []
    while len(text.encode()) > REPORT_BYTES:
        cut = len(text.encode()[:REPORT_BYTES].decode(errors="ignore"))
        space = text.rfind(" ", 0, cut)
        if space > cut // 2:
            pieces.append(text[:space])
            text = text[space + 1:]
        else:
            pieces.append(text[:cut])
            text = text[cut:]
    return pieces + [text]


def unfold_reported(lines: Iterable[tuple[str, str]]) -> list[Folded]:
    """The :class:`Folded` lines back from (level, text) reports as Blender printed them: a WARNING
    followed by its :data:`DETAIL_MARK` INFO lines. Other reports are left out."""
    folded: list[Folded] = []
    last: Folded | None = None
    for level, text in lines:
        if level == "WARNING":
            last = Folded(text)
            folded.append(last)
        elif level == "INFO" and text.startswith(DETAIL_MARK) and last is not None:
            last.details.append(text[len(DETAIL_MARK):])
        elif level == "INFO" and text.startswith(MORE_MARK) and last is not None and last.details:
            last.details[-1] += " " + text[len(MORE_MARK):]
        else:
            last = None
    return folded


def over_limit(count: int, what: str, limit: int, source: str) -> list[str]:
    """``["300 joints, over the limit of 256 (Q2PRO MD5_MAX_JOINTS)"]``, or nothing within the limit."""
    return [f"{count} {what}, over the limit of {limit} ({source})"] if count > limit else []


def parts_over(counts: list[int], part: tuple[str, str], what: str, limit: int, source: str) -> list[str]:
    """One line for the parts (``part``: singular, plural) holding more than ``limit`` ``what``:
    ``["2 surfaces with more than 1000 vertices (MD3_MAX_VERTS; the largest has 1500)"]``."""
    over = [c for c in counts if c > limit]
    if not over:
        return []
    return [f"{len(over)} {part[len(over) > 1]} with more than {limit} {what} ({source}; the largest has {max(over)})"]


def describe_bug(exc: BaseException) -> str:
    """``Type: message (at file.py:line)`` for the innermost frame of ``exc``: the one line an operator
    reports for a failure that is a bug rather than bad data."""
    frames = traceback.extract_tb(exc.__traceback__)
    where = f" (at {Path(frames[-1].filename).name}:{frames[-1].lineno})" if frames else ""
    return f"{type(exc).__name__}: {exc}{where}"
