"""What the import dialogs show: one function per operator, called by its ``draw()``.

Every option is drawn by name in a group (a layout panel, ``CLASSIC_MODELS_<format>_import_<group>``,
``CLASSIC_MODELS_archive_<formats>`` in the Game Archive dialog); an option that does not apply to
the current choices is greyed out, never hidden.

    draw_md2_import       Mesh | Animation | Skins | Quake II Player
    draw_mdl_import       Mesh | Animation | Skins
    draw_md3_import       Mesh | Animation | Skins | Quake III Player
    draw_ms3d_import      Transform | Animation | Materials | Names
    draw_md5_import       Animation | Skins
    draw_archive_import   the model list, then MD2 and MDL | MD2 | MDL | MD3 | MS3D | MD5 | IQM (the formats listed);
                          Scene Timing in the first of them
"""
from __future__ import annotations

from ..common.dialog_layout import applies_when, group, start, wrapped_label
from ..formats import table

ARCHIVE_DIALOG_WIDTH = 560      # px at UI scale 1: the Game Archive dialog, its messages wrapped to it
SHOWN_PROBLEMS = 5              # unreadable entries whose reason is spelled out below the list


def _frame_import(operator, layout, fmt: str):
    """The groups MD2 and MDL share (FrameImportBase's options): Mesh, Animation, and the Skins
    group with Load Skins in it, returned (None while folded) for the format's skin options."""
    start(layout)
    body = group(layout, f"CLASSIC_MODELS_{fmt}_import_mesh", "Mesh")
    if body:
        body.prop(operator, "scale")
        body.prop(operator, "use_file_normals")
    body = group(layout, f"CLASSIC_MODELS_{fmt}_import_animation", "Animation")
    if body:
        body.prop(operator, "animations")
        body.prop(operator, "scene_timing")
    body = group(layout, f"CLASSIC_MODELS_{fmt}_import_skins", "Skins")
    if body:
        body.prop(operator, "load_skins")
    return body


def _palette(operator, layout) -> None:
    """Palette (greyed out while a Palette File is given, which wins) and Palette File; both only
    with Load Skins."""
    column = applies_when(layout, operator.load_skins)
    applies_when(column, not operator.palette_path).prop(operator, "palette")
    column.prop(operator, "palette_path")


def _axes(operator, layout) -> None:
    layout.prop(operator, "axis_forward")
    layout.prop(operator, "axis_up")


def draw_md2_import(operator, layout, context) -> None:
    body = _frame_import(operator, layout, "md2")
    if body:
        column = applies_when(body, operator.load_skins)
        column.prop(operator, "skin_image")
        column.prop(operator, "pcx_colours")
    body = group(layout, "CLASSIC_MODELS_md2_import_player", "Quake II Player")
    if body:
        body.prop(operator, "load_weapons")


def draw_mdl_import(operator, layout, context) -> None:
    body = _frame_import(operator, layout, "mdl")
    if body:
        _palette(operator, body)


def _prop_groups(operator, layout, fmt: str, groups: tuple[tuple[str, str, tuple[str, ...]], ...]) -> None:
    """A group ``CLASSIC_MODELS_<fmt>_import_<key>`` titled ``title`` per (key, title, options)."""
    start(layout)
    for key, title, options in groups:
        body = group(layout, f"CLASSIC_MODELS_{fmt}_import_{key}", title)
        if body:
            for name in options:
                body.prop(operator, name)


def draw_md3_import(operator, layout, context) -> None:
    _prop_groups(operator, layout, "md3", (
        ("mesh", "Mesh", ("scale", "md3_file_normals", "merge_surfaces", "load_lods")), ("animation", "Animation", ("animations", "scene_timing")),
        ("skins", "Skins", ("load_skins",)), ("player", "Quake III Player", ("assemble_player",))))


def draw_ms3d_import(operator, layout, context) -> None:
    _prop_groups(operator, layout, "ms3d", (
        ("transform", "Transform", ("axis_forward", "axis_up")), ("animation", "Animation", ("scene_timing",)),
        ("materials", "Materials", ("load_images",)), ("names", "Names", ("name_encoding",))))


