"""MS3D in the sidebar (View3D > Sidebar > Model, ``ui/panel.py``): the model's MilkShape fields and those
of the active group, material and joint, in place of the animation list (MilkShape keeps one timeline);
the model's fields (``Object.classic_model.ms3d_*``, :func:`object_fields`)."""
from __future__ import annotations

from bpy.props import FloatProperty, IntProperty, StringProperty

from ...common.ms3d.contract import COMMENT_PROP, GROUP_PROP, JOINT_PROP, MODEL_PROP

SHOWS_ANIMATIONS = False


def object_fields() -> dict:
    """The MilkShape model fields the import sets on the model object and the export writes."""
    return {
        "ms3d_comment": StringProperty(name="Comment", description="MilkShape model comment"),
        "ms3d_joint_size": FloatProperty(name="Joint Size", default=1.0, description="MilkShape joint display size"),
        "ms3d_transparency_mode": IntProperty(name="Transparency Mode", default=0,
                                              description="MilkShape transparency mode: 0 simple, 1 depth "
                                                          "buffered with alpha ref, 2 depth sorted triangles"),
        "ms3d_alpha_ref": FloatProperty(name="Alpha Ref", default=0.5, description="MilkShape alpha reference (0-1)"),
    }


def draw_sidebar(layout, settings, obj) -> None:
    """The model's MilkShape fields, and those of the active group, material and joint."""
    root = obj
    while root is not None and MODEL_PROP not in root:
        root = root.parent
    if root is not None:
        record = root[MODEL_PROP]
        settings = root.classic_model
        box = layout.box()
        box.label(text=f"MilkShape 3D model {root.name} (version {record.get('version', 4)})")
        blocks = ", ".join(f"{name} {sub}" for name, sub in record.get("blocks", {}).items())
        box.label(text=f"Optional blocks: {blocks or 'none'}")
        box.label(text=f"{record.get('fps', 0.0):g} fps, {record.get('total_frames', 0)} frames")
        box.prop(settings, "ms3d_comment")
        for line in settings.ms3d_comment.splitlines()[:8]:
            box.label(text=line)
        box.prop(settings, "ms3d_joint_size")
        row = box.row(align=True)
        row.prop(settings, "ms3d_transparency_mode")
        row.prop(settings, "ms3d_alpha_ref")
    if GROUP_PROP in obj:
        group = obj[GROUP_PROP]
        box = layout.box()
        flags = group.get("flags", 0)
        box.label(text=f"Group {obj.name}: flags {flags}"
                       f"{' (selected)' if flags & 1 else ''}{' (hidden)' if flags & 2 else ''}")
        if COMMENT_PROP in obj:
            box.prop(obj, f'["{COMMENT_PROP}"]', text="Comment")
    material = obj.active_material
    if material is not None and COMMENT_PROP in material:
        layout.box().prop(material, f'["{COMMENT_PROP}"]', text=f"{material.name} Comment")
    if obj.type == "ARMATURE" and obj.data.bones.active is not None:
        bone = obj.data.bones.active
        box = layout.box()
        box.label(text=f"Joint {bone.name}: flags {bone.get(JOINT_PROP, {}).get('flags', 0)}")
        if bone.color.palette == "CUSTOM":
            box.prop(bone.color.custom, "normal", text="Colour")
        if COMMENT_PROP in bone:
            box.prop(bone, f'["{COMMENT_PROP}"]', text="Comment")
