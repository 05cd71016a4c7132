"""``.md5mesh`` reader: text -> :class:`~.records.Md5Mesh` (layout in :mod:`.records`).

What is refused (:class:`~..errors.FormatError` naming the line and what was expected), as the engines
refuse it (ironwail ``Mod_LoadMD5MeshModel`` ``Sys_Error``, Q2PRO ``MD5_ParseMesh`` ``MD5_ParseError``):
a version other than 10; a missing keyword, brace or parenthesis; a token that is not a number where
one is needed; a count that the records after it do not fill (checked before anything is allocated);
a vertex, triangle or weight index outside its count or given twice; a triangle corner outside the
vertices; a weight's joint outside the joints; a vertex whose weights run past ``numweights``; a parent
outside -1 .. J-1; a joint that is its own ancestor (its own parent, or ``a`` the parent of ``b`` and ``b``
of ``a``: no root leads to it, so no engine can pose it; the anim's parser refuses the same, since its
parents come first); a mesh block that does not close.

Read, with a warning naming the engines that refuse it:

- no ``MD5Version`` line, or ``commandline`` before it (Red Eclipse's zapper): ironwail,
  Q2PRO and FTE expect ``MD5Version`` as the first token; no ``commandline``: Q2PRO expects one;
- ``numMeshes`` larger than the mesh blocks present (Red Eclipse's ball: 2 declared, 1 held): FTE
  reads the blocks it finds (``Mod_ParseMD5MeshModel`` loops over keywords), ironwail and Q2PRO loop
  ``numMeshes`` times and fail on the missing ``mesh``; the file is read as FTE reads it and the
  declared count is kept (:attr:`Md5Mesh.declared_meshes`) so that it writes back unchanged;
- a mesh block without ``shader`` (three Red Eclipse props): FTE reads the keywords of a block in
  any order and needs none of them, ironwail and Q2PRO expect ``shader`` first;
- a joint whose parent comes after it, or a second root: FTE refuses it (parents must be lower, only
  joint 0 a root).
"""
from __future__ import annotations

from typing import cast

import numpy as np

from ..message_text import quoted
from .limits import mesh_warnings
from .records import VERSION, Md5Header, Md5Mesh, Md5MeshPart, Md5Source
from .text import Md5Text


def read_header(text: Md5Text, warnings: list[str]) -> Md5Header:
    """``MD5Version 10`` and ``commandline "..."`` in either order, each optional (see the module)."""
    version, commandline, order = None, None, []
    while text.peek() in (b"MD5Version", b"commandline") and not text.quoted[text.pos]:
        word = cast(bytes, text.peek()).decode()
        if word in order:
            raise text.error(f"'{word}' is given twice")
        text.pos += 1
        order.append(word)
        if word == "MD5Version":
            version = text.integer("the version")
            if version != VERSION:
                raise text.error(f"MD5Version is {version}, expected {VERSION} (the only version the engines read)",
                                 text.pos - 1)
        else:
            commandline = text.string("the commandline string")
    if order[:1] != ["MD5Version"]:
        warnings.append("the file does not start with 'MD5Version 10': ironwail, Q2PRO and FTE refuse it")
    if commandline is None:
        warnings.append("no 'commandline' line: Q2PRO refuses the file")
    return Md5Header(version=version, commandline=commandline, order=tuple(order), encoding=text.encoding)


def source_of(text: Md5Text) -> Md5Source:
    return Md5Source(text.data, text.tokens, text.quoted, text.starts, text.ends)


def indexed(text: Md5Text, block: np.ndarray, column: int, count: int, start: int, width: int,
            what: str) -> np.ndarray:
    """The order that puts records by their own index (column ``column``): each of 0 .. count-1 once."""
    index = block[:, column].astype(np.int64) if count else np.zeros(0, np.int64)
    bad = (index < 0) | (index >= count)
    if bad.any():
        row = int(np.argmax(bad))
        raise text.error(f"{what} index {int(index[row])} is {_outside(count)}: number the records 0 .. count - 1",
                         start + row * width + column)
    seen = np.zeros(count, np.int64)
    np.add.at(seen, index, 1)
    if (seen > 1).any():
        earlier: set[int] = set()       # (set.add's None is the idiom's False)
        row = next(r for r, i in enumerate(index.tolist()) if i in earlier or earlier.add(i))  # type: ignore[func-returns-value]
        raise text.error(f"{what} {int(index[row])} is given twice", start + row * width + column)
    order = np.empty(count, np.int64)
    order[index] = np.arange(count)
    return order


