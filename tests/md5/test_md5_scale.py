"""Q2PRO's ``.md5scale`` (formats/md5/scale.py) on a two-joint model written here: the scales read from
JSON built in the test, the skinned vertices against positions worked out by hand from Q2PRO's rules
(a joint's scale multiplies its weights' offsets, ``scale_positions`` also its position relative to its
parent, children do not inherit it), written back and read again, and every kind of text Q2PRO
refuses giving a warning and the scales it would keep."""
from __future__ import annotations

import json

import numpy as np
import pytest
from support.md5_scale_model import MESH, SCALED_POSITIONS, SCALES, anim_text

from formats.errors import FormatError
from formats.md5.anim import read_md5anim
from formats.md5.mesh import read_md5mesh
from formats.md5.scale import Md5Scale, read_md5scale, write_md5scale
from formats.md5.skinning import frame_joints, skin_vertices


def _skinned(scale: Md5Scale | None) -> np.ndarray:
    mesh, anim = read_md5mesh(MESH), read_md5anim(anim_text())
    pos, quat = frame_joints(anim, scale=scale)
    return skin_vertices(mesh.meshes[0], pos, quat, None if scale is None else scale.scales)


def _json(obj) -> bytes:
    return json.dumps(obj).encode()


def test_scales_read_as_q2pro_sets_them():
    scale = read_md5scale(_json(SCALES), ["root", "arm"], 3)
    assert scale.scales.tolist() == [[1.0, 1.0], [1.0, 2.0], [0.5, 1.0]]
    assert scale.scale_positions.tolist() == [False, True]
    assert scale.warnings == [] and not scale.is_identity


def test_skinning_with_scales_matches_hand_worked_positions():
    plain = _skinned(None)
    np.testing.assert_allclose(plain[0], [[1, 0, 0], [1, 0, 2], [1, 0, 2]], atol=1e-7)
    scaled = _skinned(read_md5scale(_json(SCALES), ["root", "arm"], 3))
    np.testing.assert_allclose(scaled, SCALED_POSITIONS, atol=1e-7)
    no_positions = read_md5scale(_json({"arm": {"1": 2.0}}), ["root", "arm"], 3)
    np.testing.assert_allclose(_skinned(no_positions)[1], [[1, 0, 0], [0, 2, 2], [0, 2, 2]], atol=1e-7)


def test_written_scales_read_back_the_same():
    scale = read_md5scale(_json(SCALES), ["root", "arm"], 3)
    scale.scales[0, 0] = 1.2345678
    again = read_md5scale(write_md5scale(["root", "arm"], scale), ["root", "arm"], 3)
    np.testing.assert_array_equal(again.scales, scale.scales.astype(np.float32))
    assert again.scale_positions.tolist() == [False, True] and again.warnings == []
    assert write_md5scale(["root", "arm"], read_md5scale(b"", ["root", "arm"], 3)) == b"{\n}\n"
    with pytest.raises(FormatError):
        write_md5scale(["root"], scale)


@pytest.mark.parametrize("text, kept, warning", [
    (b"", [[1, 1]], None),
    (b"   \n", [[1, 1]], None),
    (b"{not json", [[1, 1]], "not valid JSON"),
    (b"[1, 2]", [[1, 1]], "top level is not a JSON object"),
    (_json({"root": 3}), [[1, 1]], "value is not an object"),
    (_json({"arm": {"0": 2, "1": "x"}, "root": {"0": 5}}), [[1, 2]], "not a number"),
    (_json({"nobody": {"0": 2}, "arm": {"0": 3}}), [[1, 3]], "no joint of the anim"),
    (_json({"arm": {"0": 3, "9": 2, "-1": 2}}), [[1, 3]], "2 frame number(s) past"),
    (_json({"arm": {"0": True, "scale_positions": 1}}), [[1, 0]], None),
    (_json({f"j{i}": {"0": 2} for i in range(1400)}), [[1, 1]], "4096 JSON tokens"),
])
def test_text_q2pro_refuses_keeps_what_it_would(text, kept, warning):
    scale = read_md5scale(text, ["root", "arm"], 1)
    assert scale.scales.tolist() == kept
    assert not scale.scale_positions.any()
    if warning is None:
        assert scale.warnings == []
    else:
        assert any(warning in w for w in scale.warnings), scale.warnings
