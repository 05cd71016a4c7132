"""How far palette matching moved a skin's colours, for the export report.

The games draw skins in a 256-colour palette, so a colour the palette lacks becomes the nearest
one: pure red (255 0 0) becomes Quake's index 95 (175 103 35, orange-brown) outside the player colours,
CIEDE2000 difference 21.
The report counts the pixels that moved more than :data:`VISIBLE_DIFFERENCE` and names the worst.

Threshold: CIEDE2000 1 is about the smallest difference seen between two patches side by side
(Sharma, Wu and Dalal 2005 scale the formula so), and a few units read as the same colour a little
lighter or duller: that is what any 256-colour palette costs (a random sRGB colour lies a median 13
from Quake's palette, 10 from Quake II's), so a threshold of 1-5 would flag nearly every painted
skin. Above 10 a patch reads as another colour (red as brown, green as yellow, cyan as near-white),
which is what a modder needs to hear; real textures stay mostly below it (OpenArena's forklift.jpg:
6 % of its pixels above 10 in Quake's palette, fountain1.jpg 3 %). The MDL fullbright report uses
the same 10 (``exporters/mdl/fullbright.py``).
"""
from __future__ import annotations

from dataclasses import dataclass

VISIBLE_DIFFERENCE = 10.0      # CIEDE2000


@dataclass(frozen=True)
class ColourDrift:
    """Matched pixels further than :data:`VISIBLE_DIFFERENCE` from the colour they were written as
    (``pixels``), and the worst such colour: ``colour`` (sRGB) became palette ``index`` (``written``)
    at CIEDE2000 ``difference``."""
    pixels: int = 0
    colour: tuple[int, int, int] = (0, 0, 0)
    index: int = 0
    written: tuple[int, int, int] = (0, 0, 0)
    difference: float = 0.0

    def worst(self) -> str:
        """``#FF0000 became #8F3F1F (index 95, difference 21)``."""
        return (f"{_hex(self.colour)} became {_hex(self.written)} (index {self.index}, "
                f"difference {self.difference:.0f})")


def _hex(rgb) -> str:
    return "#" + "".join(f"{int(c):02X}" for c in rgb)


def drift_report(drifts: list[tuple[str, ColourDrift]]) -> str | None:
    """One report line for the skins' drifts (``(skin label, drift)`` pairs), or None when no pixel
    moved visibly."""
    moved = [(label, d) for label, d in drifts if d.pixels]
    if not moved:
        return None
    total = sum(d.pixels for _, d in moved)
    label, worst = max(moved, key=lambda pair: pair[1].difference)
    where = f"{len(moved)} skins" if len(moved) > 1 else label
    return (f"{total} new or edited skin pixel(s) in {where} have no palette colour within a visible difference "
            f"(CIEDE2000 > {VISIBLE_DIFFERENCE:.0f}) and were written as the nearest one; worst: {worst.worst()}"
            + (f" in {label}" if len(moved) > 1 else ""))
