"""What the skeletal exports (MD5, IQM) read of an armature: the armature that deforms a mesh, its bones in
the order a file lists its joints (each after its parent), and their parents; its skinning switched off
while its pose is sampled."""
from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

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


def deforming_armature(obj: bpy.types.Object) -> bpy.types.Object | None:
    """The armature that moves ``obj``: its first shown Armature modifier's, else an armature parent."""
    for modifier in obj.modifiers:
        if modifier.type == "ARMATURE" and modifier.object is not None and modifier.show_viewport:
            return modifier.object
    if obj.parent is not None and obj.parent.type == "ARMATURE" and obj.parent_type in ("ARMATURE", "BONE"):
        return obj.parent
    return None


@contextmanager
def skinning_off(armature: bpy.types.Object, meshes: list[bpy.types.Object]) -> Iterator[None]:
    """While the timeline is stepped to read ``armature``'s pose, the Armature modifiers of ``meshes`` that
    use it are off in viewports, so no frame skins those meshes; on again after (also on error). The pose
    read is the same: a bone cannot follow a mesh its own armature deforms without a dependency cycle."""
    switched = []
    try:
        for obj in meshes:
            for modifier in obj.modifiers:
                if modifier.type == "ARMATURE" and modifier.object == armature and modifier.show_viewport:
                    modifier.show_viewport = False
                    switched.append(modifier)
        yield
    finally:
        for modifier in switched:
            modifier.show_viewport = True