def _outside(count: int, noun: str = "records") -> str:
    return f"outside 0 .. {count - 1}" if count else f"but the mesh has no {noun}"


def _floats(block: np.ndarray, columns: list[int]) -> np.ndarray:
    return block[:, columns].astype(np.float64) if len(block) else np.zeros((0, len(columns)))


def _ints(block: np.ndarray, columns: list[int]) -> np.ndarray:
    return block[:, columns].astype(np.int64) if len(block) else np.zeros((0, len(columns)), np.int64)


def _read_part(text: Md5Text, num_joints: int, index: int) -> Md5MeshPart:
    where = f"mesh {index}"
    text.expect(b"mesh")
    text.expect(b"{")
    shader = text.string("the shader name") if text.check(b"shader") else None
    text.expect(b"numverts")
    num_verts = text.integer("numverts", 0)
    start = verts_start = text.pos
    verts = text.records(num_verts, (b"vert", int, b"(", float, float, b")", int, int), f"{where} vertex")
    order = indexed(text, verts, 1, num_verts, start, 8, f"{where} vertex")
    verts = verts[order]
    text.expect(b"numtris")
    num_tris = text.integer("numtris", 0)
    start = text.pos
    tris = text.records(num_tris, (b"tri", int, int, int, int), f"{where} triangle")
    tri_order = indexed(text, tris, 1, num_tris, start, 5, f"{where} triangle")
    triangles = _ints(tris, [2, 3, 4])[tri_order]
    bad = (triangles < 0) | (triangles >= num_verts)
    if bad.any():
        triangle, corner = (int(i) for i in np.argwhere(bad)[0])
        row = int(tri_order[triangle])
        raise text.error(f"{where} triangle {int(tris[row, 1])} uses vertex {int(triangles[triangle, corner])}, "
                         f"{_outside(num_verts, 'vertices')}: correct the index or numverts", start + row * 5 + 2 + corner)
    text.expect(b"numweights")
    num_weights = text.integer("numweights", 0)
    start = text.pos
    weights = text.records(num_weights, (b"weight", int, int, float, b"(", float, float, float, b")"),
                           f"{where} weight")
    weight_order = indexed(text, weights, 1, num_weights, start, 9, f"{where} weight")
    joint = _ints(weights, [2])[:, 0]
    bad = (joint < 0) | (joint >= num_joints)
    if bad.any():
        row = int(np.argmax(bad))
        raise text.error(f"{where} weight {int(weights[row, 1])} uses joint {int(joint[row])}, outside 0 .. "
                         f"{num_joints - 1}: correct the joint index or numJoints", start + row * 9 + 2)
    text.expect(b"}")
    first, count = _ints(verts, [6])[:, 0], _ints(verts, [7])[:, 0]
    bad = (first < 0) | (count < 0) | (first + count > num_weights)
    if bad.any():
        vertex = int(np.argmax(bad))
        raise text.error(f"{where} vertex {vertex} uses weights {int(first[vertex])} .. "
                         f"{int(first[vertex] + count[vertex]) - 1}, outside the {num_weights} weights: correct its "
                         "first weight and count, or numweights", verts_start + int(order[vertex]) * 8 + 6)
    weight_floats = _floats(weights, [3, 5, 6, 7])[weight_order]
    return Md5MeshPart(shader=shader, uv=_floats(verts, [3, 4]), weight_start=first, weight_count=count,
                       triangles=triangles, weight_joint=joint[weight_order], weight_bias=weight_floats[:, 0],
                       weight_pos=weight_floats[:, 1:])


