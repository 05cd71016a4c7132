"""Sidebar panel (View3D > Sidebar > Model): animations of the active object, jump and preview (an MD3
model root: its skin sets too);
the *Quake Model* panels (sidebar and Properties > Object): MDL header fields of any mesh."""
from __future__ import annotations

from pathlib import Path

import bpy
from bpy.props import BoolProperty

from ..common.actions import activate_animation
from ..common.contract import ARCHIVE_MEMBER, ARCHIVE_PATH, MD3_LOD, MD3_ROOT, MD3_SKIN_SET
from ..importers.md3.skin_sets import CLASSIC_MODELS_OT_md3_skin_set, skin_set_names


def _active_animation(context: bpy.types.Context):
    obj = context.object
    if obj is None or not obj.classic_model.animations:
        return None
    settings = obj.classic_model
    index = min(settings.active_animation, len(settings.animations) - 1)
    return settings.animations[index]


def _draw_archive(layout, obj) -> None:
    """The game archive and member the object (or the model it belongs to) was read from."""
    while obj is not None and ARCHIVE_MEMBER not in obj:
        obj = obj.parent
    if obj is not None:
        layout.label(text=f"Archive: {Path(str(obj.get(ARCHIVE_PATH, ''))).name}", icon="PACKAGE")
        layout.label(text=f"Member: {obj[ARCHIVE_MEMBER]}", icon="FILE")


class CLASSIC_MODELS_UL_animations(bpy.types.UIList):
    def draw_item(self, context, layout, data, item, icon, active_data, active_propname, index=0):
        row = layout.row(align=True)
        row.label(text=item.name, icon="ACTION")
        row.label(text=f"{item.frame_start}-{item.frame_end}")


class CLASSIC_MODELS_UL_frames(bpy.types.UIList):
    """The file's frame table: the name each frame is written with (editable), its shape key and,
    for MDL, its frame group and interval."""

    def draw_item(self, context, layout, data, item, icon, active_data, active_propname, index=0):
        row = layout.row(align=True)
        row.label(text=f"{index}")
        row.prop(item, "name", text="", emboss=False)
        if data.source_format == "MDL":
            row.prop(item, "group", text="")
            if item.group >= 0:
                row.prop(item, "interval", text="")
        elif item.shape_key:        # MD5 frames (the classic model's names) have no shape key
            row.label(text=item.shape_key, icon="SHAPEKEY_DATA")


class CLASSIC_MODELS_OT_play_animation(bpy.types.Operator):
    """Jump to the selected animation, or set the preview range to it"""
    bl_idname = "classic_models.play_animation"
    bl_label = "Go to Animation"
    bl_options = {"REGISTER", "UNDO"}

    set_preview_range: BoolProperty(name="Set Preview Range", default=False,
                                    description="Also set the preview range to the animation")

    @classmethod
    def poll(cls, context):
        return _active_animation(context) is not None

    def execute(self, context):
        anim = _active_animation(context)
        scene = context.scene
        activate_animation(scene, context.object, context.object.classic_model.active_animation)
        scene.frame_set(anim.frame_start)
        if self.set_preview_range:
            scene.use_preview_range = True
            scene.frame_preview_start, scene.frame_preview_end = anim.frame_start, anim.frame_end
        return {"FINISHED"}


class CLASSIC_MODELS_OT_clear_preview(bpy.types.Operator):
    """Play the whole file again"""
    bl_idname = "classic_models.clear_preview_range"
    bl_label = "Whole Timeline"
    bl_options = {"REGISTER", "UNDO"}

    def execute(self, context):
        context.scene.use_preview_range = False
        return {"FINISHED"}


class VIEW3D_PT_classic_model(bpy.types.Panel):
    bl_space_type = "VIEW_3D"
    bl_region_type = "UI"
    bl_category = "Model"
    bl_label = "Classic Model"

    @classmethod
    def poll(cls, context):
        return context.object is not None and context.object.classic_model.source_format != ""

    def draw(self, context):
        layout = self.layout
        settings = context.object.classic_model
        col = layout.column(align=True)
        col.label(text=f"Imported from {settings.source_format}")
        _draw_archive(col, context.object)
        if settings.skin_width:
            col.label(text=f"Skin size {settings.skin_width} x {settings.skin_height}")
        if settings.source_format == "MDL":
            self._draw_mdl(layout, settings, context.object)
        if settings.source_format == "MS3D":
            self._draw_ms3d(layout, context.object)
            return
        if settings.source_format == "MD3":
            _draw_md3(layout, context.object)
        layout.template_list("CLASSIC_MODELS_UL_animations", "", settings, "animations",
                             settings, "active_animation", rows=6)
        row = layout.row(align=True)
        row.operator(CLASSIC_MODELS_OT_play_animation.bl_idname, text="Go To", icon="PLAY").set_preview_range = False
        row.operator(CLASSIC_MODELS_OT_play_animation.bl_idname, text="Preview", icon="PREVIEW_RANGE").set_preview_range = True
        row.operator(CLASSIC_MODELS_OT_clear_preview.bl_idname, text="", icon="X")
        if len(settings.frames):
            box = layout.box()
            header = {"MDL": "Frames (name, group, interval)", "MD5": "Frames (the classic model's names)"}.get(
                settings.source_format, "Frames (name, shape key)")
            box.label(text=header, icon="KEYFRAME")
            box.template_list("CLASSIC_MODELS_UL_frames", "", settings, "frames", settings, "active_frame", rows=4)


    @staticmethod
    def _draw_mdl(layout, settings, obj) -> None:
        from ..common.contract import MDL_VARIANT
        box = layout.box()
        variant = obj.get(MDL_VARIANT, "IDPO")
        box.label(text=f"Quake MDL header ({variant})")
        draw_quake_model(box, settings, variant)
        column = box.column(align=True)           # one a line: side by side the sidebar cut "Boundi..."
        column.prop(settings, "mdl_bounding_radius")
        column.prop(settings, "mdl_size")

    @staticmethod
    def _draw_ms3d(layout, obj) -> None:
        """The model's MilkShape fields, and those of the active group, material and joint."""
        from ..common.contract import COMMENT_PROP, GROUP_PROP, JOINT_PROP, MODEL_PROP
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


