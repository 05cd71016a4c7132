"""What a file is when it is not the model its extension promised: the magic numbers of the formats a
Quake-family game folder holds, so a refusal can name the format (``a Quake sprite (SPR), not
supported``) instead of quoting bytes."""
from __future__ import annotations

from .message_text import shown_bytes, shown_list

KNOWN_MAGICS = (   # (leading bytes, what the file is); longest first where one is a prefix of another
    (b"IDP2", "a Quake II MD2 model"),
    (b"IDPO", "a Quake MDL model"),
    (b"MD16", "a 16-bit MDL model (QuakeForge, FTE)"),
    (b"RAPO", "a Hexen II mission pack MDL model"),
    (b"MS3D000000", "a MilkShape 3D model"),
    (b"IDP3", "a Quake III MD3 model"),
    (b"IDP4", "a Doom 3 era MD4 model, not supported"),
    (b"RBMD", "a Raven MDR model, not supported"),
    (b"IDPX", "a Kingpin MDX model, not supported"),
    (b"IDST", "a Half-Life MDL model, not supported"),
    (b"IDSQ", "a Half-Life MDL sequence file, not supported"),
    (b"IDSP", "a Quake sprite (SPR), not supported"),
    (b"IDS2", "a Quake II sprite (SP2), not supported"),
    (b"IBSP", "a Quake II or III BSP map, not supported"),
    (b"\x1d\x00\x00\x00", "a Quake BSP map (version 29), not supported"),
    (b"BSP2", "a BSP2 map, not supported"),
    (b"MD5Version", "an MD5 text model (.md5mesh or .md5anim)"),
    (b"DARKPLACESMODEL", "a DarkPlaces DPM model, not supported"),
    (b"INTERQUAKEMODEL", "an Inter-Quake Model (IQM)"),
    (b"ZYMOTICMODEL", "a Zymotic ZYM model, not supported"),
    (b"PACK", "a Quake PAK archive (open it as an archive)"),
    (b"PK\x03\x04", "a ZIP or PK3 archive (open it as an archive)"),
    (b"\x0a\x05\x01\x08", "a PCX image"),
)


def known_format(data: bytes) -> str | None:
    """What ``data`` is by its first bytes, or None when they name no known format."""
    head = bytes(data[:16])
    return next((what for magic, what in KNOWN_MAGICS if head.startswith(magic)), None)


def magic_problem(data: bytes, expected: tuple[bytes, ...], field: str = "magic") -> str:
    """The refusal of a file whose leading bytes are none of ``expected``, showing them as a person reads
    them (``magic is 6C 4B C7 DF ("lK.."), expected "IDPO"``) and naming the format it is when its magic
    is a known one."""
    what = known_format(data)
    got = bytes(data[:max(len(e) for e in expected)])
    return f"{field} is {shown_bytes(got)}, expected {shown_list(expected)}" + (f": this is {what}" if what else "")
