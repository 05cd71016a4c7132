"""A two-joint MD5 pair written here for the ``.md5scale`` tests: the root at the origin, the arm 2 units
up; vertex 0 on the root, vertices 1 and 2 on the arm, each with one weight at (1, 0, 0) of its joint;
three anim frames turning the arm 0, 90, 90 degrees about Z."""
from __future__ import annotations

import numpy as np

S = np.sqrt(0.5)
MESH = b"""MD5Version 10
commandline ""
numJoints 2
numMeshes 1
joints {
\t"root" -1 ( 0 0 0 ) ( 0 0 0 )
\t"arm" 0 ( 0 0 2 ) ( 0 0 0 )
}
mesh {
\tshader "m"
\tnumverts 3
\tvert 0 ( 0 0 ) 0 1
\tvert 1 ( 1 0 ) 1 1
\tvert 2 ( 0 1 ) 1 1
\tnumtris 1
\ttri 0 0 1 2
\tnumweights 2
\tweight 0 0 1 ( 1 0 0 )
\tweight 1 1 1 ( 1 0 0 )
}
"""


def anim_text() -> bytes:
    """Three frames: the arm (local position 0 0 2) turned 0, 90, 90 degrees about Z."""
    turn = [0.0, -S, -S]                   # x y z stored with w <= 0: (0, 0, -s, -c) is +90 degrees
    frames = "".join(f"frame {k} {{\n 0 0 0 0 0 0\n 0 0 2 0 0 {turn[k]:.9f}\n}}\n" for k in range(3))
    return (b'MD5Version 10\ncommandline ""\nnumFrames 3\nnumJoints 2\nframeRate 10\nnumAnimatedComponents 12\n'
            b'hierarchy {\n "root" -1 63 0\n "arm" 0 63 6\n}\nbounds {\n' + b"( 0 0 0 ) ( 1 1 1 )\n" * 3 +
            b"}\nbaseframe {\n ( 0 0 0 ) ( 0 0 0 )\n ( 0 0 2 ) ( 0 0 0 )\n}\n" + frames.encode())




SCALES = {"arm": {"scale_positions": True, "1": 2.0}, "root": {"2": 0.5}}
# vertices per frame under SCALES, worked out by hand from Q2PRO's rules: frame 1 the arm's scale 2
# doubles its local position (scale_positions) and its weights' offsets, turned 90 degrees; frame 2 the
# root's 0.5 shrinks only the root's own weight (children do not inherit a joint's scale)
SCALED_POSITIONS = [[[1, 0, 0], [1, 0, 2], [1, 0, 2]],
                    [[1, 0, 0], [0, 2, 4], [0, 2, 4]],
                    [[0.5, 0, 0], [0, 1, 2], [0, 1, 2]]]
