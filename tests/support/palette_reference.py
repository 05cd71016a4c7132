"""Today's palette matching kept as the reference (formats/images/palette.py as of main 9e295ff, before the
guess grid): exact CIEDE2000 searched in each colour's lightness window from the CIE76-nearest entry.
tests/images/test_palette_identity.py checks that formats.images.palette gives the same index for every pixel.
Copied, not imported, so a change to the product's colour science cannot change the reference with it.
Changes since: the dithering matches each pixel as its value rounded to whole numbers (the product's rule
since the tables of formats/images/palette_lut.py; the error passed on is still the unrounded value's), and
adds a pixel's errors in a scan's order (the upper right's before the left's)."""
from __future__ import annotations

import numpy as np

from formats.images.palette import FULLBRIGHT_START

_CHUNK = 8192
_PAIRS = 8192


def srgb_to_lab(rgb: np.ndarray) -> np.ndarray:
    """CIELAB (D65) of (..., 3) sRGB values in 0..255, float64."""
    c = np.asarray(rgb, dtype=np.float64) / 255.0
    linear = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    xyz = linear @ np.array([[0.4124564, 0.2126729, 0.0193339],
                             [0.3575761, 0.7151522, 0.1191920],
                             [0.1804375, 0.0721750, 0.9503041]])
    xyz = xyz / np.array([0.95047, 1.0, 1.08883])
    eps, kappa = 216 / 24389, 24389 / 27
    f = np.where(xyz > eps, np.cbrt(xyz), (kappa * xyz + 16) / 116)
    return np.stack([116 * f[..., 1] - 16, 500 * (f[..., 0] - f[..., 1]), 200 * (f[..., 1] - f[..., 2])], axis=-1)


def ciede2000(lab1: np.ndarray, lab2: np.ndarray) -> np.ndarray:
    """CIEDE2000 colour difference (kL = kC = kH = 1) of CIELAB values, broadcast over leading axes.

    Sharma, Wu and Dalal, "The CIEDE2000 colour-difference formula: implementation notes,
    supplementary test data, and mathematical observations" (2005), equations 1-22 (T's cosines of
    multiples of the mean hue expanded from its cosine and sine)."""
    lab1, lab2 = np.asarray(lab1, np.float64), np.asarray(lab2, np.float64)
    l1, a1, b1 = lab1[..., 0], lab1[..., 1], lab1[..., 2]
    l2, a2, b2 = lab2[..., 0], lab2[..., 1], lab2[..., 2]
    c_mean7 = _seventh((np.sqrt(a1 * a1 + b1 * b1) + np.sqrt(a2 * a2 + b2 * b2)) * 0.5)
    scale = 1.5 - 0.5 * np.sqrt(c_mean7 / (c_mean7 + _25_7))           # 1 + G
    a1, a2 = a1 * scale, a2 * scale
    c1, c2 = np.sqrt(a1 * a1 + b1 * b1), np.sqrt(a2 * a2 + b2 * b2)
    h1, h2 = np.arctan2(b1, a1), np.arctan2(b2, a2)
    h1, h2 = np.where(h1 < 0, h1 + _TAU, h1), np.where(h2 < 0, h2 + _TAU, h2)
    chroma_product = c1 * c2
    dh = h2 - h1
    dh = np.where(dh > np.pi, dh - _TAU, np.where(dh < -np.pi, dh + _TAU, dh))
    dh = np.where(chroma_product == 0, 0.0, dh)
    big_h = 2 * np.sqrt(chroma_product) * np.sin(dh * 0.5)
    h_sum = h1 + h2
    h_mean = np.where(chroma_product == 0, h_sum,
                      np.where(np.abs(h1 - h2) <= np.pi, h_sum * 0.5,
                               np.where(h_sum < _TAU, h_sum * 0.5 + np.pi, h_sum * 0.5 - np.pi)))
    cos1, sin1 = np.cos(h_mean), np.sin(h_mean)
    cos2, sin2 = cos1 * cos1 - sin1 * sin1, 2 * sin1 * cos1
    cos3, sin3 = cos2 * cos1 - sin2 * sin1, sin2 * cos1 + cos2 * sin1
    cos4, sin4 = cos2 * cos2 - sin2 * sin2, 2 * sin2 * cos2
    t = (1 - 0.17 * (cos1 * _COS30 + sin1 * _SIN30) + 0.24 * cos2
         + 0.32 * (cos3 * _COS6 - sin3 * _SIN6) - 0.20 * (cos4 * _COS63 + sin4 * _SIN63))
    d_theta = np.exp(-np.square((h_mean * (180 / np.pi) - 275) / 25)) * (np.pi / 3)     # 2 x (30 deg x ...)
    c_mean = (c1 + c2) * 0.5
    c_mean7 = _seventh(c_mean)
    r_t = -np.sin(d_theta) * 2 * np.sqrt(c_mean7 / (c_mean7 + _25_7))
    l_mean = (l1 + l2) * 0.5 - 50
    l_mean *= l_mean
    s_l = 1 + 0.015 * l_mean / np.sqrt(20 + l_mean)
    dl, dc, dh_term = (l2 - l1) / s_l, (c2 - c1) / (1 + 0.045 * c_mean), big_h / (1 + 0.015 * c_mean * t)
    return np.sqrt(np.maximum(dl * dl + dc * dc + dh_term * dh_term + r_t * dc * dh_term, 0.0))


