"""Values as a person reads them in a message, never as Python writes them (``b'lK\\xc7\\xdf'``,
``'C:\\\\models'``).

- :func:`shown_bytes`: bytes from a file (a magic, a raw field). Printable ASCII is quoted as is
  (``"IDPO"``); anything else is hex pairs followed by the printable part, other bytes as dots
  (``6C 4B C7 DF ("lK..")``).
- :func:`quoted`: a name (a frame, a skin path, a member, an object) in single quotes, backslashes as
  typed; a character that does not print is shown by its code in angle brackets (``<1F>``), and a byte
  that a file name on disk could not decode (held by Python as a lone surrogate) by that byte (``<E9>``).
"""
from __future__ import annotations


def _printable_ascii(byte: int) -> bool:
    return 0x20 <= byte < 0x7F


def shown_bytes(raw: bytes) -> str:
    """``raw`` as ``"IDPO"`` when all of it is printable ASCII, else as ``6C 4B C7 DF ("lK..")``."""
    raw = bytes(raw)
    if raw and all(_printable_ascii(b) for b in raw):
        return f'"{raw.decode("ascii")}"'
    hex_pairs = " ".join(f"{b:02X}" for b in raw) or "no bytes"
    if not any(_printable_ascii(b) for b in raw):
        return hex_pairs
    return hex_pairs + ' ("' + "".join(chr(b) if _printable_ascii(b) else "." for b in raw) + '")'


def shown_list(values: list[bytes] | tuple[bytes, ...]) -> str:
    """Several byte values: ``"IDPO", "MD16" or "RAPO"``."""
    shown = [shown_bytes(v) for v in values]
    return shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " or " + shown[-1]


def _char(c: str) -> str:
    code = ord(c)
    if 0xDC80 <= code <= 0xDCFF:          # os.fsdecode's stand-in for an undecodable byte
        return f"<{code - 0xDC00:02X}>"
    if c.isprintable():
        return c
    return f"<{code:02X}>"


def printable(text: object) -> str:
    """``text`` as typed, each character that does not print shown as ``<1F>`` (a terminal shows no raw
    control character from a file's name)."""
    return "".join(_char(c) for c in str(text))


def quoted(value: object) -> str:
    """A name in a message: ``'models/ogre/skin.pcx'``, as typed (no escapes); bytes as :func:`shown_bytes`."""
    if isinstance(value, (bytes, bytearray)):
        return shown_bytes(bytes(value))
    return f"'{printable(value)}'"
