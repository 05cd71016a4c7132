"""The two tokenizers Quake III reads its small text files with, ported byte for byte so that a file
means here what it means to the game.

- :func:`com_parse`: ``COM_ParseExt(&p, qtrue)`` (qcommon/q_shared.c), used by ``CG_ParseAnimationFile``
  for ``animation.cfg``: whitespace is any byte ``<= ' '``, ``//`` and ``/* */`` comments are skipped, a
  ``"quoted string"`` is one token, a word runs to the next byte ``<= ' '``.
- :func:`comma_parse`: ``CommaParse`` (renderergl1/tr_image.c), used by ``RE_RegisterSkin`` for
  ``.skin`` files: the same, except that a word also ends at a comma.

The game's ``char`` is signed on the x86 builds, so a byte of 128 or more compares ``<= ' '`` and acts
as whitespace; both ports do the same. The text ends at its first NUL byte (the engine reads a C string).
Tokens are capped at ``MAX_TOKEN_CHARS - 1`` (1023) bytes like the engine's buffer.
"""
from __future__ import annotations

MAX_TOKEN_CHARS = 1024


def _space(byte: int) -> bool:
    return byte <= 0x20 or byte >= 0x80


class Q3Text:
    """A cursor over the text (cut at its first NUL); ``pos`` is the next unread byte, None at the end."""

    def __init__(self, data: bytes) -> None:
        self.data = bytes(data).split(b"\0", 1)[0]
        self.pos: int | None = 0

    def byte(self, offset: int = 0) -> int:
        i = (self.pos or 0) + offset
        return self.data[i] if i < len(self.data) else 0

    def _skip(self) -> bool:
        """Skip whitespace and comments; False at the end of the text."""
        assert self.pos is not None         # token() calls this only before the end
        data = self.data
        while True:
            while self.pos < len(data) and _space(data[self.pos]):
                self.pos += 1
            if self.pos >= len(data):
                return False
            if data[self.pos:self.pos + 2] == b"//":
                end = data.find(b"\n", self.pos + 2)
                self.pos = len(data) if end < 0 else end
            elif data[self.pos:self.pos + 2] == b"/*":
                end = data.find(b"*/", self.pos + 2)
                self.pos = len(data) if end < 0 else end + 2
            else:
                return True

    def token(self, comma: bool) -> tuple[bytes, int]:
        """The next token and the offset it starts at (b'' at the end of the text)."""
        if self.pos is None:
            return b"", len(self.data)
        if not self._skip():
            if not comma:
                self.pos = None        # COM_ParseExt sets *data_p = NULL at the end
            return b"", len(self.data)
        data, start = self.data, self.pos
        if data[start] == 0x22:        # quoted string: to the next quote or the end
            end = data.find(b'"', start + 1)
            stop = len(data) if end < 0 else end
            self.pos = len(data) if end < 0 else end + 1
            return data[start + 1:stop][:MAX_TOKEN_CHARS - 1], start
        end = start + 1
        while end < len(data) and not _space(data[end]) and not (comma and data[end] == 0x2C):
            end += 1
        self.pos = end
        return data[start:end][:MAX_TOKEN_CHARS - 1], start


def com_parse(text: Q3Text) -> tuple[bytes, int]:
    """``COM_Parse``: the next token (b'' at the end) and its offset."""
    return text.token(comma=False)


def comma_parse(text: Q3Text) -> tuple[bytes, int]:
    """``CommaParse``: the next token, a word ending at whitespace or a comma (b'' at the end)."""
    return text.token(comma=True)
