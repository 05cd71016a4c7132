"""Rotations as numpy arrays: x y z w quaternions to 3x3 matrices and back, and a run of frames'
quaternions made continuous; what the skeletal imports and exports (MD5, IQM) share.
"""
from __future__ import annotations

import numpy as np


def quat_normalize(q: np.ndarray) -> np.ndarray:
    """Unit quaternions; a zero quaternion stays zero (as Q2PRO's ``Quat_Normalize``)."""
    length = np.sqrt((q * q).sum(-1, keepdims=True))
    return np.divide(q, length, out=np.array(q, np.float64), where=length > 0)


def quaternion_matrices(q: np.ndarray) -> np.ndarray:
    """(..., 3, 3) rotation matrices of (..., 4) x y z w quaternions (normalised first)."""
    x, y, z, w = np.moveaxis(quat_normalize(np.asarray(q, np.float64)), -1, 0)
    return np.stack([np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)], -1),
                     np.stack([2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)], -1),
                     np.stack([2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)], -1)], -2)


def matrix_quaternions(m: np.ndarray) -> np.ndarray:
    """(..., 4) unit x y z w quaternions of (..., 3, 3) rotation matrices (the largest-component method)."""
    m = np.asarray(m, np.float64)
    trace = m[..., 0, 0] + m[..., 1, 1] + m[..., 2, 2]
    candidates = np.stack([
        np.stack([m[..., 2, 1] - m[..., 1, 2], m[..., 0, 2] - m[..., 2, 0], m[..., 1, 0] - m[..., 0, 1], 1 + trace], -1),
        np.stack([1 + m[..., 0, 0] - m[..., 1, 1] - m[..., 2, 2], m[..., 0, 1] + m[..., 1, 0],
                  m[..., 0, 2] + m[..., 2, 0], m[..., 2, 1] - m[..., 1, 2]], -1),
        np.stack([m[..., 0, 1] + m[..., 1, 0], 1 - m[..., 0, 0] + m[..., 1, 1] - m[..., 2, 2],
                  m[..., 1, 2] + m[..., 2, 1], m[..., 0, 2] - m[..., 2, 0]], -1),
        np.stack([m[..., 0, 2] + m[..., 2, 0], m[..., 1, 2] + m[..., 2, 1],
                  1 - m[..., 0, 0] - m[..., 1, 1] + m[..., 2, 2], m[..., 1, 0] - m[..., 0, 1]], -1)], -2)
    pick = np.argmax(np.stack([trace, m[..., 0, 0], m[..., 1, 1], m[..., 2, 2]], -1), axis=-1)
    chosen = np.take_along_axis(candidates, pick[..., None, None], axis=-2)[..., 0, :]
    return quat_normalize(chosen)


def continuous(quat: np.ndarray) -> np.ndarray:
    """(F, J, 4) quaternions with each frame's sign chosen nearest the previous frame's (so keys
    interpolate the short way)."""
    out = np.array(quat, np.float64)
    for f in range(1, len(out)):
        flip = (out[f] * out[f - 1]).sum(-1) < 0
        out[f][flip] *= -1
    return out
