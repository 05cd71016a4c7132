"""The export's action list (``Scene.classic_export_actions``): which actions the MD2/MDL/MD5 export
writes with *Frames: Actions*, and the IQM export always (``exporters/iqm/anim_list.py``), in which order. Kept on the scene so the order and ticks are saved
with the .blend; refreshed from the exported objects when the export dialog opens (new actions in
the default order of :func:`.action_sampling.find_actions`: for MD2 Quake II's player animations
first in the game's order; a player export always writes them so, and the list shows it).
"""
from __future__ import annotations

import bpy
from bpy.props import BoolProperty, CollectionProperty, EnumProperty, IntProperty

from ...formats.md2.player import in_standard_order


class ClassicExportAction(bpy.types.PropertyGroup):
    """An action by name and whether the export writes it."""
    export: BoolProperty(name="Export", default=True, description="Write this action's frames")


def sync_action_list(scene: bpy.types.Scene, names: list[str], player: bool = False) -> None:
    """Keep the listed order and ticks of ``names`` already there, drop the others, append new ones;
    for a Quake II ``player`` the standard animations first in the game's order (as it is written)."""
    items = scene.classic_export_actions
    for i in reversed(range(len(items))):
        if items[i].name not in names:
            items.remove(i)
    listed = {item.name for item in items}
    for name in names:
        if name not in listed:
            items.add().name = name
    if player:
        for target, name in enumerate(in_standard_order([item.name for item in items])):
            items.move(next(i for i, item in enumerate(items) if item.name == name), target)
    scene.classic_export_actions_index = min(scene.classic_export_actions_index, max(len(items) - 1, 0))


def listed_actions(scene: bpy.types.Scene) -> list[tuple[str, bool]]:
    """The scene's list as (action name, ticked) pairs, in order."""
    return [(item.name, item.export) for item in scene.classic_export_actions]


class CLASSIC_UL_export_actions(bpy.types.UIList):
    """Tick and order the actions the export writes."""

    def draw_item(self, context, layout, data, item, icon, active_data, active_propname, index=0):
        row = layout.row(align=True)
        row.prop(item, "export", text="")
        action = bpy.data.actions.get(item.name)
        row.label(text=item.name, icon="ACTION")
        if action is not None:
            first, last = (int(round(f)) for f in action.frame_range)
            row.label(text=f"{first}-{last}")


class CLASSIC_OT_export_action_move(bpy.types.Operator):
    """Move the selected action up or down in the export order"""
    bl_idname = "classic_models.export_action_move"
    bl_label = "Move Action"
    bl_options = {"INTERNAL", "UNDO"}

    direction: EnumProperty(name="Direction", items=(("UP", "Up", "Move the action one place earlier"),
                                                     ("DOWN", "Down", "Move the action one place later")))

    def execute(self, context):
        scene = context.scene
        items, index = scene.classic_export_actions, scene.classic_export_actions_index
        target = index - 1 if self.direction == "UP" else index + 1
        if 0 <= index < len(items) and 0 <= target < len(items):
            items.move(index, target)
            scene.classic_export_actions_index = target
        return {"FINISHED"}


def draw_action_list(layout: bpy.types.UILayout, scene: bpy.types.Scene) -> None:
    row = layout.row()
    row.template_list("CLASSIC_UL_export_actions", "", scene, "classic_export_actions", scene,
                      "classic_export_actions_index", rows=4)
    col = row.column(align=True)
    col.operator(CLASSIC_OT_export_action_move.bl_idname, text="", icon="TRIA_UP").direction = "UP"
    col.operator(CLASSIC_OT_export_action_move.bl_idname, text="", icon="TRIA_DOWN").direction = "DOWN"


CLASSES = (ClassicExportAction, CLASSIC_UL_export_actions, CLASSIC_OT_export_action_move)


def register() -> None:
    for cls in CLASSES:
        bpy.utils.register_class(cls)
    bpy.types.Scene.classic_export_actions = CollectionProperty(
        type=ClassicExportAction, name="Export Actions",
        description="The actions an export writes (MD2, MDL and MD5 with Frames: Actions; IQM always), "
                    "in this order")
    bpy.types.Scene.classic_export_actions_index = IntProperty(
        name="Active Action", min=0, description="The action the arrows move")


def unregister() -> None:
    del bpy.types.Scene.classic_export_actions_index
    del bpy.types.Scene.classic_export_actions
    for cls in reversed(CLASSES):
        bpy.utils.unregister_class(cls)
