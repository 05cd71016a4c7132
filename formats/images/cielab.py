"""sRGB to CIELAB (D65) and the CIEDE2000 colour difference, for matching colours to a palette
(:mod:`.palette`)."""
from __future__ import annotations

import numpy as np


def _srgb_to_linear(c: np.ndarray) -> np.ndarray:
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)


_SRGB_TO_XYZ = np.array([[0.4124564, 0.2126729, 0.0193339],
                         [0.3575761, 0.7151522, 0.1191920],
                         [0.1804375, 0.0721750, 0.9503041]])
# rows per matrix product: OpenBLAS splits larger ones over threads that spin waiting for each other
_ROWS = 32768
_LINEAR = _srgb_to_linear(np.arange(256, dtype=np.float64) / 255.0)   # the same values for 8-bit inputs
_WHITE = np.array([0.95047, 1.0, 1.08883])     # D65
_EPSILON, _KAPPA = 216 / 24389, 24389 / 27


def srgb_to_lab(rgb: np.ndarray) -> np.ndarray:
    """CIELAB (D65) of (..., 3) sRGB values in 0..255, float64."""
    values = np.asarray(rgb, dtype=np.float64)
    whole = values.astype(np.uint8)
    if values.size > 3072 and np.array_equal(whole, values):     # 8-bit values: the curve from a table
        linear = _LINEAR[whole]
    else:
        linear = _srgb_to_linear(values / 255.0)
    lab = np.empty(values.shape)
    _lab_of_f(_cie_f(linear), lab[..., 0], lab[..., 1], lab[..., 2])
    return lab


def _cie_f(linear: np.ndarray) -> np.ndarray:
    """CIELAB's f(X / Xn), f(Y / Yn), f(Z / Zn) of (..., 3) linear sRGB values."""
    rows = linear.reshape(-1, 3)
    xyz = np.empty_like(rows)
    for start in range(0, len(rows), _ROWS):    # small products: one BLAS thread, the same values
        xyz[start:start + _ROWS] = rows[start:start + _ROWS] @ _SRGB_TO_XYZ
    xyz = xyz.reshape(linear.shape) / _WHITE
    return np.where(xyz > _EPSILON, np.cbrt(xyz), (_KAPPA * xyz + 16) / 116)


def _lab_of_f(f: np.ndarray, lightness: np.ndarray, a: np.ndarray, b: np.ndarray) -> None:
    """L* = 116 f(Y) - 16, a* = 500 (f(X) - f(Y)), b* = 200 (f(Y) - f(Z)) into the three arrays given."""
    np.multiply(f[..., 1], 116, out=lightness)
    lightness -= 16
    np.subtract(f[..., 0], f[..., 1], out=a)
    a *= 500
    np.subtract(f[..., 1], f[..., 2], out=b)
    b *= 200


def ciede2000(lab1: np.ndarray, lab2: np.ndarray) -> np.ndarray:
    """CIEDE2000 colour difference (kL = kC = kH = 1) of CIELAB values, broadcast over leading axes.

    Sharma, Wu and Dalal, "The CIEDE2000 colour-difference formula: implementation notes,
    supplementary test data, and mathematical observations" (2005), equations 1-22 (T's cosines of
    multiples of the mean hue expanded from its cosine and sine)."""
    lab1, lab2 = np.asarray(lab1, np.float64), np.asarray(lab2, np.float64)
    return _ciede2000(lab1[..., 0], lab1[..., 1], lab1[..., 2], lab2[..., 0], lab2[..., 1], lab2[..., 2])


def _ciede2000(l1, a1, b1, l2, a2, b2) -> np.ndarray:
    """:func:`ciede2000` of the CIELAB components, each a float64 array (broadcast together)."""
    shape = np.broadcast_shapes(*(np.shape(v) for v in (l1, a1, b1, l2, a2, b2)))
    if not shape:
        return _ciede2000(*(np.reshape(v, 1) for v in (l1, a1, b1, l2, a2, b2)))[0]
    stacked = np.empty((3, 2) + shape)
    for row, (first, second) in zip(stacked, ((l1, l2), (a1, a2), (b1, b2))):
        row[0], row[1] = first, second
    lightness, a, b = stacked
    b_square = b * b
    chroma = a * a
    chroma += b_square
    return ciede2000_pairs(lightness, a, b, np.sqrt(chroma, out=chroma), b_square)


def pair_features(lab: np.ndarray) -> np.ndarray:
    """(5, n) rows of :func:`ciede2000_pairs` for (n, 3) CIELAB values: L*, a*, b*, C*ab and b*^2."""
    features = np.empty((5, len(lab)))
    features[:3] = lab.T
    fill_chroma(features)
    return features


def fill_chroma(features: np.ndarray) -> None:
    """Rows 3 and 4 of (5, n) ``features`` whose rows 0-2 hold L*, a*, b*: C*ab = sqrt(a* a* + b* b*), b*^2."""
    np.multiply(features[2], features[2], out=features[4])
    np.multiply(features[1], features[1], out=features[3])
    features[3] += features[4]
    np.sqrt(features[3], out=features[3])


