"""IQM export's keeping of a real file's quantisation (exporters/iqm/imported_parts.py, pose_math.py), on the
corpus's animated Red Eclipse files without a scene: each file's decoded poses, turned into joint
matrices and back into channels the way the export turns Blender's pose bones into them, quantise with
the file's own poses to the file's very frames; its bind pose to its very joint records; a pose moved
past a channel's range is refused (so the export quantises anew)."""
from __future__ import annotations

import struct
from importlib import import_module

import numpy as np
import pytest
from support.environment import corpus_params
from support.iqm_files import header_at

from formats.iqm.animation import bind_pose, frame_channels
from formats.iqm.codec import read_iqm

CORPUS = corpus_params("iqm/**/*.iqm")


def _animated() -> list:
    out = []
    for param in CORPUS:
        path = param.values[0]
        if path is None:
            out.append(param)
            continue
        with open(path, "rb") as file:
            if struct.unpack_from("<I", file.read(124), header_at("num_frames"))[0]:
                out.append(param)
    return out


@pytest.mark.parametrize("path", _animated())
def test_iqm_export_quantises_a_real_files_poses_to_its_very_frames(extension, path):
    if path is None:
        pytest.skip("no IQM corpus (bash tools/dev.sh corpus)")
    kept = import_module(f"{extension}.exporters.iqm.imported_parts")
    pose_math = import_module(f"{extension}.exporters.iqm.pose_math")
    model = read_iqm(path.read_bytes())
    parents = model.poses["parent"].astype(np.int64)
    # the file's poses as joint matrices, back to channels as the export reads Blender's
    matrices = pose_math.world_matrices(parents, pose_math.local_matrices(frame_channels(model)))
    values = pose_math.channels(pose_math.relative(parents, matrices))
    poses, frames, files = kept.kept_encoding(values, model, model.joints["name"], parents)
    assert np.array_equal(poses, model.poses) and np.array_equal(frames, model.frames)
    assert list(files) == list(range(model.num_frames))             # every row the file's frame's
    # the bind pose likewise gives back the file's joint records
    joints = np.array(model.joints)
    _, translate, rotate, scale = bind_pose(model)
    rest = pose_math.channels(pose_math.local_matrices(np.concatenate([translate, rotate, scale], 1)))
    joints["translate"], joints["rotate"], joints["scale"] = rest[:, :3], rest[:, 3:7], rest[:, 7:]
    assert kept.kept_joints(joints, model).tobytes() == model.joints.tobytes()
    # a translation moved past its channel's range: the file's quantisation cannot hold it
    moved = values.copy()
    moved[0, 0, 0] += 1.0 + 65535 * float(model.poses["channelscale"][0, 0])
    assert kept.kept_encoding(moved, model, model.joints["name"], parents) is None