def draw_md5_import(operator, layout, context) -> None:
    _prop_groups(operator, layout, "md5", (
        ("animation", "Animation", ("find_anims", "anim_mesh", "animations", "scene_timing")),
        ("skins", "Skins", ("load_skins",))))


def draw_archive_import(operator, layout, context) -> None:
    """The archive's models (counts, filter, tick boxes), then the options of the formats it holds
    (every format's while nothing is listed): the format operators' own options, shared."""
    if operator.list_error:
        wrapped_label(layout, operator.list_error, ARCHIVE_DIALOG_WIDTH, icon="ERROR")
    formats = [m.format for m in operator.models]
    shown = [row.source_format for row in table.importable()]
    counts = ", ".join(f"{formats.count(f)} {f}" for f in shown if f in formats)
    ticked = sum(m.ticked for m in operator.models)
    layout.label(text=f"{len(formats)} models ({counts or 'none'}), {ticked} ticked")
    row = layout.row(align=True)
    row.prop(operator, "model_filter", text="", icon="VIEWZOOM")
    row.prop(operator, "tick_shown")
    layout.template_list("CLASSIC_MODELS_UL_archive_models", "", operator, "models", operator, "active_model",
                         rows=10)
    broken = [m for m in operator.models if m.problem]
    for model in broken[:SHOWN_PROBLEMS]:
        wrapped_label(layout, f"{model.name}: {model.problem}", ARCHIVE_DIALOG_WIDTH, icon="ERROR")
    if len(broken) > SHOWN_PROBLEMS:
        layout.label(text=f"and {len(broken) - SHOWN_PROBLEMS} more entries that cannot be read", icon="BLANK1")
    present = set(formats) or set(shown)
    start(layout)
    if present & {"MD2", "MDL"}:
        body = group(layout, "CLASSIC_MODELS_archive_md2_mdl", "MD2 and MDL")
        if body:
            body.prop(operator, "scale")
            body.prop(operator, "use_file_normals")
            body.prop(operator, "animations")
            body.prop(operator, "scene_timing")
            body.prop(operator, "load_skins")
    if "MD2" in present:
        body = group(layout, "CLASSIC_MODELS_archive_md2", "MD2")
        if body:
            applies_when(body, operator.load_skins).prop(operator, "pcx_colours")
            body.prop(operator, "load_weapons")
    if "MDL" in present:
        body = group(layout, "CLASSIC_MODELS_archive_mdl", "MDL")
        if body:
            _palette(operator, body)
    if "MD3" in present:
        body = group(layout, "CLASSIC_MODELS_archive_md3", "MD3")
        if body:
            body.prop(operator, "md3_file_normals")
            body.prop(operator, "merge_surfaces")
            body.prop(operator, "assemble_player")
            body.prop(operator, "load_lods")
            if not present & {"MD2", "MDL"}:
                body.prop(operator, "animations")
                body.prop(operator, "scale")
                body.prop(operator, "load_skins")
                body.prop(operator, "scene_timing")
    if "MS3D" in present:
        body = group(layout, "CLASSIC_MODELS_archive_ms3d", "MS3D")
        if body:
            _axes(operator, body)
            if not present & {"MD2", "MDL"}:
                body.prop(operator, "scene_timing")
            body.prop(operator, "load_images")
            body.prop(operator, "name_encoding")
    if "MD5" in present:
        body = group(layout, "CLASSIC_MODELS_archive_md5", "MD5")
        if body:
            body.prop(operator, "find_anims")
            body.prop(operator, "anim_mesh")
            if not present & {"MD2", "MDL"}:
                body.prop(operator, "animations")
            if not present & {"MD2", "MDL", "MD3", "MS3D"}:
                body.prop(operator, "scene_timing")
            if not present & {"MD2", "MDL", "MD3"}:
                body.prop(operator, "load_skins")
    if "IQM" in present:
        body = group(layout, "CLASSIC_MODELS_archive_iqm", "IQM")
        if body:
            body.prop(operator, "iqm_framegroups")
            if not present & {"MD2", "MDL", "MD3", "MS3D", "MD5"}:
                body.prop(operator, "scene_timing")