def ciede2000_pairs(lightness: np.ndarray, a: np.ndarray, b: np.ndarray, chroma: np.ndarray,
                    b_square: np.ndarray) -> np.ndarray:
    """CIEDE2000 of pairs of CIELAB colours given as (2, ...) float64 arrays, row 0 the first colour of
    each pair and row 1 the second: L*, a*, b*, C*ab = sqrt(a* a* + b* b*) and b* b* (``a`` is
    overwritten).  Each row's steps are one numpy call on both colours (the dithering evaluates a few
    hundred pairs at a time, where the number of calls is the cost); the operations on each value are
    those of the formula in its usual order, so the values do not depend on how pairs are grouped."""
    c_mean7 = chroma[0] + chroma[1]
    c_mean7 *= 0.5
    c_mean7 = _seventh(c_mean7)
    scale = 1.5 - 0.5 * np.sqrt(c_mean7 / (c_mean7 + _25_7))           # 1 + G
    a *= scale
    c = a * a
    c += b_square
    c = np.sqrt(c, out=c)
    h = np.arctan2(b, a)
    h += _TAU * (h < 0)                         # (+0.0 added elsewhere: a zero's sign never reaches the result)
    chroma_product = c[0] * c[1]
    dh = h[1] - h[0]
    far = np.abs(dh) > np.pi                    # |h1 - h2|: the mean hue is the other way round
    dh -= _TAU * (dh > np.pi)
    dh += _TAU * (dh < -np.pi)                  # (a value just moved down lies within -pi..0)
    grey = chroma_product == 0                  # a colour without chroma: no hue
    greys = grey.any()
    if greys:
        dh *= ~grey
    dh *= 0.5
    big_h = 2 * np.sqrt(chroma_product) * np.sin(dh, out=dh)
    h_sum = h[0] + h[1]
    h_mean = h_sum * 0.5
    h_mean += far * (np.pi - _TAU * (h_sum >= _TAU))          # + pi or - pi (pi - 2 pi is exactly -pi)
    if greys:
        np.copyto(h_mean, h_sum, where=grey)
    trig = np.empty((6,) + h_mean.shape)       # cos and sin of the mean hue, of 3 and of 4 times it
    cos1, sin1 = np.cos(h_mean, out=trig[0]), np.sin(h_mean, out=trig[1])
    cos2, sin2 = cos1 * cos1 - sin1 * sin1, 2 * sin1 * cos1
    np.subtract(cos2 * cos1, sin2 * sin1, out=trig[2])
    np.add(sin2 * cos1, cos2 * sin1, out=trig[3])
    np.subtract(cos2 * cos2, sin2 * sin2, out=trig[4])
    np.multiply(2 * sin2, cos2, out=trig[5])
    trig *= _T_ANGLES.reshape((6,) + (1,) * h_mean.ndim)     # cos1 cos 30, sin1 sin 30, cos3 cos 6, ...
    t = (1 - 0.17 * (trig[0] + trig[1]) + 0.24 * cos2 + 0.32 * (trig[2] - trig[3]) - 0.20 * (trig[4] + trig[5]))
    d_theta = np.exp(-np.square((h_mean * (180 / np.pi) - 275) / 25)) * (np.pi / 3)     # 2 x (30 deg x ...)
    c_mean = (c[0] + c[1]) * 0.5
    c_mean7 = _seventh(c_mean)
    r_t = -np.sin(d_theta) * 2 * np.sqrt(c_mean7 / (c_mean7 + _25_7))
    l1, l2 = lightness
    l_mean = (l1 + l2) * 0.5 - 50
    l_mean *= l_mean
    s_l = 1 + 0.015 * l_mean / np.sqrt(20 + l_mean)
    dl, dc, dh_term = (l2 - l1) / s_l, (c[1] - c[0]) / (1 + 0.045 * c_mean), big_h / (1 + 0.015 * c_mean * t)
    return np.sqrt(np.maximum(dl * dl + dc * dc + dh_term * dh_term + r_t * dc * dh_term, 0.0))


def _seventh(x: np.ndarray) -> np.ndarray:
    square = x * x
    return square * square * square * x


_TAU, _25_7 = 2 * np.pi, 25.0 ** 7
_COS30, _SIN30 = np.cos(np.radians(30)), np.sin(np.radians(30))
_COS6, _SIN6 = np.cos(np.radians(6)), np.sin(np.radians(6))
_COS63, _SIN63 = np.cos(np.radians(63)), np.sin(np.radians(63))
_T_ANGLES = np.array([_COS30, _SIN30, _COS6, _SIN6, _COS63, _SIN63])


# dE00 >= |dL| / S_L: the chroma-hue part is a quadratic form x^2 + y^2 + R_T xy with |R_T| < sqrt(3) < 2,
# never negative; S_L <= 1 + 0.015 * 50^2 / sqrt(20 + 50^2) for lightness within 0..100.
_MAX_S_L = 1 + 0.015 * 2500 / np.sqrt(2520) + 1e-9
