"""A decoded MD3 laid out in Blender as common/md3/contract.py says an import leaves it,
built here from the file alone (independent of the importer): a model root with the file-level records
and the frame table, a mesh per surface (vertex i = file vertex i, polygon i = file triangle i reversed,
the UV of every corner its vertex's st, frame f = shape key f shown at scene frame 1 + f) and an empty
per tag keyed at every frame."""
from __future__ import annotations

import json

import numpy as np

from formats.md3.codec import read_md3
from formats.md3.records import FRAME, SHADER, ST, SURFACE, TAG, XYZ_NORMAL
from formats.md3.tags import tag_matrices
from formats.md3.vertices import decode_xyz

START = 1


def _layout_json(layout) -> str:
    return json.dumps({"offsets": layout.offsets, "surfaces": layout.surfaces, "sizes": layout.sizes,
                       "filler": [[offset, blob.hex()] for offset, blob in layout.filler]})


def _key_frames(key_block, frame: int, count: int) -> None:
    """Key ``frame`` (0-based) shows at scene frame START + frame alone."""
    for f, value in ((frame - 1, 0.0), (frame, 1.0), (frame + 1, 0.0)):
        if 0 <= f < count:
            key_block.value = value
            key_block.keyframe_insert("value", frame=START + f)


def build(bpy, c, data: bytes, name: str = "model"):
    """The contract's objects (``c``: the extension's common.contract module) for the MD3 ``data``;
    returns the root empty."""
    model = read_md3(data)
    frames = model.num_frames
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = START, START + frames - 1
    root = bpy.data.objects.new(name, None)
    scene.collection.objects.link(root)
    ofs = model.layout.offsets
    root[c.MD3_ROOT] = ""
    root[c.MD3_NAME] = model.name_raw
    root[c.MD3_FLAGS] = model.flags
    root[c.MD3_NUM_SKINS] = model.num_skins
    root[c.MD3_FRAMES] = data[ofs["ofs_frames"]:ofs["ofs_frames"] + frames * FRAME.itemsize]
    root[c.MD3_TAGS] = data[ofs["ofs_tags"]:ofs["ofs_tags"] + frames * model.num_tags * TAG.itemsize]
    root[c.MD3_LAYOUT] = _layout_json(model.layout)
    if model.tail_record:
        root[c.MD3_TAIL] = model.tail_record
    root.classic_model.source_format = "MD3"
    root.classic_model.frame_offset = START
    for i, frame_name in enumerate(model.frame_names):
        item = root.classic_model.frames.add()
        item.name = item.file_name = frame_name
        item.shape_key = f"{i:04d}"
    for index, (surface, where) in enumerate(zip(model.surfaces, model.layout.surfaces)):
        _surface(bpy, data, root, surface, where, index, frames, c)
    matrices = tag_matrices(model.tag_origin, model.tag_axis)
    for t, tag_name in enumerate(model.tag_names):
        empty = bpy.data.objects.new(tag_name, None)
        scene.collection.objects.link(empty)
        empty.parent = root
        empty[c.MD3_TAG_INDEX] = t
        empty[c.MD3_TAG_NAME] = model.tag_name_raw[0, t].tobytes()
        empty.rotation_mode = "QUATERNION"
        for f in range(frames):
            empty.matrix_basis = bpy_matrix(matrices[f, t])
            for path in ("location", "rotation_quaternion", "scale"):
                empty.keyframe_insert(path, frame=START + f)
    scene.frame_set(START)
    return root


def bpy_matrix(m):
    from mathutils import Matrix
    return Matrix([list(map(float, row)) for row in m])


def _surface(bpy, data, root, surface, where, index, frames, c):
    start = where["start"]
    head = data[start:start + SURFACE.itemsize]
    nv = surface.num_verts
    mesh = bpy.data.meshes.new(surface.name or f"surface{index}")
    tris = np.asarray(surface.triangles, np.int64).reshape(-1, 3)
    degenerate = (tris[:, 0] == tris[:, 1]) | (tris[:, 1] == tris[:, 2]) | (tris[:, 0] == tris[:, 2])
    faces = tris[~degenerate][:, ::-1]
    positions = decode_xyz(surface.xyz)
    mesh.from_pydata(positions[0].tolist() if nv else [], [], faces.tolist())
    if degenerate.any():
        rows = np.zeros(int(degenerate.sum()), np.dtype([("index", "<i4"), ("indexes", "<i4", (3,))]))
        rows["index"], rows["indexes"] = np.flatnonzero(degenerate), tris[degenerate]
        mesh[c.MD3_DEGENERATE] = rows.tobytes()
    layer = mesh.uv_layers.new(name="UVMap")
    st = surface.st.astype(np.float32)
    uv = np.stack([st[:, 0], np.float32(1.0) - st[:, 1]], axis=1).astype(np.float32)
    if len(faces):
        layer.uv.foreach_set("vector", uv[faces.reshape(-1)].ravel())
    mesh[c.MD3_SURFACE] = head
    mesh[c.MD3_SHADERS] = data[start + where["ofs_shaders"]:start + where["ofs_shaders"]
                               + len(surface.shaders) * SHADER.itemsize]
    mesh[c.MD3_ST] = data[start + where["ofs_st"]:start + where["ofs_st"] + nv * ST.itemsize]
    mesh[c.MD3_XYZ_NORMALS] = data[start + where["ofs_xyznormals"]:start + where["ofs_xyznormals"]
                                   + frames * nv * XYZ_NORMAL.itemsize]
    obj = bpy.data.objects.new(mesh.name, mesh)
    bpy.context.scene.collection.objects.link(obj)
    obj.parent = root
    obj[c.MD3_SURFACE_INDEX] = index
    if surface.shaders:
        material = bpy.data.materials.new(surface.shaders[0].name or "shader")
        material[c.MD3_SHADER] = surface.shaders[0].name
        mesh.materials.append(material)
    obj.shape_key_add(name="Basis")
    for f in range(frames):
        key = obj.shape_key_add(name=f"{f:04d}")
        key.value = 0.0
        if nv:
            key.data.foreach_set("co", positions[f].astype(np.float32).ravel())
        if frames > 1:
            _key_frames(key, f, frames)
    if frames == 1:
        obj.data.shape_keys.key_blocks[1].value = 1.0
    return obj
