"""IQM joints, poses and frames as float arrays; vertex arrays as numpy.

A frame holds, for each pose (one per joint) in order, one ``unsigned short`` per channel whose bit
is set in the pose's mask (channels 0-2 translate x y z, 3-6 rotate x y z w, 7-9 scale x y z)::

    channel[c] = channeloffset[c] + (mask & 1 << c ? value * channelscale[c] : 0)

computed in single precision, as DarkPlaces (``model_alias.c`` ``Mod_INTERQUAKEMODEL_Load``) does.
The result is relative to the pose's parent, as the joints' bind pose is. :func:`encode_channels`
quantises as the SDK's exporter did for the corpus's files (their eight animated ones re-encode to
their very bytes): per pose and channel, offset the minimum over the frames, scale the range / 65535,
the mask bit set where the range is not nothing.
"""
from __future__ import annotations

import numpy as np

from .records import BLENDINDEXES, BLENDWEIGHTS, CHANNELS, COLOR, POSE, IqmModel, IqmVertexArray

RANGE_EPSILON = 1e-10               # the SDK's threshold below which a channel is constant


def _channel_bits(masks: np.ndarray) -> np.ndarray:
    """(P, 10) bool: which channels each pose's mask sets."""
    masks = np.asarray(masks, np.uint32)
    return ((masks[:, None] >> np.arange(CHANNELS, dtype=np.uint32)) & 1).astype(bool)


def frame_channels(model: IqmModel) -> np.ndarray:
    """(F, P, 10) float32: every pose's ten channels at every frame."""
    poses, frames = model.poses, model.frames
    count, width = model.num_frames, len(poses) * CHANNELS
    flat = _channel_bits(poses["mask"]).reshape(-1)
    values = np.empty((count, width), np.float32)
    values[:] = poses["channeloffset"].reshape(-1)
    used = np.flatnonzero(flat)
    columns = np.cumsum(flat)[used] - 1
    scales = poses["channelscale"].reshape(-1)[used].astype(np.float32)
    values[:, used] += frames[:, columns].astype(np.float32) * scales
    return values.reshape(count, len(poses), CHANNELS)


def frame_poses(model: IqmModel) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """translate (F, P, 3), rotate (F, P, 4) quaternions x y z w, scale (F, P, 3), float32."""
    channels = frame_channels(model)
    return channels[..., 0:3], channels[..., 3:7], channels[..., 7:10]


def bind_pose(model: IqmModel) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The joints' parents (J,) int, translate (J, 3), rotate (J, 4) x y z w and scale (J, 3)."""
    joints = model.joints
    return (joints["parent"].astype(np.int64), np.array(joints["translate"], np.float32),
            np.array(joints["rotate"], np.float32), np.array(joints["scale"], np.float32))


def anim_frames(model: IqmModel, index: int) -> range:
    """The frames anim ``index`` plays (the reader checked that they exist)."""
    anim = model.anims[index]
    return range(int(anim["first_frame"]), int(anim["first_frame"]) + int(anim["num_frames"]))


def encode_channels(channels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(F, P, 10) channel values -> (poses without parents (P,) POSE, frames (F, C) uint16)."""
    channels = np.asarray(channels, np.float32)
    count, num_poses = channels.shape[:2]
    poses = np.zeros(num_poses, POSE)
    if count == 0:
        return poses, np.zeros((0, 0), np.uint16)
    low, high = channels.min(axis=0), channels.max(axis=0)
    span = high.astype(np.float64) - low
    varying = span >= RANGE_EPSILON
    scale = np.where(varying, span / 0xFFFF, 0.0).astype(np.float32)
    poses["channeloffset"], poses["channelscale"] = low, scale
    poses["mask"] = (varying * (1 << np.arange(CHANNELS))).sum(axis=1)
    flat = varying.reshape(-1)
    safe = np.where(scale == 0, 1, scale).reshape(-1)[flat]
    steps = (channels.reshape(count, -1)[:, flat].astype(np.float64) - low.reshape(-1)[flat]) / safe
    return poses, np.clip(np.rint(steps), 0, 0xFFFF).astype(np.uint16)


def vertex_floats(array: IqmVertexArray) -> np.ndarray:
    """(V, size) float32 of a vertex array: float formats as they are; integer blend weights and colours
    as a fraction of their type's largest value (ubyte 255 -> 1.0, as the engines read them); other
    integers as their values."""
    data = array.data
    if data.dtype.kind in "iu" and array.type in (BLENDWEIGHTS, COLOR):
        return data.astype(np.float32) / np.float32(np.iinfo(data.dtype).max)
    return data.astype(np.float32)


def vertex_values(model: IqmModel, kind: int) -> np.ndarray | None:
    """The array of type ``kind`` (:meth:`IqmModel.array`) as :func:`vertex_floats` gives it (blend
    indexes as int64), or None."""
    array = model.array(kind)
    if array is None:
        return None
    return array.data.astype(np.int64) if kind == BLENDINDEXES else vertex_floats(array)
