"""A small IQM of three meshes with real faces (the built file of :mod:`.iqm_files` has one mesh without
a face), for the tests of *Merge Meshes*: written by the extension's codec from values drawn here."""
from __future__ import annotations

import numpy as np

from formats.iqm.codec import read_iqm
from formats.iqm.records import (
    BLENDINDEXES,
    BLENDWEIGHTS,
    COLOR,
    FLOAT,
    NORMAL,
    POSITION,
    TEXCOORD,
    UBYTE,
    IqmVertexArray,
)
from formats.iqm.write import write_iqm

from .iqm_files import build, cstr


def small_model(whole: bool = False, twin: bool = False) -> bytes:
    """The built file's joints, anims and text (support/iqm_files.py) with three meshes of real faces:
    ``body`` (4 vertices, 2 triangles), ``head`` (3 vertices, a triangle and one using a vertex twice),
    ``tail`` (4 vertices, one no triangle uses, 2 triangles; an empty material name), written by the codec.
    ``whole``: head without the triangle using a vertex twice, tail's triangles using its 4 vertices (what an
    edited export can keep the file's vertex order of). ``twin``: the tail named ``body`` too (two meshes of one
    name)."""
    rng = np.random.default_rng(47)
    model = read_iqm(build()[0])
    text = model.text + b"tail\0"
    tail = len(model.text)
    names = {cstr(text, int(m["name"])): m for m in model.meshes}
    body, head = names["body"], names["head"]
    count = 11
    normals = rng.normal(size=(count, 3))
    model.text = text
    model.meshes = np.array([body, head, body], model.meshes.dtype)
    model.meshes[["name", "first_vertex", "num_vertexes", "first_triangle", "num_triangles"]] = [
        (body["name"], 0, 4, 0, 2), (head["name"], 4, 3, 2, 1 if whole else 2),
        (body["name"] if twin else tail, 7, 4, 3 if whole else 4, 2)]
    model.meshes[2]["material"] = 0
    model.num_vertexes = count
    weights = np.zeros((count, 4), np.uint8)
    weights[:, 0], weights[:, 1] = 200, 55
    model.vertex_arrays = [
        IqmVertexArray(POSITION, FLOAT, rng.uniform(-8, 8, (count, 3)).astype(np.float32)),
        IqmVertexArray(TEXCOORD, FLOAT, rng.uniform(0, 1, (count, 2)).astype(np.float32)),
        IqmVertexArray(NORMAL, FLOAT, (normals / np.linalg.norm(normals, axis=1, keepdims=True)).astype(np.float32)),
        IqmVertexArray(BLENDINDEXES, UBYTE, rng.integers(0, 3, (count, 4)).astype(np.uint8)),
        IqmVertexArray(BLENDWEIGHTS, UBYTE, weights),
        IqmVertexArray(COLOR, UBYTE, rng.integers(0, 256, (count, 4)).astype(np.uint8))]
    model.triangles = np.array([(0, 1, 2), (0, 2, 3), (4, 5, 6)] + ([(7, 8, 9), (7, 9, 10)] if whole else
                               [(4, 4, 5), (7, 8, 9), (7, 9, 8)]), np.uint32)
    model.adjacency = None
    model.layout = None
    return write_iqm(model)
