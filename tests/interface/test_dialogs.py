"""Every dialog draws its options: each operator's ``draw()`` run against the recording stand-in of
``UILayout`` in tests/support/dialog_stand_ins.py. Every option is drawn once in its layout panel (in a
Collection Exporter too, less the source), options that do not apply are greyed out, the action list shows
with frames from actions, the archive dialog offers the options of the formats it lists, and where no layout
panel can be drawn or a group is folded the options are still there (boxes) or only the titles are.
"""
from __future__ import annotations

import itertools
import sys
from collections import Counter
from types import SimpleNamespace

import pytest
from support.dialog_stand_ins import (
    ALL_FORMATS,
    DIALOGS,
    PANELS,
    archive_models,
    check_drawn_properties_exist,
    dialog_context,
    option_calls,
    stand_in,
)

# Options drawn above the panels (always in view).
TOP = {"export_scene.md2": {"game_folder_path"}, "export_scene.mdl": {"game_folder_path"},
       "export_scene.ms3d": {"game_folder_path"}, "export_scene.md5": {"game_folder_path"},
       "export_scene.iqm": {"game_folder_path"},
       "import_scene.game_archive": {"model_filter", "tick_shown", "models", "active_model"}}
# Options a Collection Exporter leaves out: Blender sets the collection, so Selected Only is moot.
COLLECTION_SET = {"use_selection", "collection"}


def _frames_greyed(v: dict) -> set[str]:
    return ({"frame_rate"} if v["frame_source"] == "SHAPE_KEYS" else set()) | \
           ({"step"} if v["frame_source"] != "ACTIONS" else set()) | \
           ({"keep_still_frames"} if v["frame_source"] != "TIMELINE" else set())


def _source_greyed(v: dict) -> set[str]:
    return {"use_selection"} if v["collection"] else set()


# Per dialog: the option values that grey something out, and what each state greys.
GREYING = {
    "export_scene.md2": ({"frame_source": ("TIMELINE", "SHAPE_KEYS", "ACTIONS"), "skins": ("PCX", "PNG", "NAMES"),
                          "collection": ("", "Props"), "player": (False, True)},
                         lambda v: _frames_greyed(v) | _source_greyed(v) | ({"dither"} if v["skins"] != "PCX" else set())
                         | ({"icons"} if not v["player"] else set())),
    "export_scene.mdl": ({"frame_source": ("TIMELINE", "SHAPE_KEYS", "ACTIONS"), "palette_path": ("", "//q.lmp"),
                          "collection": ("", "Props")},
                         lambda v: _frames_greyed(v) | _source_greyed(v) | ({"palette"} if v["palette_path"] else set())),
    "export_scene.md5": ({"frame_source": ("TIMELINE", "ACTIONS"), "collection": ("", "Props")},
                         lambda v: _source_greyed(v) | ({"step"} if v["frame_source"] != "ACTIONS" else set())
                         | ({"keep_still_frames"} if v["frame_source"] != "TIMELINE" else set())),
    "export_scene.ms3d": ({"animation": ("KEYS", "BAKE"), "collection": ("", "Props")},
                          lambda v: _source_greyed(v) | ({"tolerance"} if v["animation"] != "KEYS" else set())),
    "import_scene.md2": ({"load_skins": (True, False)},
                         lambda v: set() if v["load_skins"] else {"skin_image", "pcx_colours"}),
    "import_scene.mdl": ({"load_skins": (True, False), "palette_path": ("", "//q.lmp")},
                         lambda v: ({"palette", "palette_path"} if not v["load_skins"] else set())
                         | ({"palette"} if v["palette_path"] else set())),
    "import_scene.md3": ({}, lambda v: set()),
    "import_scene.ms3d": ({}, lambda v: set()),
    "import_scene.md5": ({}, lambda v: set()),
    "import_scene.iqm": ({}, lambda v: set()),
    "export_scene.iqm": ({"collection": ("", "Props")}, _source_greyed),
    "import_scene.game_archive": ({"load_skins": (True, False), "palette_path": ("", "//q.lmp")},
                                  lambda v: ({"pcx_colours", "palette", "palette_path"} if not v["load_skins"] else set())
                                  | ({"palette"} if v["palette_path"] else set())),
}