def _draw_md3(layout, root) -> None:
    """The model root's part, level of detail and skin sets (a button per set; the one shown pressed)."""
    box = layout.box()
    part = root.get(MD3_ROOT, "")
    box.label(text=f"Quake III model{f' ({part})' if part else ''}, level of detail {root.get(MD3_LOD, 0)}")
    names = skin_set_names(root)
    if names:
        box.label(text="Skin Set")
        flow = box.grid_flow(columns=3, align=True)
        for name in [""] + names:
            op = flow.operator(CLASSIC_MODELS_OT_md3_skin_set.bl_idname, text=name or "(file)",
                               depress=root.get(MD3_SKIN_SET, "") == name)
            op.set_name = name


def draw_quake_model(layout, settings, variant: str = "IDPO") -> None:
    """The MDL header fields an export takes from the object (``Object.classic_model``): the effect flags
    of the game that loads ``variant`` (Quake's 8; Hexen II's 8 + 17 for RAPO), the other game's folded
    (its title counts those set), sync type and eye position; for any mesh, imported or new."""
    from ..common.dialog_layout import group
    from ..formats.mdl.variants import HEXEN2_FLAGS, RAPO, hexen2_flag_names
    from .properties import MDL_FLAG_NAMES
    grid = layout.grid_flow(columns=2, align=True)
    for name, _label in MDL_FLAG_NAMES:
        grid.prop(settings, f"mdl_flag_{name}")
    count = len(hexen2_flag_names(settings.mdl_flags))
    title = f"Hexen II Flags ({count} set)" if count else "Hexen II Flags"
    if variant == RAPO:                     # Hexen II's own: always shown
        body = layout.box()
        body.label(text=title)
    else:                                   # another game's: folded until opened (QuakeSpasm reads Holey)
        body = group(layout, "CLASSIC_MODELS_hexen2_flags", title, default_closed=True)
    if body:
        grid = body.grid_flow(columns=2, align=True)
        for _bit, name, _label in HEXEN2_FLAGS:
            grid.prop(settings, f"mdl_flag_{name}")
    layout.prop(settings, "mdl_flags")
    layout.prop(settings, "mdl_synctype")
    layout.prop(settings, "mdl_eye_position")


class VIEW3D_PT_quake_model(bpy.types.Panel):
    """Sidebar > Model: the MDL header of a mesh made in Blender; an imported MDL shows it in the
    Classic Model panel, and any mesh (one imported from MD2 or MS3D too) in Properties > Object."""
    bl_space_type = "VIEW_3D"
    bl_region_type = "UI"
    bl_category = "Model"
    bl_label = "Quake Model"

    @classmethod
    def poll(cls, context):
        obj = context.object
        return obj is not None and obj.type == "MESH" and obj.classic_model.source_format == ""   # new meshes

    def draw(self, context):
        self.layout.label(text="Written into the MDL header on export")
        draw_quake_model(self.layout, context.object.classic_model)


class OBJECT_PT_quake_model(bpy.types.Panel):
    """Properties > Object: the same MDL header fields, for any mesh object."""
    bl_space_type = "PROPERTIES"
    bl_region_type = "WINDOW"
    bl_context = "object"
    bl_label = "Quake Model"
    bl_options = {"DEFAULT_CLOSED"}

    @classmethod
    def poll(cls, context):
        return context.object is not None and context.object.type == "MESH"

    def draw(self, context):
        from ..common.contract import MDL_VARIANT
        draw_quake_model(self.layout, context.object.classic_model, context.object.get(MDL_VARIANT, "IDPO"))


CLASSES = (CLASSIC_MODELS_OT_md3_skin_set, CLASSIC_MODELS_UL_animations, CLASSIC_MODELS_UL_frames, CLASSIC_MODELS_OT_play_animation, CLASSIC_MODELS_OT_clear_preview,
           VIEW3D_PT_classic_model, VIEW3D_PT_quake_model, OBJECT_PT_quake_model)


def register() -> None:
    for cls in CLASSES:
        bpy.utils.register_class(cls)


def unregister() -> None:
    for cls in reversed(CLASSES):
        bpy.utils.unregister_class(cls)
