"""The MD5 text as the engines' tokenizers split it, with the line of every token for error messages.

Rules (QuakeSpasm's ``COM_ParseEx`` in ``Quake/common.c``, which ironwail's MD5 loader
calls through ``COM_Parse``):

- the text ends at its first NUL byte; whitespace is any byte ``<= ' '``; ``//`` starts a comment to the
  end of the line, ``/* */`` a block comment (only where a token would start: ``a//b`` is one word);
- ``"..."`` is one token without its quotes (a joint name, a shader, the commandline);
- ``{ } ( ) ' :`` are tokens by themselves; a word runs to the next whitespace, brace, parenthesis or
  ``'`` (a ``:`` inside a word stays in it).

Q2PRO's ``COM_Parse`` splits at whitespace only (``(1.0`` would be one token there) and FTE's
``COM_ParseOut`` like QuakeSpasm: files that separate every token by a space, as every exporter and the
writer here do, read the same in all of them.

:class:`Md5Text` keeps every token's byte span, so that the writer can give back the text between tokens
(whitespace, comments) and a number's own characters while its value is unchanged (:mod:`.write`).
Numbers are checked as Q2PRO ``MD5_ParseFloat`` / ``MD5_ParseUint`` check them: the whole token must be
a number (ironwail's ``strtod`` would take ``1.5abc`` as 1.5; such text is refused here).
"""
from __future__ import annotations

import bisect
import re
from operator import itemgetter

import numpy as np

from ..errors import FormatError

_GAP = rb"(?:[\x00-\x20]+|//[^\n]*|/\*.*?(?:\*/|\Z))*"
_TOKEN = rb'"[^"]*"?|[{}()\':]|[^\x00-\x20{}()\':"][^\x00-\x20{}()\']*'
_SCAN = re.compile(rb"(" + _GAP + rb")(" + _TOKEN + rb")?", re.S)
_INT_TEXT = rb"[-+]?[0-9]+"
_FLOAT_TEXT = rb"[-+]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?|[-+]?(?:inf|nan)"
_INT = re.compile(_INT_TEXT + rb"\Z")
_FLOAT = re.compile(rb"(?:" + _FLOAT_TEXT + rb")\Z", re.I)
# a column of unquoted tokens (which hold no byte <= ' ') one a line, all numbers: checked in one match
NUMBER_COLUMN = {int: re.compile(rb"(?:" + _INT_TEXT + rb")(?:\n(?:" + _INT_TEXT + rb"))*\Z"),
           float: re.compile(rb"(?:" + _FLOAT_TEXT + rb")(?:\n(?:" + _FLOAT_TEXT + rb"))*\Z", re.I)}
PUNCTUATION = (b"{", b"}", b"(", b")", b"'", b":")


def text_encoding(data: bytes) -> str:
    """How the file's names are read: UTF-8 when the whole text is valid UTF-8, else cp1252 (a French
    3ds Max wrote ``"01 - Par d\xe9faut"``), else Latin-1 (never fails). The writer encodes names back
    the same way."""
    for encoding in ("utf-8", "cp1252"):
        try:
            data.decode(encoding)
            return encoding
        except UnicodeDecodeError:
            pass
    return "latin-1"


def shown_token(token: bytes | None) -> str:
    if token is None:
        return "the end of the file"
    text = token.decode("latin-1")
    return f"'{text[:40]}'" + ("..." if len(text) > 40 else "")