def ancestor_loops(parents: np.ndarray) -> np.ndarray:
    """Joints (indices, in order) that are their own ancestor or below one: every parent inside -1 .. J-1.
    Pointer doubling (each pass jumps twice as far), so a long chain costs log2(J) passes, not J."""
    parents = np.asarray(parents, np.int64)
    count = len(parents)
    up = np.where(parents < 0, count, parents)
    up = np.append(up, count)                       # joint J: the root above every root
    for _ in range(max(count, 1).bit_length() + 1):
        up = up[up]
    return np.flatnonzero(up[:count] != count)


def _refuse_loops(text: Md5Text, names: list[str], parents: np.ndarray, start: int) -> None:
    """A joint that is its own ancestor, refused with the joints of its loop (their names and lines)."""
    looped = ancestor_loops(parents)
    if not len(looped):
        return
    joint = int(looped[0])
    for _ in range(len(parents)):                   # up from a joint below the loop to one inside it
        joint = int(parents[joint])
    loop = [joint]
    while int(parents[loop[-1]]) != joint:
        loop.append(int(parents[loop[-1]]))
    loop.sort()
    shown = [f"{quoted(names[j])} (joint {j})" for j in loop]
    if len(loop) == 1:
        problem = f"joint {shown[0]} is its own parent"
    else:
        problem = (f"joints {', '.join(shown[:-1])} and {shown[-1]} are each other's ancestors ("
                   + ", ".join(f"{quoted(names[int(parents[j])])} is the parent of {quoted(names[j])}"
                               for j in loop) + ")")
    which = ("it", "give it") if len(loop) == 1 else ("them", "give one of them")
    raise text.error(f"{problem}: no root leads to {which[0]}, so no engine can pose the model; {which[1]} the "
                     "parent -1 (a root) or a joint outside the loop",
                     start + loop[0] * 12 + 1)


def read_md5mesh(data: bytes) -> Md5Mesh:
    """Decode an ``.md5mesh``; raises :class:`~..errors.FormatError` (with the line) for bad text."""
    text = Md5Text(data, "md5mesh")
    warnings: list[str] = []
    header = read_header(text, warnings)
    text.expect(b"numJoints")
    num_joints = text.integer("numJoints", 1)
    text.expect(b"numMeshes")
    num_meshes = text.integer("numMeshes", 1)
    text.expect(b"joints")
    text.expect(b"{")
    start = text.pos
    block = text.records(num_joints, (None, int, b"(", float, float, float, b")", b"(", float, float, float, b")"),
                         "joint")
    names = [text.tokens[start + i * 12].decode(text.encoding) for i in range(num_joints)]
    parents = _ints(block, [1])[:, 0]
    bad = (parents < -1) | (parents >= num_joints)
    if bad.any():
        row = int(np.argmax(bad))
        raise text.error(f"joint {row} has parent {int(parents[row])}, outside -1 .. {num_joints - 1}",
                         start + row * 12 + 1)
    _refuse_loops(text, names, parents, start)
    text.expect(b"}")
    floats = _floats(block, [3, 4, 5, 8, 9, 10])
    meshes: list[Md5MeshPart] = []
    while len(meshes) < num_meshes and text.peek() == b"mesh":
        meshes.append(_read_part(text, num_joints, len(meshes)))
    if not meshes:
        raise text.expected("'mesh'")
    if text.peek() is not None:
        raise text.expected("the end of the file" if len(meshes) == num_meshes else "'mesh'")
    declared = None
    if len(meshes) < num_meshes:
        declared = num_meshes
        follow = "blocks follow" if len(meshes) > 1 else "block follows"
        warnings.append(f"numMeshes is {num_meshes} but {len(meshes)} mesh {follow}: FTE reads the blocks present "
                        "(and so does this reader); ironwail and Q2PRO refuse the file")
    mesh = Md5Mesh(joint_names=names, joint_parents=parents, joint_pos=floats[:, :3], joint_orient=floats[:, 3:],
                   meshes=meshes, header=header, declared_meshes=declared, source=source_of(text))
    unnamed = sum(part.shader is None for part in meshes)
    if unnamed:
        warnings.append(f"{unnamed} mesh block{'s' if unnamed > 1 else ''} without 'shader': FTE reads "
                        "them, ironwail and Q2PRO refuse the file")
    mesh.warnings = warnings + mesh_warnings(mesh)
    return mesh
