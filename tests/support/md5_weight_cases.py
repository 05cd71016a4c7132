"""Small ``.md5mesh`` texts for the weight cases of issue 44, written here as the Doom 3 exporter lays its
files out (tabs, six decimals): a vertex with more than four weights, a weight of zero bias, two weights
of one vertex on one joint, an editor's absolute path as the shader, a ``commandline`` of the file's own,
and blocks of no vertex (``numverts 0``). Each weight's position is its vertex's in the joint's space
(the joints are not turned), so every vertex lies where the weights' biased sum puts it."""
from __future__ import annotations

import numpy as np

JOINTS = [("root", -1, (0.0, 0.0, 0.0)), ("a", 0, (1.0, 0.0, 0.0)), ("b", 0, (0.0, 1.0, 0.0)),
          ("c", 0, (0.0, 0.0, 1.0)), ("d", 1, (1.0, 1.0, 0.0))]
QUAD = np.array([(0.0, 0.0, 0.0), (1.0, 0.0, 0.0), (1.0, 0.0, 1.0), (0.0, 0.0, 1.0)])
UV = [(0.0, 1.0), (1.0, 1.0), (1.0, 0.0), (0.0, 0.0)]
TRIS = [(0, 2, 1), (0, 3, 2)]
SHADER = r"C:\Users\someone\Documents\models\thing\skin.tga"
COMMANDLINE = r"mesh C:\work\thing.mb -game base -prefix THING_"

# per vertex: (joint, bias, offset added to the weight's position) of each of its weights
PLAIN = {0: [(0, 1.0, 0.0)], 1: [(1, 1.0, 0.0)], 2: [(2, 1.0, 0.0)], 3: [(3, 1.0, 0.0)]}
MANY = {**PLAIN, 0: [(0, 0.3, 0.0), (1, 0.2, 0.0), (2, 0.2, 0.0), (3, 0.2, 0.0), (4, 0.1, 0.0)]}
ZERO = {**PLAIN, 1: [(1, 1.0, 0.0), (2, 0.0, 0.0)]}
TWICE = {**PLAIN, 2: [(3, 0.25, 0.3), (3, 0.75, -0.1)]}       # 0.25 * 0.3 + 0.75 * -0.1 = 0: the vertex
ALL = {0: MANY[0], 1: ZERO[1], 2: TWICE[2], 3: [(4, 0.5, 0.0), (0, 0.25, 0.0), (2, 0.25, 0.0)]}


def _f(value: float) -> str:
    return "%.6f" % value


def block(weights: dict | None, shader: str = SHADER, points: np.ndarray = QUAD, uv: list = UV,
          tris: list = TRIS) -> str:
    """One ``mesh { }`` block of the quad (or ``points`` with ``uv`` and ``tris``) with ``weights`` (None: a
    block of no vertex)."""
    if weights is None:
        return f'mesh {{\n\tshader "{shader}"\n\n\tnumverts 0\n\n\tnumtris 0\n\n\tnumweights 0\n}}\n\n'
    verts, rows = [], []
    for v in range(len(points)):
        verts.append(f"\tvert {v} ( {_f(uv[v][0])} {_f(uv[v][1])} ) {len(rows)} {len(weights[v])}\n")
        for joint, bias, offset in weights[v]:
            local = points[v] - np.array(JOINTS[joint][2]) + (offset, 0.0, 0.0)
            rows.append(f"\tweight {len(rows)} {joint} {_f(bias)} ( {' '.join(map(_f, local))} )\n")
    tris = [f"\ttri {t} {a} {b} {c}\n" for t, (a, b, c) in enumerate(tris)]
    return (f'mesh {{\n\tshader "{shader}"\n\n\tnumverts {len(verts)}\n' + "".join(verts)
            + f"\n\tnumtris {len(tris)}\n" + "".join(tris) + f"\n\tnumweights {len(rows)}\n" + "".join(rows)
            + "}\n\n")


def md5mesh(blocks: list[str], commandline: str = COMMANDLINE) -> bytes:
    joints = "".join(f'\t"{name}"\t{parent} ( {" ".join(map(_f, pos))} ) ( 0.000000 0.000000 0.000000 )\t\t'
                     f'// {JOINTS[parent][0] if parent >= 0 else ""}\n' for name, parent, pos in JOINTS)
    return (f'MD5Version 10\ncommandline "{commandline}"\n\nnumJoints {len(JOINTS)}\nnumMeshes {len(blocks)}\n\n'
            f"joints {{\n{joints}}}\n\n" + "".join(blocks)).encode()


CASES = {
    "more-than-four": md5mesh([block(MANY)]),
    "zero-bias": md5mesh([block(ZERO)]),
    "one-joint-twice": md5mesh([block(TWICE)]),
    "empty-blocks": md5mesh([block(PLAIN), block(None, "models/thing/nothing"), block(PLAIN, "models/thing/b"),
                             block(None, "models/thing/nothing2")]),
    "all": md5mesh([block(ALL), block(None), block(MANY, "models/thing/second", QUAD + (0.0, 0.5, 0.0))]),
}