@pytest.mark.parametrize("idname", DIALOGS)
def test_every_option_is_drawn_once_in_its_panel(bpy_scene, idname):
    bpy = bpy_scene
    operator = stand_in(bpy, idname)
    log = operator.draw(dialog_context(bpy))
    check_drawn_properties_exist(log)
    calls = option_calls(operator, log)
    counts = Counter(name for name, _ in calls)
    assert [n for n, c in counts.items() if c > 1] == []
    assert operator.visible_options() - set(counts) == set(), "options the dialog does not draw"
    panels = [c.args["idname"] for c in log if c.name == "panel"]
    assert panels == PANELS[idname]
    outside = {name for name, call in calls if call.layout.panel_id is None}
    assert outside == TOP.get(idname, set())


@pytest.mark.parametrize("idname", [d for d in DIALOGS if d.startswith("export_scene.")])
def test_collection_exporters_draw_every_option_but_the_source(bpy_scene, idname):
    """Collection properties > Exporters calls the same draw() in the Properties editor."""
    bpy = bpy_scene
    operator = stand_in(bpy, idname)
    log = operator.draw(dialog_context(bpy, "PROPERTIES"))
    check_drawn_properties_exist(log)
    names = [name for name, _ in option_calls(operator, log)]
    assert len(names) == len(set(names))
    assert set(names) == operator.visible_options() - COLLECTION_SET
    panels = [c.args["idname"] for c in log if c.name == "panel"]
    include = [p for p in PANELS[idname] if p.endswith("_include")]
    expected = [p for p in PANELS[idname] if p not in include or idname == "export_scene.md2"]
    assert panels == expected           # MD2 keeps Include for Quake II Player


@pytest.mark.parametrize("idname", DIALOGS)
def test_options_that_do_not_apply_are_greyed_out(bpy_scene, idname):
    bpy = bpy_scene
    states, rule = GREYING[idname]
    keys = list(states)
    for combination in itertools.product(*(states[k] for k in keys)):
        values = dict(zip(keys, combination))
        operator = stand_in(bpy, idname, **values)
        calls = option_calls(operator, operator.draw(dialog_context(bpy)))
        greyed = {name for name, call in calls if call.greyed}
        assert greyed == rule(values), values


@pytest.mark.parametrize("idname", ["export_scene.md2", "export_scene.mdl", "export_scene.md5"])
def test_the_action_list_is_drawn_with_frames_actions(bpy_scene, idname):
    bpy = bpy_scene
    for source in ("TIMELINE", "SHAPE_KEYS", "ACTIONS"):
        operator = stand_in(bpy, idname, frame_source=source)
        log = operator.draw(dialog_context(bpy))
        lists = [c for c in log if c.name == "template_list"]
        assert [c.args["propname"] for c in lists] == (["classic_export_actions"] if source == "ACTIONS" else [])
        assert all(c.layout.panel_id == PANELS[idname][1] for c in lists)
        moves = [c.args["operator"] for c in log if c.name == "operator"]
        assert moves == (["classic_models.export_action_move"] * 2 if source == "ACTIONS" else [])


def test_the_iqm_export_draws_its_action_list_in_its_animation_group(bpy_scene):
    """IQM writes actions only: its list is always there, beside the frame groups file."""
    bpy = bpy_scene
    operator = stand_in(bpy, "export_scene.iqm")
    log = operator.draw(dialog_context(bpy))
    lists = [c for c in log if c.name == "template_list"]
    assert [c.args["propname"] for c in lists] == ["classic_export_actions"]
    assert [c.layout.panel_id for c in lists] == ["CLASSIC_MODELS_iqm_export_animation"]
    groups = {name: call.layout.panel_id for name, call in option_calls(operator, log)}
    assert groups["write_framegroups"] == "CLASSIC_MODELS_iqm_export_animation"
    assert groups["scale"] == groups["apply_transform"] == "CLASSIC_MODELS_iqm_export_transform"


def test_the_iqm_import_draws_merge_meshes_in_its_mesh_group_and_in_the_archive_dialog(bpy_scene):
    """As MD3's Merge Surfaces: in the import's Mesh group, and in the Game Archive dialog's IQM group."""
    bpy = bpy_scene
    operator = stand_in(bpy, "import_scene.iqm")
    groups = {name: call.layout.panel_id for name, call in option_calls(operator, operator.draw(dialog_context(bpy)))}
    assert groups["merge_meshes"] == "CLASSIC_MODELS_iqm_import_mesh"
    operator = stand_in(bpy, "import_scene.game_archive", models=archive_models(bpy, "IQM"))
    groups = {name: call.layout.panel_id for name, call in option_calls(operator, operator.draw(dialog_context(bpy)))}
    assert groups["merge_meshes"] == "CLASSIC_MODELS_archive_iqm"