class Md5Text:
    """The tokens of ``data`` (``tokens[i]`` the bytes, quotes removed; ``quoted[i]`` whether it was a
    quoted string), their spans, and a cursor ``pos`` the parsers advance."""

    def __init__(self, data: bytes, what: str) -> None:
        self.data = bytes(data)          # whole, for the writer; tokens stop at the first NUL
        self.what = what
        self._newlines = np.flatnonzero(np.frombuffer(self.data, np.uint8) == 10).tolist()
        self.encoding = text_encoding(self.data)
        nul = self.data.find(b"\0")
        size = len(self.data) if nul < 0 else nul
        split = _plain_split(self.data, size)
        if split is not None:
            self.tokens, self.quoted, self.starts, self.ends = split
            self.pos = 0
            return
        # every (gap, token) pair at once: each match starts where the last ended, and only the last one
        # (the gap to the end) has no token, as the scan one match at a time found them
        pairs = _SCAN.findall(self.data, 0, size)
        raw = list(map(itemgetter(1), pairs))
        sizes = np.fromiter(map(len, raw), np.int64, len(raw))
        ends = np.cumsum(np.fromiter(map(len, map(itemgetter(0), pairs)), np.int64, len(pairs)) + sizes)
        while raw and not raw[-1]:
            raw.pop()
        ends = ends[:len(raw)]
        starts = ends - sizes[:len(raw)]
        quoted = [r[:1] == b'"' for r in raw]
        for index in (i for i, q in enumerate(quoted) if q):
            token = raw[index]
            if len(token) < 2 or token[-1:] != b'"':
                raise self.error_at(int(starts[index]), "a quoted string is not closed before the end of the file")
            raw[index] = token[1:-1]
        self.tokens = raw
        self.quoted = quoted
        self.starts = starts.tolist()
        self.ends = ends.tolist()
        self.pos = 0

    # --- positions and errors ---------------------------------------------------------------------
    def line_of(self, offset: int) -> int:
        return bisect.bisect_right(self._newlines, offset - 1) + 1

    def line(self, index: int | None = None) -> int:
        """Line (from 1) of token ``index`` (the cursor's by default; the last line past the end)."""
        index = self.pos if index is None else index
        if index >= len(self.tokens):
            return self.line_of(len(self.data))
        return self.line_of(self.starts[index])

    def error_at(self, offset: int, message: str) -> FormatError:
        return FormatError(message, field=f"{self.what} line {self.line_of(offset)}")

    def error(self, message: str, index: int | None = None) -> FormatError:
        return FormatError(message, field=f"{self.what} line {self.line(index)}")

    def expected(self, what: str, index: int | None = None) -> FormatError:
        index = self.pos if index is None else index
        token = self.tokens[index] if index < len(self.tokens) else None
        return self.error(f"expected {what}, found {shown_token(token)}", index)

    # --- reading ----------------------------------------------------------------------------------
    def peek(self) -> bytes | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def left(self) -> int:
        return len(self.tokens) - self.pos

    def expect(self, word: bytes) -> None:
        if self.peek() != word or self.quoted[self.pos]:
            raise self.expected(f"'{word.decode()}'")
        self.pos += 1

    def check(self, word: bytes) -> bool:
        """Take ``word`` if it is next (ironwail ``MD5CHECK``)."""
        if self.peek() == word and not self.quoted[self.pos]:
            self.pos += 1
            return True
        return False

    def string(self, what: str) -> str:
        token = self.peek()
        if token is None:
            raise self.expected(what)
        self.pos += 1
        return token.decode(self.encoding)

    def integer(self, what: str, low: int | None = None, high: int | None = None) -> int:
        token = self.peek()
        if token is None or self.quoted[self.pos] or not _INT.match(token):
            raise self.expected(f"{what} (a whole number)")
        value = int(token)
        if (low is not None and value < low) or (high is not None and value > high):
            bounds = f"{low} .. {high}" if high is not None else f"at least {low}"
            raise self.error(f"{what} is {value}, expected {bounds}")
        self.pos += 1
        return value

    def number(self, what: str) -> float:
        token = self.peek()
        if token is None or self.quoted[self.pos] or not _FLOAT.match(token):
            raise self.expected(f"{what} (a number)")
        self.pos += 1
        return float(token)

    def records(self, count: int, pattern: tuple, what: str) -> np.ndarray:
        """``count`` records of fixed shape, as a (count, len(pattern)) array of token bytes.

        ``pattern`` holds, per column, a literal (bytes: that keyword or punctuation), ``int``, ``float``
        or None (a name: any token but punctuation). The count is checked against the tokens that are
        left before anything is allocated;
        every column is checked vectorised and the first wrong token is reported with its line.
        """
        width = len(pattern)
        if count * width > self.left():
            raise self.error(f"{what} records: {count} announced, but the file ends first ({self.left()} tokens "
                             f"follow, {count * width} needed): correct the count or restore the missing lines")
        start = self.pos
        block = np.array(self.tokens[start:start + count * width], dtype=object).reshape(count, width)
        quoted = np.array(self.quoted[start:start + count * width], dtype=bool).reshape(count, width)
        for column, kind in enumerate(pattern):
            cells = block[:, column]
            if kind is None:       # a name: any token but punctuation, quoted or not (COM_Parse)
                bad = ~quoted[:, column] & np.fromiter((c in PUNCTUATION for c in cells), bool, count)
                label = "a name"
            elif isinstance(kind, bytes):
                bad = (cells != kind) | quoted[:, column]
                label = f"'{kind.decode()}'"
            else:
                label = "a whole number" if kind is int else "a number"
                if not count or (not quoted[:, column].any() and NUMBER_COLUMN[kind].match(b"\n".join(cells.tolist()))):
                    continue
                regex = _INT if kind is int else _FLOAT
                bad = quoted[:, column] | ~np.fromiter((regex.match(c) is not None for c in cells), bool, count)
            if bad.any():
                row = int(np.argmax(bad))
                raise self.expected(f"{label} in {what} {row}", start + row * width + column)
        self.pos = start + count * width
        return block



