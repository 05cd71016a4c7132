"""Colour differences written out independently of formats.images.palette: sRGB -> CIELAB (D65) and
CIEDE2000, scalar, in degrees, step by step as in Sharma, Wu and Dalal (2005), checked against
their published test pairs in test_palette."""
from __future__ import annotations

import math


def lab(rgb) -> tuple[float, float, float]:
    """Scalar sRGB (0..255) -> CIELAB (D65)."""
    def linear(c: float) -> float:
        c /= 255.0
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4
    r, g, b = (linear(float(c)) for c in rgb)
    x = (0.4124564 * r + 0.3575761 * g + 0.1804375 * b) / 0.95047
    y = 0.2126729 * r + 0.7151522 * g + 0.0721750 * b
    z = (0.0193339 * r + 0.1191920 * g + 0.9503041 * b) / 1.08883

    def f(t: float) -> float:
        return t ** (1 / 3) if t > 216 / 24389 else (24389 / 27 * t + 16) / 116
    return 116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))


def ciede2000(first, second) -> float:
    """CIEDE2000 between two CIELAB triples (kL = kC = kH = 1)."""
    (l1, a1, b1), (l2, a2, b2) = first, second
    c_bar = (math.hypot(a1, b1) + math.hypot(a2, b2)) / 2
    g = 0.5 * (1 - math.sqrt(c_bar ** 7 / (c_bar ** 7 + 25 ** 7)))
    ap1, ap2 = (1 + g) * a1, (1 + g) * a2
    cp1, cp2 = math.hypot(ap1, b1), math.hypot(ap2, b2)

    def hue(b: float, ap: float) -> float:
        return 0.0 if b == 0 and ap == 0 else math.degrees(math.atan2(b, ap)) % 360
    hp1, hp2 = hue(b1, ap1), hue(b2, ap2)
    d_lp, d_cp = l2 - l1, cp2 - cp1
    if cp1 * cp2 == 0:
        d_hp = 0.0
    elif abs(hp2 - hp1) <= 180:
        d_hp = hp2 - hp1
    elif hp2 - hp1 > 180:
        d_hp = hp2 - hp1 - 360
    else:
        d_hp = hp2 - hp1 + 360
    d_big_hp = 2 * math.sqrt(cp1 * cp2) * math.sin(math.radians(d_hp) / 2)
    l_bar_p, c_bar_p = (l1 + l2) / 2, (cp1 + cp2) / 2
    if cp1 * cp2 == 0:
        h_bar_p = hp1 + hp2
    elif abs(hp1 - hp2) <= 180:
        h_bar_p = (hp1 + hp2) / 2
    elif hp1 + hp2 < 360:
        h_bar_p = (hp1 + hp2 + 360) / 2
    else:
        h_bar_p = (hp1 + hp2 - 360) / 2
    t = (1 - 0.17 * math.cos(math.radians(h_bar_p - 30)) + 0.24 * math.cos(math.radians(2 * h_bar_p))
         + 0.32 * math.cos(math.radians(3 * h_bar_p + 6)) - 0.20 * math.cos(math.radians(4 * h_bar_p - 63)))
    d_theta = 30 * math.exp(-(((h_bar_p - 275) / 25) ** 2))
    r_c = 2 * math.sqrt(c_bar_p ** 7 / (c_bar_p ** 7 + 25 ** 7))
    s_l = 1 + (0.015 * (l_bar_p - 50) ** 2) / math.sqrt(20 + (l_bar_p - 50) ** 2)
    s_c = 1 + 0.045 * c_bar_p
    s_h = 1 + 0.015 * c_bar_p * t
    r_t = -math.sin(math.radians(2 * d_theta)) * r_c
    return math.sqrt((d_lp / s_l) ** 2 + (d_cp / s_c) ** 2 + (d_big_hp / s_h) ** 2
                     + r_t * (d_cp / s_c) * (d_big_hp / s_h))


def nearest(rgb, palette, indices) -> int:
    """The index among ``indices`` whose palette colour is CIEDE2000-nearest to ``rgb`` (lowest on ties)."""
    target = lab(rgb)
    return min(indices, key=lambda i: (ciede2000(target, lab(palette[i])), i))