def test_the_archive_dialog_offers_the_options_of_the_formats_it_lists(bpy_scene):
    bpy = bpy_scene
    expected = {("MDL",): ["CLASSIC_MODELS_archive_md2_mdl", "CLASSIC_MODELS_archive_mdl"],
                ("MS3D",): ["CLASSIC_MODELS_archive_ms3d"],
                ("MD3",): ["CLASSIC_MODELS_archive_md3"],
                ("IQM",): ["CLASSIC_MODELS_archive_iqm"],
                ("MD5", "IQM"): ["CLASSIC_MODELS_archive_md5", "CLASSIC_MODELS_archive_iqm"],
                ("MD2", "MS3D"): ["CLASSIC_MODELS_archive_md2_mdl", "CLASSIC_MODELS_archive_md2",
                                  "CLASSIC_MODELS_archive_ms3d"],
                (): PANELS["import_scene.game_archive"]}        # nothing listed yet: every format's
    for formats, panels in expected.items():
        operator = stand_in(bpy, "import_scene.game_archive", models=archive_models(bpy, *formats))
        log = operator.draw(dialog_context(bpy))
        assert [c.args["idname"] for c in log if c.name == "panel"] == panels
        names = [name for name, _ in option_calls(operator, log)]
        assert len(names) == len(set(names))


@pytest.mark.parametrize("formats", [s for n in range(1, len(ALL_FORMATS) + 1)
                                     for s in itertools.combinations(ALL_FORMATS, n)], ids="-".join)
def test_the_archive_dialog_draws_each_listed_formats_options_once(bpy_scene, formats):
    """Whatever mix of formats an archive holds, the dialog draws every option of their import operators
    (less what is per file) once: an option several of them have sits in the first of their groups."""
    bpy = bpy_scene
    operator = stand_in(bpy, "import_scene.game_archive", models=archive_models(bpy, *formats))
    names = [name for name, _ in option_calls(operator, operator.draw(dialog_context(bpy)))]
    assert [n for n, c in Counter(names).items() if c > 1] == []
    per_file = {"files", "directory", "filter_glob", "skin_image", "filepath", "rna_type"}
    wanted = {p.identifier for f in formats
              for p in getattr(bpy.ops.import_scene, f.lower()).get_rna_type().properties
              if not p.is_hidden and p.identifier not in per_file}
    assert wanted - set(names) == set()


@pytest.mark.parametrize("idname", DIALOGS)
def test_without_layout_panels_the_options_are_drawn_in_boxes(bpy_scene, idname):
    """Where Blender has no panel to hold layout panels (UILayout.panel raises), the same groups
    are boxes with their titles."""
    bpy = bpy_scene
    operator = stand_in(bpy, idname, panels="fail")
    log = operator.draw(dialog_context(bpy))
    names = {name for name, _ in option_calls(operator, log)}
    assert operator.visible_options() - names == set()
    assert sum(c.name == "box" for c in log) == len(PANELS[idname])


@pytest.mark.parametrize("idname", DIALOGS)
def test_where_no_region_is_current_no_layout_panel_is_drawn(bpy_scene, extension, monkeypatch, idname):
    """A popup built while a window is open but no region is current (INVOKE_DEFAULT from a timer or a
    startup script): Blender 5.2.2 and 4.3.2 crash in UILayout.panel there (tests/real_blender shows it),
    so no panel is asked for; the groups are boxes and every option is still drawn."""
    bpy = bpy_scene
    module = sys.modules[f"{extension}.common.dialog_layout"]
    monkeypatch.setattr(module, "_drawing_context", lambda: SimpleNamespace(region=None), raising=False)
    operator = stand_in(bpy, idname)              # panels would open: none may be asked for
    log = operator.draw(dialog_context(bpy))
    assert [c.args["idname"] for c in log if c.name == "panel"] == []
    assert operator.visible_options() - {name for name, _ in option_calls(operator, log)} == set()
    assert sum(c.name == "box" for c in log) == len(PANELS[idname])


@pytest.mark.parametrize("idname", DIALOGS)
def test_folded_groups_show_their_titles_only(bpy_scene, idname):
    """A group the user folded has no body (UILayout.panel returns None for it)."""
    bpy = bpy_scene
    values = {"frame_source": "ACTIONS"} if idname in ("export_scene.md2", "export_scene.mdl") else {}
    operator = stand_in(bpy, idname, panels="folded", **values)       # no action list while folded
    log = operator.draw(dialog_context(bpy))
    assert {name for name, _ in option_calls(operator, log)} == TOP.get(idname, set())
    titles = [c for c in log if c.name == "label" and c.layout.panel_id is not None]
    assert [c.layout.panel_id for c in titles] == PANELS[idname]