def _seventh(x: np.ndarray) -> np.ndarray:
    square = x * x
    return square * square * square * x


_TAU, _25_7 = 2 * np.pi, 25.0 ** 7
_COS30, _SIN30 = np.cos(np.radians(30)), np.sin(np.radians(30))
_COS6, _SIN6 = np.cos(np.radians(6)), np.sin(np.radians(6))
_COS63, _SIN63 = np.cos(np.radians(63)), np.sin(np.radians(63))


# dE00 >= |dL| / S_L: the chroma-hue part is a quadratic form x^2 + y^2 + R_T xy with |R_T| < sqrt(3) < 2,
# never negative; S_L <= 1 + 0.015 * 50^2 / sqrt(20 + 50^2) for lightness within 0..100.
_MAX_S_L = 1 + 0.015 * 2500 / np.sqrt(2520) + 1e-9


class _Matcher:
    """Nearest palette index per class by CIEDE2000, searching each class's distinct colours (the
    lowest index holding a colour wins).

    Exact and pruned: the CIE76 nearest entry gives an upper bound ``u`` on the best CIEDE2000
    distance, and an entry with |dL| / S_L > ``u`` cannot beat it (the bound above ``_MAX_S_L``), so
    each colour is compared only with the entries in its own lightness window.
    """

    def __init__(self, palette: np.ndarray, classes) -> None:
        self.rgb = palette.astype(np.float64)
        self.classes = []
        for allowed in classes:
            allowed = np.asarray(allowed, dtype=np.int64)
            _, first = np.unique(palette[allowed], axis=0, return_index=True)
            index = allowed[np.sort(first)]
            lab = srgb_to_lab(palette[index])
            order = np.argsort(lab[:, 0], kind="stable")
            self.classes.append((index, lab, (lab ** 2).sum(axis=1), order, lab[order, 0]))

    def nearest(self, rgb: np.ndarray, emissive: np.ndarray) -> np.ndarray:
        """uint8 indices for (n, 3) float colours; ``emissive`` (n,) bool picks the class."""
        lab = srgb_to_lab(rgb)
        out = np.empty(len(rgb), dtype=np.uint8)
        for (index, pal_lab, pal_norm, order, sorted_l), members in zip(self.classes, (~emissive, emissive)):
            rows = np.flatnonzero(members)
            if len(rows) and not len(index):
                raise ValueError("no palette entries for these pixels")
            for start in range(0, len(rows), _CHUNK):
                part = rows[start:start + _CHUNK]
                out[part] = index[self._search(lab[part], pal_lab, pal_norm, order, sorted_l)]
        return out

    @staticmethod
    def _search(colours, pal_lab, pal_norm, order, sorted_l) -> np.ndarray:
        """Positions in the class of the CIEDE2000-nearest entries: each colour is compared with the
        entries in its own lightness window, all (colour, entry) pairs flattened into one array."""
        rough = np.argmin(pal_norm - 2.0 * (colours @ pal_lab.T), axis=1)
        bound = ciede2000(colours, pal_lab[rough]) + 1e-9
        reach = bound * _MAX_S_L
        lo = np.searchsorted(sorted_l, colours[:, 0] - reach, side="left")
        hi = np.searchsorted(sorted_l, colours[:, 0] + reach, side="right")
        counts = hi - lo
        starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
        colour_of = np.repeat(np.arange(len(colours)), counts)
        entry = order[lo[colour_of] + np.arange(len(colour_of)) - starts[colour_of]]
        # the same bound with each pair's own S_L: drops most pairs before the full formula
        dl = pal_lab[entry, 0] - colours[colour_of, 0]
        l_mean = (pal_lab[entry, 0] + colours[colour_of, 0]) / 2 - 50
        near = np.abs(dl) <= bound[colour_of] * (1 + 0.015 * l_mean ** 2 / np.sqrt(20 + l_mean ** 2))
        near[entry == rough[colour_of]] = True
        colour_of, entry = colour_of[near], entry[near]
        starts = np.concatenate(([0], np.cumsum(np.bincount(colour_of, minlength=len(colours)))[:-1]))
        distance = np.concatenate([ciede2000(colours[colour_of[i:i + _PAIRS]], pal_lab[entry[i:i + _PAIRS]])
                                   for i in range(0, len(entry), _PAIRS)])
        best = np.minimum.reduceat(distance, starts)
        tied = np.where(distance == best[colour_of], entry, len(pal_lab))   # ties go to the lowest index
        return np.minimum.reduceat(tied, starts)


