"""Bones in the order a skeletal file lists its joints: each after its parent (MD5 and IQM exports)."""
from __future__ import annotations

import numpy as np

import bpy


def parents_first(bones: list[bpy.types.Bone]) -> list[str]:
    """The names of ``bones`` in their order, each moved after its parent (and that parent's parents):
    the engines build a joint's pose from its parent's, read before it."""
    order: list[str] = []
    placed: set[str] = set()

    def place(bone) -> None:
        if bone.name in placed:
            return
        if bone.parent is not None:
            place(bone.parent)
        placed.add(bone.name)
        order.append(bone.name)
    for bone in bones:
        place(bone)
    return order


def joint_parents(armature: bpy.types.Object, order: list[str]) -> np.ndarray:
    """Each joint's parent as an index into ``order`` (bone names), -1 for a root."""
    index = {name: i for i, name in enumerate(order)}
    bones = armature.data.bones
    return np.array([index[bones[n].parent.name] if bones[n].parent is not None else -1 for n in order], np.int64)
