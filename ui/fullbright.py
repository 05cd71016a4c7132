"""Fullbright painting (View3D > Sidebar > Model, and Properties > Material: *Fullbright (Quake MDL)*):
the active material's fullbright mask, a button to add one, and buttons to paint the mask or the
skin in Texture Paint.

Quake draws palette indices 224-255 unlit. The mask (image "<skin> Fullbright", white =
fullbright) says which pixels the MDL export writes with those indices (see ``common/mdl_skins``).
"""
from __future__ import annotations

import bpy
from bpy.props import EnumProperty

from ..common.mdl_skins import add_fullbright_mask, fullbright_mask_node, skin_node
from ..formats.message_text import quoted


def _material(context):
    obj = context.object
    return obj.active_material if obj is not None and obj.type == "MESH" else None


class CLASSIC_MODELS_OT_add_fullbright_mask(bpy.types.Operator):
    """Give the active material's skin a fullbright mask: white pixels are written with Quake's
    fullbright colours (224-255) and drawn unlit; starts from the skin's imported fullbright pixels"""
    bl_idname = "classic_models.add_fullbright_mask"
    bl_label = "Add Fullbright Mask"
    bl_options = {"REGISTER", "UNDO"}

    @classmethod
    def poll(cls, context):
        return skin_node(_material(context)) is not None

    def execute(self, context):
        material = _material(context)
        try:
            mask = add_fullbright_mask(material)
        except ValueError as exc:
            self.report({"ERROR"}, str(exc))
            return {"CANCELLED"}
        self.report({"INFO"}, f"{material.name}: fullbright mask {quoted(mask.name)} (white = fullbright)")
        return {"FINISHED"}


class CLASSIC_MODELS_OT_paint_fullbright(bpy.types.Operator):
    """Texture Paint the fullbright mask (white = fullbright, black = lit) or the skin itself"""
    bl_idname = "classic_models.paint_fullbright"
    bl_label = "Paint"
    bl_options = {"REGISTER", "UNDO"}

    target: EnumProperty(name="Paint", default="MASK", items=(
        ("MASK", "Fullbright Mask", "Paint the mask: white = fullbright"),
        ("SKIN", "Skin", "Paint the skin's colours")))

    @classmethod
    def poll(cls, context):
        return skin_node(_material(context)) is not None

    def execute(self, context):
        material = _material(context)
        node = fullbright_mask_node(material) if self.target == "MASK" else skin_node(material)
        if node is None or node.image is None:
            self.report({"ERROR"}, f"{material.name} has no fullbright mask yet: use Add Fullbright Mask")
            return {"CANCELLED"}
        material.node_tree.nodes.active = node
        slots = [image.name for image in material.texture_paint_images]
        if node.image.name in slots:
            material.paint_active_slot = slots.index(node.image.name)
        if context.mode != "PAINT_TEXTURE":
            bpy.ops.object.mode_set(mode="TEXTURE_PAINT")
        context.tool_settings.image_paint.mode = "MATERIAL"
        return {"FINISHED"}


def draw_fullbright(layout, context) -> None:
    """The active material's skin and fullbright mask, with the buttons to add and paint the mask."""
    material = _material(context)
    skin = skin_node(material)
    if skin is None:
        layout.label(text="The active material shows no image", icon="INFO")
        return
    col = layout.column(align=True)
    col.label(text=f"Skin: {skin.image.name}", icon="IMAGE_DATA")
    mask = fullbright_mask_node(material)
    if mask is None or mask.image is None:
        col.label(text="No fullbright mask: every pixel is lit")
        layout.operator(CLASSIC_MODELS_OT_add_fullbright_mask.bl_idname, icon="ADD")
        return
    col.label(text=f"Mask: {mask.image.name}", icon="LIGHT_SUN")
    col.label(text="White = fullbright (224-255), black = lit")
    row = layout.row(align=True)
    row.operator(CLASSIC_MODELS_OT_paint_fullbright.bl_idname, text="Paint Mask", icon="BRUSH_DATA").target = "MASK"
    row.operator(CLASSIC_MODELS_OT_paint_fullbright.bl_idname, text="Paint Skin", icon="IMAGE_DATA").target = "SKIN"


class VIEW3D_PT_classic_model_fullbright(bpy.types.Panel):
    """Sidebar > Model"""
    bl_space_type = "VIEW_3D"
    bl_region_type = "UI"
    bl_category = "Model"
    bl_label = "Fullbright (Quake MDL)"
    bl_options = {"DEFAULT_CLOSED"}

    @classmethod
    def poll(cls, context):
        return context.object is not None and context.object.type == "MESH"

    def draw(self, context):
        draw_fullbright(self.layout, context)


class MATERIAL_PT_classic_model_fullbright(bpy.types.Panel):
    """Properties > Material"""
    bl_space_type = "PROPERTIES"
    bl_region_type = "WINDOW"
    bl_context = "material"
    bl_label = "Fullbright (Quake MDL)"
    bl_options = {"DEFAULT_CLOSED"}

    @classmethod
    def poll(cls, context):
        return _material(context) is not None

    def draw(self, context):
        draw_fullbright(self.layout, context)


CLASSES = (CLASSIC_MODELS_OT_add_fullbright_mask, CLASSIC_MODELS_OT_paint_fullbright,
           VIEW3D_PT_classic_model_fullbright, MATERIAL_PT_classic_model_fullbright)


def register() -> None:
    for cls in CLASSES:
        bpy.utils.register_class(cls)


def unregister() -> None:
    for cls in reversed(CLASSES):
        bpy.utils.unregister_class(cls)
