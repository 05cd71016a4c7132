"""Quake III ``.skin`` files: which shader each surface of an MD3 wears, read as the engine reads them.

ioquake3 renderergl1 ``RE_RegisterSkin`` (tr_image.c), over the text cut into tokens by ``CommaParse``
(:mod:`.q3_text`)::

    loop: token = surface name (the loop ends at an empty token); skip one ',' right after it
          if the token contains "tag_" anywhere: ignore it, go on with the next token
          shader = next token; keep (lowercased surface name cut to 63 bytes, shader) while fewer than
          MAX_SKIN_SURFACES (256) are kept

so ``u_torso,models/players/major/torso.tga`` maps ``u_torso``, and a ``tag_weapon,`` line is skipped
(its empty shader field is never read: the next line's surface name follows). A model's surface finds
its shader by the first kept entry whose name equals the surface's name lowercased, with a trailing
``_1``/``_2`` (any two characters ``_x``) cut off (``R_LoadMD3``; ``R_AddMD3Surfaces`` in tr_mesh.c).

:func:`write_skin` gives back the bytes read while the entries are those that parse from them, else
writes one ``surface,shader`` line per entry and ``tag_name,`` lines for the tags.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ..binary import decode_name
from .q3_text import Q3Text, comma_parse

MAX_SKIN_SURFACES = 256
NAME_LIMIT = 63                   # Q_strncpyz(surfName, token, MAX_QPATH)


@dataclass
class SkinEntry:
    surface: str                  # lowercased, as the engine compares it
    shader: str


@dataclass
class SkinFile:
    entries: list[SkinEntry]
    tags: list[str] = field(default_factory=list)    # the tag_ tokens the engine skips (kept for writing)
    raw: bytes | None = None                          # the file as read
    warnings: list[str] = field(default_factory=list, compare=False)

    def shader_for(self, surface_name: str) -> str | None:
        """The shader the engine gives the MD3 surface named ``surface_name``, or None."""
        key = engine_surface_name(surface_name)
        return next((e.shader for e in self.entries if e.surface == key), None)


def engine_surface_name(name: str) -> str:
    """A surface name as ``R_LoadMD3`` keeps it: lowercased, a trailing ``_x`` cut off."""
    name = name.lower()
    return name[:-2] if len(name) > 2 and name[-2] == "_" else name


def _text(raw: bytes) -> str:
    return decode_name(raw)


def parse_skin(data: bytes) -> SkinFile:
    """The entries of a ``.skin`` file, as ``RE_RegisterSkin`` keeps them (never raises)."""
    text = Q3Text(data)
    entries: list[SkinEntry] = []
    tags, total = [], 0
    while text.pos is not None and text.pos < len(text.data):
        token, _ = comma_parse(text)
        if not token:
            break
        surface = token[:NAME_LIMIT].lower()
        if text.byte() == 0x2C:
            text.pos += 1
        if b"tag_" in token:
            tags.append(_text(token))
            continue
        shader, _ = comma_parse(text)
        if len(entries) < MAX_SKIN_SURFACES:
            entries.append(SkinEntry(_text(surface), _text(shader)))
        total += 1
    warnings = [f"{total} surfaces, the engine keeps the first {MAX_SKIN_SURFACES} (MAX_SKIN_SURFACES)"] \
        if total > MAX_SKIN_SURFACES else []
    return SkinFile(entries=entries, tags=tags, raw=bytes(data), warnings=warnings)


def write_skin(skin: SkinFile) -> bytes:
    """The file's bytes: as read while its entries and tags are unchanged, else one line per entry."""
    if skin.raw is not None:
        again = parse_skin(skin.raw)
        if again.entries == skin.entries and again.tags == skin.tags:
            return skin.raw
    lines = [f"{e.surface},{e.shader}" for e in skin.entries] + [f"{t}," for t in skin.tags]
    return "".join(line + "\n" for line in lines).encode("latin-1", "replace")
