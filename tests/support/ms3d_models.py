"""MS3D models the tests build (no Blender)."""
from __future__ import annotations

import numpy as np

from formats.ms3d.records import (
    Ms3dComment,
    Ms3dComments,
    Ms3dGroup,
    Ms3dJoint,
    Ms3dJointExtras,
    Ms3dMaterial,
    Ms3dModel,
    Ms3dModelExtras,
    Ms3dVertexExtras,
)
from formats.ms3d.text import encode_text


def tiny_rig(fps: float = 24.0, tip_parent: bytes = b"root", names: tuple[bytes, bytes] = (b"root", b"tip"),
             group_name: bytes = b"strip") -> Ms3dModel:
    """Six vertices in a strip up MilkShape's Y axis, two joints, weights through the v4 block."""
    xyz = np.array([(0, 0, 0), (1, 0, 0), (0, 1, 0), (1, 1, 0), (0, 2, 0), (1, 2, 0)], dtype=np.float32)
    tris = np.array([(0, 1, 2), (1, 3, 2), (2, 3, 4), (3, 5, 4)], dtype=np.uint16)
    normals = np.tile(np.float32([0, 0, 1]), (4, 3, 1))
    st = np.float32([[0.1, 0.2, 0.3]] * 4)
    joints = [Ms3dJoint(8, names[0].ljust(32, b"\0"), b"".ljust(32, b"\0"), np.zeros(3, np.float32),
                        np.zeros(3, np.float32), np.float32([[1 / fps if fps > 0 else 1 / 24, 0, 0, 0],
                                                            [10 / fps if fps > 0 else 10 / 24, 0, 0, 0.5]]),
                        np.zeros((0, 4), np.float32)),
              Ms3dJoint(8, names[1].ljust(32, b"\0"), tip_parent.ljust(32, b"\0"), np.float32([0, 0, 0.1]),
                        np.float32([0, 1, 0]), np.zeros((0, 4), np.float32), np.zeros((0, 4), np.float32))]
    return Ms3dModel(
        vert_flags=np.zeros(6, np.uint8), vert_xyz=xyz, vert_bone=np.int8([0, 0, 0, 1, 1, -1]),
        vert_refcount=np.uint8([1, 2, 3, 3, 2, 1]), tri_flags=np.zeros(4, np.uint16), tri_vertices=tris,
        tri_normals=normals, tri_s=st, tri_t=st, tri_smoothing=np.uint8([1, 1, 2, 2]),
        tri_group=np.zeros(4, np.uint8),
        groups=[Ms3dGroup(0, group_name.ljust(32, b"\0"), np.arange(4, dtype=np.uint16), -1)],
        materials=[], animation_fps=fps, total_frames=12, joints=joints,
        comments=Ms3dComments(group=[Ms3dComment(0, b"caf\xe9 \xff")], model_raw=b"model notes"),
        vertex_extras=Ms3dVertexExtras(np.int8([[-1, -1, -1], [1, -1, -1], [1, 0, -1], [-1, -1, -1],
                                                [0, -1, -1], [-1, 0, -1]]),
                                       np.uint8([[0, 0, 0], [60, 40, 0], [50, 30, 0], [0, 0, 0],
                                                 [100, 0, 0], [30, 0, 50]]),
                                       np.zeros((6, 2), np.uint32), 3))


def synthetic_ms3d(blocks: int = 4, vertex_subversion: int = 3, model_comment: bool = True) -> Ms3dModel:
    """A quad of two triangles in two groups, one material, two animated joints, and the first
    ``blocks`` optional blocks. Names carry cp1252 text and junk after the NUL."""
    tri_normals = np.zeros((2, 3, 3), np.float32)
    tri_normals[..., 2] = 1
    model = Ms3dModel(
        vert_flags=np.array([0, 1, 0, 2], np.uint8),
        vert_xyz=np.array([[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0.5]], np.float32),
        vert_bone=np.array([0, 0, 1, -1], np.int8),
        vert_refcount=np.array([2, 1, 2, 1], np.uint8),
        tri_flags=np.array([0, 1], np.uint16),
        tri_vertices=np.array([[0, 1, 2], [0, 2, 3]], np.uint16),
        tri_normals=tri_normals,
        tri_s=np.array([[0, 1, 1], [0, 1, 0]], np.float32),
        tri_t=np.array([[1, 1, 0], [1, 0, 0]], np.float32),
        tri_smoothing=np.array([1, 2], np.uint8),
        tri_group=np.array([0, 1], np.uint8),
        groups=[Ms3dGroup(0, encode_text("Bödy", 32), np.array([0], np.uint16), 0),
                Ms3dGroup(1, b"Head\0old name".ljust(32, b"\0"), np.array([1], np.uint16), -1)],
        materials=[Ms3dMaterial(
            encode_text("Skin", 32), np.array([.2, .2, .2, 1], np.float32),
            np.array([.8, .8, .8, 1], np.float32), np.array([0, 0, 0, 1], np.float32),
            np.array([0, 0, 0, 1], np.float32), np.float32(12.5),
            np.float32(1), 0, b".\\skin.tga\0.\\previous.bmp".ljust(128, b"\0"), bytes(128))],
        animation_fps=np.float32(24), current_time=np.float32(1), total_frames=12,
        joints=[
            Ms3dJoint(8, encode_text("root", 32), bytes(32), np.array([0, 0.5, 0], np.float32),
                      np.array([0, 1, 0], np.float32),
                      np.array([[0, 0, 0, 0], [0.5, 0, 1, 0]], np.float32),
                      np.array([[0, 0, 0, 0]], np.float32)),
            Ms3dJoint(0, encode_text("tête", 32), encode_text("root", 32), np.zeros(3, np.float32),
                      np.array([0, 2, 0], np.float32), np.zeros((0, 4), np.float32),
                      np.array([[0, 1, 2, 3], [0.25, 4, 5, 6], [0.5, 7, 8, 9]], np.float32)),
        ])
    if blocks >= 1:
        model.comments = Ms3dComments(
            group=[Ms3dComment(1, b"head group")], material=[Ms3dComment(0, "caf\xe9".encode("cp1252"))],
            joint=[Ms3dComment(0, b""), Ms3dComment(1, "日本".encode())],
            model_raw=b"2,20,walk\r\n" if model_comment else None)
    if blocks >= 2:
        model.vertex_extras = Ms3dVertexExtras(
            np.array([[1, -1, -1], [-1, -1, -1], [0, -1, -1], [-1, -1, -1]], np.int8),
            np.array([[60, 40, 0], [0, 0, 0], [50, 50, 0], [0, 0, 0]], np.uint8),
            np.arange(4 * (vertex_subversion - 1), dtype=np.uint32).reshape(4, vertex_subversion - 1),
            vertex_subversion)
    if blocks >= 3:
        model.joint_extras = Ms3dJointExtras(np.array([[1, 1, 0], [0, 1, 1]], np.float32))
    if blocks >= 4:
        model.model_extras = Ms3dModelExtras(np.float32(0.01), 2, np.float32(0.25))
    return model
