"""What the dialogs, their lists and the sidebar say, drawn against the recording stand-ins of
tests/support/dialog_stand_ins.py: every property drawn has a name and a tooltip of its own, labels and menu
items fit the default dialog width, the archive dialog's rows and messages are shown whole, the Palette
menu offers Automatic, presets never store the file path, and the sidebar shows the flags of the model's
own game.
"""
from __future__ import annotations

import pytest
from support.dialog_stand_ins import (
    DIALOGS,
    Call,
    ContextStandIn,
    PanelStandIn,
    Recorder,
    archive_models,
    check_drawn_properties_exist,
    dialog_context,
    drawn,
    find_property,
    stand_in,
)
from support.environment import CORPUS
from support.mdl_models import mixed_model
from support.models import md2_bytes, textured_rig

from formats.mdl.codec import serialize_mdl

# Drawn with a text of their own: custom properties ('["comment"]'); as Blender's own FBX and OBJ
# dialogs show them: the axes of bpy_extras.io_utils.orientation_helper (no description).
BLENDERS_OWN = {"axis_forward", "axis_up"}


def _described(prop) -> bool:
    if prop.description:
        return True
    return prop.type == "ENUM" and all(item.description for item in prop.enum_items)


def raw_names(log: list[Call]) -> list[str]:
    """Properties drawn whose tooltip would show a raw identifier, nothing but the name, or
    PropertyGroup's generic ``name`` tooltip ("Unique name used in the code and scripting...")."""
    import bpy
    generic_tooltip = bpy.types.PropertyGroup.bl_rna.properties["name"].description
    bad = []
    for data, name, _call in drawn(log):
        if name.startswith("[") or name in BLENDERS_OWN:
            continue
        prop = find_property(data, name)
        generic = name == "name" and prop.description == generic_tooltip
        if not prop.name or prop.name == prop.identifier or not _described(prop) or generic:
            bad.append(f"{type(data).__name__}.{name}: name {prop.name!r}, description {prop.description!r}")
    return bad


def test_no_drawn_property_shows_a_raw_name(bpy_scene, tmp_path):
    """Every property a dialog, list or the sidebar draws has a name of its own and a tooltip."""
    bpy = bpy_scene
    bad = []
    for idname in DIALOGS:
        operator = stand_in(bpy, idname)
        bad += raw_names(operator.draw(dialog_context(bpy)))
    bad += raw_names(stand_in(bpy, "export_scene.md2", frame_source="ACTIONS").draw(dialog_context(bpy)))
    log: list[Call] = []
    item = archive_models(bpy, "MDL")[0]
    archive_list = PanelStandIn(bpy.types.CLASSIC_MODELS_UL_archive_models, log)
    archive_list.draw_item(bpy.context, Recorder(log), None, item, 0, None, "active_model")
    scene = bpy.context.scene
    scene.classic_export_actions.add().name = "walk"
    action_list = PanelStandIn(bpy.types.CLASSIC_UL_export_actions, log)
    action_list.draw_item(bpy.context, Recorder(log), scene, scene.classic_export_actions[0], 0, scene,
                          "classic_export_actions_index")
    files = {"m.md2": md2_bytes([]), "m.mdl": serialize_mdl(mixed_model()), "m.ms3d": textured_rig()}
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
        getattr(bpy.ops.import_scene, name.split(".")[1])(filepath=str(tmp_path / name))
    arm = CORPUS / "md3" / "nexuiz" / "models" / "gibs" / "arm.md3"         # an MD3 root with skin sets
    if arm.is_file():
        bpy.ops.import_scene.md3(filepath=str(arm))
    sidebar = bpy.types.VIEW3D_PT_classic_model
    drawn_objects = 0
    for obj in bpy.data.objects:
        context = ContextStandIn(bpy, object=obj, active_object=obj)
        if not sidebar.poll(context):
            continue
        drawn_objects += 1
        PanelStandIn(sidebar, log).draw(context)
        settings = obj.classic_model
        for kind, items in (("CLASSIC_MODELS_UL_animations", settings.animations),
                            ("CLASSIC_MODELS_UL_frames", settings.frames)):
            for index, entry in enumerate(items):
                PanelStandIn(getattr(bpy.types, kind), log).draw_item(context, Recorder(log), settings, entry, 0,
                                                                      settings, "", index)
    assert drawn_objects >= 3
    check_drawn_properties_exist(log)
    bad += raw_names(log)
    assert not bad, "\n".join(sorted(set(bad)))


