"""The working records an MS3D export gathers before it makes the file's model (shared by :mod:`.build`
and :mod:`.write_back`): vertex and triangle rows keyed by their file index (``uid``; data the file did not
have sorts after it from ``NEW`` on), the parts a mesh splits into and the joint table."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

import bpy

from ...formats.ms3d.records import Ms3dJoint

NEW = 1 << 40                     # sort key offset for data without a stored file index
TRIANGLE_RECORD = np.dtype([("uid", "<i8"), ("vertices", "<i8", (3,)), ("normals", "<f4", (3, 3)),
                            ("s", "<f4", (3,)), ("t", "<f4", (3,)), ("smoothing", "u1"), ("flags", "<u2")])
VERTEX_RECORD = np.dtype([("uid", "<i8"), ("xyz", "<f4", (3,)), ("bone", "i1"), ("ids", "i1", (3,)),
                          ("weights", "u1", (3,)), ("flags", "u1"), ("refcount", "u1"), ("extra", "<u4", (2,))])


@dataclass
class JointTable:
    """The exported joints and how Blender refers to them."""
    joints: list[Ms3dJoint] = field(default_factory=list)
    bone_names: list[str] = field(default_factory=list)
    colors: list = field(default_factory=list)
    comments: list = field(default_factory=list)           # raw bytes or None per joint
    original_to_export: dict[int, int] = field(default_factory=dict)
    stored_colors: bool = False
    custom_colors: bool = False
    parents: list[int] = field(default_factory=list)

    def index_of(self) -> dict[str, int]:
        return {name: i for i, name in enumerate(self.bone_names)}


@dataclass
class Part:
    """One group's worth of a mesh object, in file units and MilkShape axes."""
    obj: bpy.types.Object
    name_raw: bytes
    flags: int
    material: bpy.types.Material | None
    comment: bytes | None
    sort_key: tuple
    vertices: np.ndarray            # structured VERTEX_RECORD rows, one per used mesh vertex
    corners: np.ndarray             # (T, 3) indices into ``vertices``
    normals: np.ndarray             # (T, 3, 3) float32
    s: np.ndarray                   # (T, 3) float32
    t: np.ndarray
    smoothing: np.ndarray           # (T,) uint8
    tri_flags: np.ndarray           # (T,) uint16
    tri_order: np.ndarray           # (T,) int64 sort keys: the file triangle, else NEW + running number
    tri_group_bytes: np.ndarray | None = None   # (T,) the file's group byte where it disagreed
    group_index: int = NEW          # the file group this part was imported from