def _kept_pixels(rgb: np.ndarray, palette: np.ndarray, emissive: np.ndarray, keep, ordinary) -> np.ndarray:
    """Pixels whose ``keep`` index still shows their colour and lies in their class (224-255 where
    emissive, the ``ordinary`` range elsewhere)."""
    if keep is None:
        return np.zeros(emissive.shape, dtype=bool)
    keep = np.asarray(keep)
    if keep.shape != emissive.shape or keep.dtype != np.uint8:
        raise ValueError(f"keep must be {emissive.shape} uint8, got {keep.dtype} {keep.shape}")
    same = np.all(palette[keep] == np.clip(np.rint(rgb), 0, 255), axis=-1)
    return same & np.where(emissive, keep >= FULLBRIGHT_START, (keep >= ordinary[0]) & (keep < ordinary[1]))


def _dither(matcher: _Matcher, work: np.ndarray, emissive: np.ndarray, kept: np.ndarray) -> np.ndarray:
    height, width = work.shape[:2]
    out = np.empty((height, width), dtype=np.uint8)
    ys_all = np.arange(height)
    for k in range(width + 2 * (height - 1)):
        lo, hi = max(0, (k - width + 2) // 2), min(height - 1, k // 2)
        ys = ys_all[lo:hi + 1]
        xs = k - 2 * ys
        value = np.clip(work[ys, xs], 0, 255)
        fixed = kept[ys, xs]
        found = np.zeros(len(ys), dtype=np.uint8)
        found[~fixed] = matcher.nearest(np.rint(value[~fixed]), emissive[ys, xs][~fixed])
        out[ys, xs] = found
        error = value - matcher.rgb[found]
        error[fixed] = 0.0
        right = xs + 1 < width
        below = ys + 1 < height
        left = below & (xs > 0)
        work[ys[left] + 1, xs[left] - 1] += error[left] * (3 / 16)      # a scan's order: the upper right's
        work[ys[right], xs[right] + 1] += error[right] * (7 / 16)       # error reaches a pixel before the left's
        work[ys[below] + 1, xs[below]] += error[below] * (5 / 16)
        down_right = below & right
        work[ys[down_right] + 1, xs[down_right] + 1] += error[down_right] * (1 / 16)
    return out


def reference_indices(rgba: np.ndarray, palette: np.ndarray, emissive_mask: np.ndarray | None = None,
                      dither: bool = False, ordinary: tuple[int, int] = (0, FULLBRIGHT_START),
                      avoid: tuple[tuple[int, int], ...] = (), keep: np.ndarray | None = None,
                      skip: np.ndarray | None = None) -> np.ndarray:
    """The indices main's ``match_palette`` gives (its drift report left out)."""
    image = np.asarray(rgba)
    height, width = image.shape[:2]
    emissive = np.zeros((height, width), bool) if emissive_mask is None else np.asarray(emissive_mask, bool)
    allowed = np.arange(*ordinary)
    for lo, hi in avoid:
        allowed = allowed[(allowed < lo) | (allowed >= hi)]
    matcher = _Matcher(palette, (allowed, np.arange(FULLBRIGHT_START, 256)))
    rgb = image[..., :3]
    kept = _kept_pixels(rgb, palette, emissive, keep, ordinary)
    fixed = kept if skip is None else kept | np.asarray(skip, dtype=bool)
    if dither:
        out = _dither(matcher, rgb.astype(np.float64), emissive, fixed)
    else:
        values = np.clip(np.rint(rgb.astype(np.float64)), 0, 255).astype(np.int64)
        keys = (values[..., 0] << 16 | values[..., 1] << 8 | values[..., 2]) | (emissive.astype(np.int64) << 24)
        out = np.zeros(keys.shape, dtype=np.uint8)
        unique, inverse = np.unique(keys[~fixed], return_inverse=True)
        colours = np.stack([(unique >> 16) & 255, (unique >> 8) & 255, unique & 255], axis=1).astype(np.float64)
        out[~fixed] = matcher.nearest(colours, (unique >> 24).astype(bool))[inverse.ravel()]
    out[fixed] = 0
    if keep is not None:
        out[kept] = np.asarray(keep)[kept]
    return out