@pytest.mark.parametrize("idname", DIALOGS)
def test_presets_never_store_the_file_path(bpy_scene, idname):
    """Blender's own ImportHelper/ExportHelper let presets store ``filepath``: applying a preset then
    renamed the export (the real-Blender layer saw ``Untitled.md2``)."""
    module, name = idname.split(".")
    prop = getattr(getattr(bpy_scene.ops, module), name).get_rna_type().properties["filepath"]
    assert prop.is_skip_preset


@pytest.mark.parametrize("idname", ["import_scene.mdl", "import_scene.game_archive", "export_scene.mdl"])
def test_palette_menu_shows_automatic_while_it_applies(bpy_scene, idname):
    """The Palette menu showed "Quake" while the automatic choice applied, and picking Quake silently
    turned it off: Automatic is its own item, the default and first in the menu, and the options take
    it as "left alone" (test_mdl_variants_blender: a RAPO model's skins decode with Hexen II's palette)."""
    module, name = idname.split(".")
    prop = getattr(getattr(bpy_scene.ops, module), name).get_rna_type().properties["palette"]
    assert prop.default == "AUTO"
    assert [(item.identifier, item.name) for item in prop.enum_items][:1] == [("AUTO", "Automatic")]
    assert {"QUAKE", "HEXEN2", "FILE"} <= {item.identifier for item in prop.enum_items}
    assert all(item.description for item in prop.enum_items)


def _texts(log: list[Call]) -> list[str]:
    return [c.args.get("text", "") for c in log if c.name in ("label", "prop") and c.args.get("text")]


def test_archive_rows_show_the_file_name_first_and_have_a_tooltip(bpy_scene):
    """At the default width every row of a Quake II archive showed "models/oc...", with the list's own
    tooltip ("Select List Item"): the row's text is the file name, then its folder, on the tick box,
    whose tooltip says what the row is."""
    bpy = bpy_scene
    log: list[Call] = []
    item = archive_models(bpy, "MD2")[0]
    item.name = "models/monsters/soldier/tris.md2"
    archive_list = PanelStandIn(bpy.types.CLASSIC_MODELS_UL_archive_models, log)
    archive_list.draw_item(bpy.context, Recorder(log), None, item, 0, None, "active_model")
    first = next(c for c in log if c.name in ("label", "prop") and c.args.get("text"))
    assert first.name == "prop" and first.args["property"] == "ticked"
    assert first.args["text"].startswith("tris.md2") and "models/monsters/soldier" in first.args["text"]
    description = find_property(item, "ticked").description
    assert "file name" in description and "folder" in description


ARCHIVE_WIDTH_CHARS = 560 // 8       # the dialog's 560 px at about 8 px a character of Blender's UI font


def test_archive_messages_are_shown_whole_over_several_lines(bpy_scene):
    """A broken archive's message was cut to "director...ide the file" (one label): it is spelled out
    over several lines that fit the dialog, as is the reason an entry cannot be read."""
    bpy = bpy_scene
    message = ("/home/user/quake/id1/pak0.pak: the directory (2 entries of 64 bytes at offset 1000000) lies "
               "outside the file (1,234 bytes); the archive is cut short or not a PAK")
    models = archive_models(bpy, "MDL", "MDL")
    models[1].name, models[1].problem = "progs/far.mdl", "data (100,000,000 bytes at offset 12) outside the file"
    operator = stand_in(bpy, "import_scene.game_archive", list_error=message, models=models)
    texts = _texts(operator.draw(dialog_context(bpy)))
    for whole in (message, f"progs/far.mdl: {models[1].problem}"):
        start = next(i for i, t in enumerate(texts) if whole.startswith(t))
        lines = [texts[start]]
        while " ".join(lines) != whole and len(" ".join(lines)) < len(whole):
            lines.append(texts[start + len(lines)])
        assert " ".join(lines) == whole
        assert len(lines) >= 2 and all(len(line) <= ARCHIVE_WIDTH_CHARS for line in lines), lines