_PUNCTUATION_TABLE = np.zeros(256, bool)
_PUNCTUATION_TABLE[np.frombuffer(b"{}()'", np.uint8)] = True


def _strings_and_comments(codes: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None:
    """Where the quoted strings open and close and the ``//`` comments start and end, taken in text order
    (a quote inside a comment and a ``//`` inside a string count for nothing); None for a string left open.
    One pass over the quotes and ``//`` pairs only, a few per joint in real files."""
    quotes = np.flatnonzero(codes == 34)
    slashes = np.flatnonzero((codes[:-1] == 47) & (codes[1:] == 47))
    newlines = np.flatnonzero(codes == 10)
    size = len(codes)
    at = np.concatenate([quotes, slashes])
    order = np.argsort(at, kind="stable")
    events = at[order].tolist()
    is_quote = (order < len(quotes)).tolist()
    # a quote's close is the next quote; a comment's end the next newline (or the end of the text)
    close = np.append(quotes[1:], -1)
    upto = np.append(newlines, size)[np.searchsorted(newlines, slashes)]
    reach = np.concatenate([close, upto])[order].tolist()
    kept = [False] * len(events)
    skip = 0
    for i in range(len(events)):
        if events[i] < skip:
            continue
        if reach[i] < 0:
            return None
        kept[i] = True
        skip = reach[i] + 1 if is_quote[i] else reach[i]
    kept_at = np.array(kept, bool)
    quote_mask, reach_all, at_all = np.array(is_quote, bool), np.array(reach, np.int64), np.array(events, np.int64)
    strings, comments = kept_at & quote_mask, kept_at & ~quote_mask
    return at_all[strings], reach_all[strings], at_all[comments], reach_all[comments]


def _plain_split(data: bytes, size: int) -> tuple[list, list, list, list] | None:
    """The tokens, quoted flags, starts and ends of ``data[:size]`` found with array operations, for text whose
    strings and ``//`` comments start where a token would, with no ``/*``, no other ``/`` and no ``:`` outside
    them (no comment or colon inside a word); None for any other text, which the scan splits (the same tokens:
    a test compares both on the corpus and on copies broken by quotes, comments, NULs and punctuation)."""
    if data.find(b"/*", 0, size) >= 0:
        return None
    codes = np.frombuffer(data, np.uint8, size)
    found = _strings_and_comments(codes)
    if found is None:
        return None                                     # a string left open: the scan names its line
    opens, closes, comments, comment_ends = found
    marks = np.zeros(size + 1, np.int8)
    marks[opens] += 1
    marks[closes + 1] -= 1
    inside = np.cumsum(marks[:size], dtype=np.int8).astype(bool)        # a string, its quotes included
    marks[:] = 0
    marks[comments] += 1
    marks[comment_ends] -= 1
    outside = ~inside & ~np.cumsum(marks[:size], dtype=np.int8).astype(bool)
    if (outside & ((codes == 47) | (codes == 58))).any():
        return None
    starting = np.concatenate([opens, comments])
    before = codes[starting[starting > 0] - 1]
    if ((before > 32) & ~_PUNCTUATION_TABLE[before] & (before != 34)).any():
        return None                                     # a quote or '//' inside a word belongs to the word
    punctuation = outside & _PUNCTUATION_TABLE[codes]
    word = outside & (codes > 32) & ~punctuation
    edges = np.diff(word.view(np.int8), prepend=np.int8(0), append=np.int8(0))
    word_starts, word_ends = np.flatnonzero(edges == 1), np.flatnonzero(edges == -1)
    single = np.flatnonzero(punctuation)
    ends_at = np.zeros(size, np.int64)
    ends_at[word_starts] = word_ends
    ends_at[single] = single + 1
    ends_at[opens] = closes + 1
    starts = np.sort(np.concatenate([word_starts, single, opens]))
    ends = ends_at[starts]
    quoted = codes[starts] == 34
    inner = quoted.astype(np.int64)
    tokens = list(map(data.__getitem__, map(slice, (starts + inner).tolist(), (ends - inner).tolist())))
    return tokens, quoted.tolist(), starts.tolist(), ends.tolist()
