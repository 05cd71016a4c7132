"""MS3D values read from Blender data by both sides: bone colours, rest poses, material values."""
from __future__ import annotations

import numpy as np

import bpy

from ...formats.ms3d.rig import euler_xyz_from_matrices, rigid_inverse


def bone_color_sets(color: np.ndarray) -> tuple[tuple, tuple, tuple]:
    """Normal, selected and active display colours for a joint colour."""
    c = np.clip(np.asarray(color, dtype=np.float64), 0.0, 1.0)
    return tuple(c), tuple(c + (1 - c) * 0.5), tuple(c + (1 - c) * 0.75)


def set_bone_color(bone: bpy.types.Bone, color: np.ndarray) -> None:
    bone.color.palette = "CUSTOM"
    normal, select, active = bone_color_sets(color)
    bone.color.custom.normal, bone.color.custom.select, bone.color.custom.active = normal, select, active


def bone_color(bone: bpy.types.Bone) -> list[float] | None:
    """The bone's custom display colour, or None when it uses a theme colour."""
    if bone.color.palette != "CUSTOM":
        return None
    return [float(v) for v in bone.color.custom.normal]


def bone_rest_poses(obj: bpy.types.Object, bone_names: list[str],
                    conversion: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
    """MilkShape rest (rotation, position) of each named bone in its parent's space, read from the
    bones: ``L = B_parent⁻¹ · B``, or ``C⁻¹ · B`` for a root."""
    bones = obj.data.bones
    c4_inv = np.eye(4)
    c4_inv[:3, :3] = np.asarray(conversion).T
    poses = []
    for bone in (bones[name] for name in bone_names):
        matrix = np.array(bone.matrix_local, dtype=np.float64)
        local = (rigid_inverse(np.array(bone.parent.matrix_local, dtype=np.float64)) @ matrix
                 if bone.parent is not None else c4_inv @ matrix)
        poses.append((euler_xyz_from_matrices(local[:3, :3])[0], local[:3, 3].copy()))
    return poses


def principled(material: bpy.types.Material) -> bpy.types.Node | None:
    if material.node_tree is None:
        return None
    return next((n for n in material.node_tree.nodes if n.type == "BSDF_PRINCIPLED"), None)


def material_values(material: bpy.types.Material) -> dict:
    """What the exporter reads from a material: colours, roughness, alpha and the two images."""
    bsdf = principled(material)
    values: dict = {"texture": None, "alphamap": None}
    if bsdf is None:
        values.update(diffuse=list(material.diffuse_color[:3]), specular=[0.0, 0.0, 0.0],
                      emissive=[0.0, 0.0, 0.0], roughness=float(material.roughness),
                      alpha=float(material.diffuse_color[3]))
        return values
    inputs = bsdf.inputs
    strength = float(inputs["Emission Strength"].default_value)
    values.update(diffuse=[float(v) for v in inputs["Base Color"].default_value[:3]],
                  specular=[float(v) for v in inputs["Specular Tint"].default_value[:3]],
                  emissive=[float(v) * strength for v in inputs["Emission Color"].default_value[:3]],
                  roughness=float(inputs["Roughness"].default_value),
                  alpha=float(inputs["Alpha"].default_value))
    base = inputs["Base Color"]
    if base.is_linked and base.links[0].from_node.type == "TEX_IMAGE":
        values["texture"] = base.links[0].from_node.image
    alpha = inputs["Alpha"]
    if alpha.is_linked:
        node = alpha.links[0].from_node
        if node.type == "TEX_IMAGE":
            values["alphamap"] = node.image
        elif node.type == "MATH" and node.operation == "MULTIPLY" and node.inputs[0].is_linked:
            source = node.inputs[0].links[0].from_node
            if source.type == "TEX_IMAGE":
                values["alphamap"] = source.image
            values["alpha"] = float(node.inputs[1].default_value)
    return values