# What Blender 5.2.2 shows uncut in the file browser's option column at its default size (257 px;
# tests/real_blender's screenshots): a label left of a field (use_property_split) cut "Source Collec..."
# and "Path in Game ..." (13 characters and the dots), a menu's value "Game (10 per seco...", the
# execute button "Import Quake II Mo..." ("Export Quake Model", 18, fits); a tick box's label has the
# column's width.
FITS = {"split": 14, "checkbox": 20, "item": 16, "button": 18}


@pytest.mark.parametrize("idname", DIALOGS)
def test_labels_fit_the_default_dialog_width(bpy_scene, idname):
    """Cut labels at the default width (``Source Collec...``, ``Game (10 per seco...``, ``Import Quake II
    Mo...``): every label a dialog draws, every menu item and the operator's button fit uncut."""
    bpy = bpy_scene
    operator = stand_in(bpy, idname)
    long = []
    module, name = idname.split(".")
    label = getattr(getattr(bpy.ops, module), name).get_rna_type().name
    if len(label) > FITS["button"]:
        long.append(f"button {label!r}")
    for data, prop_name, call in drawn(operator.draw(dialog_context(bpy))):
        if data is not operator or call.name == "template_list":
            continue
        prop = find_property(data, prop_name)
        text = call.args.get("text", prop.name)
        kind = "checkbox" if prop.type == "BOOLEAN" else "split"
        if len(text) > FITS[kind]:
            long.append(f"{kind} {text!r}")
        if prop.type == "ENUM":
            long += [f"item {item.name!r}" for item in prop.enum_items if len(item.name) > FITS["item"]]
    assert not long, long


@pytest.mark.parametrize("variant, shown", [("IDPO", 8), ("RAPO", 8 + 17)])
def test_the_sidebar_shows_the_flags_of_the_models_own_game(bpy_scene, tmp_path, variant, shown):
    """An IDPO Quake model's sidebar showed 17 Hexen II flag checkboxes as well, pushing the animation
    list off screen: Quake's 8 are shown, Hexen II's folded (as Blender first draws a layout panel made
    with default_closed) under a title that counts those set; a RAPO model, which only Hexen II loads,
    shows all of Hexen II's. The Properties editor's Quake Model panel does the same."""
    import dataclasses

    from support.mdl_models import rapo_model, synthetic_model

    from formats.mdl.codec import serialize_mdl as write
    bpy = bpy_scene
    model = rapo_model() if variant == "RAPO" else \
        dataclasses.replace(synthetic_model(4), flags=8 | (1 << 14))           # Rotate, Holey
    (tmp_path / "m.mdl").write_bytes(write(model))
    bpy.ops.import_scene.mdl(filepath=str(tmp_path / "m.mdl"))
    obj = bpy.context.view_layer.objects.active
    context = ContextStandIn(bpy, object=obj, active_object=obj)
    for panel in (bpy.types.VIEW3D_PT_classic_model, bpy.types.OBJECT_PT_quake_model):
        log: list[Call] = []
        PanelStandIn(panel, log, panels="default").draw(context)
        flags = [name for _data, name, _call in drawn(log) if name.startswith("mdl_flag_")]
        assert len(flags) == shown, (panel.__name__, flags)
        titles = [c.args["text"] for c in log if c.name == "label" and "Hexen II" in c.args.get("text", "")]
        assert titles == ["Hexen II Flags (1 set)" if variant == "IDPO" else "Hexen II Flags (2 set)"], titles
