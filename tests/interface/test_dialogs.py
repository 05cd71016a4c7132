"""Every dialog draws its options: each operator's ``draw()`` run against a recording stand-in of
``UILayout`` (the ``bpy`` module never opens a window, so Blender never calls ``draw()`` here).

The stand-in accepts only the functions, keyword arguments and attributes that bpy's own
``UILayout`` RNA lists (so a call the real program rejects fails here too), records every call with
whether its layout is greyed out (``active``/``enabled`` False on it or a parent) and which layout
panel holds it. The operator stand-in carries the option values and, as a running operator does,
``bl_rna`` of the Operator type, whose properties are not the options (what the old draw walked).
"""
from __future__ import annotations

import inspect
import itertools
import sys
import types
from collections import Counter
from dataclasses import dataclass
from types import SimpleNamespace

import pytest

from support.environment import CORPUS
from formats.mdl.codec import serialize_mdl
from support.models import md2_bytes, textured_rig
from support.mdl_models import mixed_model

NOT_DRAWN = {"rna_type", "filepath"}        # the file browser (or Collection Exporter) draws the path


@dataclass
class Call:
    name: str
    args: dict
    layout: "Recorder"
    greyed: bool


class Recorder:
    """Stands in for ``bpy.types.UILayout``: records calls, returns further recorders."""

    def __init__(self, log: list, parent: Recorder | None = None, panel: str | None = None,
                 panels: str = "open"):
        object.__setattr__(self, "log", log)
        object.__setattr__(self, "parent", parent)
        object.__setattr__(self, "panel_id", panel if panel is not None else parent.panel_id if parent else None)
        object.__setattr__(self, "panels", parent.panels if parent else panels)   # open, folded, fail, default
        object.__setattr__(self, "flags", {})

    def greyed(self) -> bool:
        layout = self
        while layout is not None:
            if layout.flags.get("active", True) is False or layout.flags.get("enabled", True) is False:
                return True
            layout = layout.parent
        return False

    def __setattr__(self, name, value):
        import bpy
        if name not in bpy.types.UILayout.bl_rna.properties:
            raise AttributeError(f"UILayout has no attribute {name!r}")
        self.flags[name] = value

    def __getattr__(self, name):
        import bpy
        if name in bpy.types.UILayout.bl_rna.properties:
            return self.flags.get(name, name in ("active", "enabled"))
        function = bpy.types.UILayout.bl_rna.functions.get(name)
        if function is None:
            raise AttributeError(f"UILayout has no function {name!r}")
        return lambda *args, **kwargs: self._call(name, function, args, kwargs)

    def _call(self, name, function, args, kwargs):
        inputs = [p for p in function.parameters if not p.is_output]
        names = [p.identifier for p in inputs]
        assert len(args) <= len(names), f"UILayout.{name}: too many arguments {args}"
        bound = dict(zip(names, args))
        assert not (set(kwargs) - set(names)), f"UILayout.{name} has no argument {set(kwargs) - set(names)}"
        assert not (set(kwargs) & set(bound)), f"UILayout.{name}: argument given twice"
        bound.update(kwargs)
        missing = [p.identifier for p in inputs if p.is_required and p.identifier not in bound]
        assert not missing, f"UILayout.{name}: missing {missing}"
        self.log.append(Call(name, bound, self, self.greyed()))
        outputs = [p for p in function.parameters if p.is_output]
        if name in ("panel", "panel_prop"):
            if self.panels == "fail":
                raise RuntimeError("Error: Layout panels can not be used in this context")
            opened = self.panels == "open" or (self.panels == "default" and not bound.get("default_closed", False))
            body = Recorder(self.log, self, panel=bound.get("idname", "")) if opened else None
            return Recorder(self.log, self, panel=bound.get("idname", "")), body
        if outputs and outputs[0].fixed_type.identifier == "UILayout":
            return Recorder(self.log, self)
        return SimpleNamespace() if outputs else None


def drawn(log: list[Call]):
    """(data, property name, call) of every property a call draws."""
    for call in log:
        if call.name in ("prop", "prop_search", "prop_enum", "prop_menu_enum", "props_enum", "prop_tabs_enum"):
            yield call.args["data"], call.args["property"], call
        elif call.name == "template_list":
            yield call.args["dataptr"], call.args["propname"], call
            yield call.args["active_dataptr"], call.args["active_propname"], call


def _default(prop):
    if prop.type == "COLLECTION":
        return []
    if prop.type == "ENUM":
        return set(prop.default_flag) if prop.is_enum_flag else prop.default
    if getattr(prop, "is_array", False):
        return tuple(prop.default_array)
    return prop.default


class OperatorStandIn:
    """The option values of operator ``idname`` (defaults, then ``values``), ``bl_rna`` as in a
    running operator and a recording ``layout``."""

    def __init__(self, idname: str, panels: str = "open", **values):
        import bpy
        module, name = idname.split(".")
        self.options = getattr(getattr(bpy.ops, module), name).get_rna_type().properties
        self.operator_class = getattr(bpy.types, f"{module.upper()}_OT_{name}")
        self.bl_rna = self.operator_class.bl_rna
        for prop in self.options:
            if prop.identifier != "rna_type":
                setattr(self, prop.identifier, _default(prop))
        for key, value in values.items():
            assert key in self.options, key
            setattr(self, key, value)
        self.log: list[Call] = []
        self.layout = Recorder(self.log, panels=panels)

    def draw(self, context) -> list[Call]:
        self.operator_class.draw(self, context)
        return self.log

    def visible_options(self) -> set[str]:
        return {p.identifier for p in self.options if not p.is_hidden and p.identifier not in NOT_DRAWN}


def rna_properties(data):
    return data.options if isinstance(data, OperatorStandIn) else data.bl_rna.properties


def find_property(data, name: str):
    """The property ``prop(data, name)`` draws. A PropertyGroup may re-define ``name``: the UI finds
    the subclass's first (rna_access.cc ``rna_builtin_properties_lookup_string`` walks from the type
    to its bases), where ``bl_rna.properties`` lists the base's first."""
    return [p for p in rna_properties(data) if p.identifier == name][-1]


def dialog_context(bpy, space: str = "FILE_BROWSER"):
    """The context a dialog draws in: the file browser's side column, or a Collection Exporter
    (Properties editor)."""
    return SimpleNamespace(space_data=SimpleNamespace(type=space), scene=bpy.context.scene,
                           window_manager=bpy.context.window_manager, preferences=bpy.context.preferences)


def archive_models(bpy, *formats: str) -> list:
    """Items of the archive dialog's list, one per format."""
    rna = bpy.ops.import_scene.game_archive.get_rna_type().properties["models"].fixed_type
    return [SimpleNamespace(bl_rna=rna, name=f"m{i}.{f.lower()}", format=f, size=10, problem="", ticked=i == 0)
            for i, f in enumerate(formats)]


ALL_FORMATS = ("MD2", "MDL", "MD3", "MS3D", "MD5")

# Panel idnames per dialog, in drawing order; the real-Blender tests look for these.
PANELS = {
    "export_scene.md2": ["CLASSIC_MODELS_md2_export_include", "CLASSIC_MODELS_md2_export_frames",
                         "CLASSIC_MODELS_md2_export_transform", "CLASSIC_MODELS_md2_export_enhanced",
                         "CLASSIC_MODELS_md2_export_geometry",
                         "CLASSIC_MODELS_md2_export_skins"],
    "export_scene.mdl": ["CLASSIC_MODELS_mdl_export_include", "CLASSIC_MODELS_mdl_export_frames",
                         "CLASSIC_MODELS_mdl_export_transform", "CLASSIC_MODELS_mdl_export_enhanced",
                         "CLASSIC_MODELS_mdl_export_geometry",
                         "CLASSIC_MODELS_mdl_export_skins"],
    "export_scene.ms3d": ["CLASSIC_MODELS_ms3d_export_include", "CLASSIC_MODELS_ms3d_export_transform",
                          "CLASSIC_MODELS_ms3d_export_animation", "CLASSIC_MODELS_ms3d_export_textures"],
    "export_scene.md5": ["CLASSIC_MODELS_md5_export_include", "CLASSIC_MODELS_md5_export_frames",
                         "CLASSIC_MODELS_md5_export_transform", "CLASSIC_MODELS_md5_export_geometry"],
    "import_scene.md2": ["CLASSIC_MODELS_md2_import_mesh", "CLASSIC_MODELS_md2_import_animation",
                         "CLASSIC_MODELS_md2_import_skins", "CLASSIC_MODELS_md2_import_player"],
    "import_scene.mdl": ["CLASSIC_MODELS_mdl_import_mesh", "CLASSIC_MODELS_mdl_import_animation",
                         "CLASSIC_MODELS_mdl_import_skins"],
    "import_scene.md3": ["CLASSIC_MODELS_md3_import_mesh", "CLASSIC_MODELS_md3_import_animation",
                         "CLASSIC_MODELS_md3_import_skins", "CLASSIC_MODELS_md3_import_player"],
    "import_scene.ms3d": ["CLASSIC_MODELS_ms3d_import_transform", "CLASSIC_MODELS_ms3d_import_animation",
                          "CLASSIC_MODELS_ms3d_import_materials",
                          "CLASSIC_MODELS_ms3d_import_names"],
    "import_scene.md5": ["CLASSIC_MODELS_md5_import_animation", "CLASSIC_MODELS_md5_import_skins"],
    "import_scene.game_archive": ["CLASSIC_MODELS_archive_md2_mdl", "CLASSIC_MODELS_archive_md2",
                                  "CLASSIC_MODELS_archive_mdl", "CLASSIC_MODELS_archive_md3",
                                  "CLASSIC_MODELS_archive_ms3d", "CLASSIC_MODELS_archive_md5"],
}
# Options drawn above the panels (always in view).
TOP = {"export_scene.md2": {"game_folder_path"}, "export_scene.mdl": {"game_folder_path"},
       "export_scene.ms3d": {"game_folder_path"}, "export_scene.md5": {"game_folder_path"},
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
    "import_scene.game_archive": ({"load_skins": (True, False), "palette_path": ("", "//q.lmp")},
                                  lambda v: ({"pcx_colours", "palette", "palette_path"} if not v["load_skins"] else set())
                                  | ({"palette"} if v["palette_path"] else set())),
}
DIALOGS = list(PANELS)


def stand_in(bpy, idname: str, panels: str = "open", **values) -> OperatorStandIn:
    if idname == "import_scene.game_archive":
        values.setdefault("models", archive_models(bpy, *ALL_FORMATS))
    return OperatorStandIn(idname, panels=panels, **values)


def option_calls(operator: OperatorStandIn, log: list[Call]) -> list[tuple[str, Call]]:
    return [(name, call) for data, name, call in drawn(log) if data is operator]


def check_drawn_properties_exist(log: list[Call]) -> None:
    """Every drawn property, list and operator button names something that exists."""
    import bpy
    for data, name, call in drawn(log):
        if name.startswith('["'):            # a custom property: '["comment"]'
            assert name[2:-2] in data.keys(), f"{call.name}({data!r}, {name!r}): no such custom property"
            continue
        assert name in rna_properties(data), f"{call.name}({data!r}, {name!r}): no such property"
        if call.name == "prop_search":
            assert call.args["search_property"] in call.args["search_data"].bl_rna.properties
    for call in log:
        if call.name == "template_list":
            assert hasattr(bpy.types, call.args["listtype_name"]), call.args["listtype_name"]
        if call.name == "operator":
            module, name = call.args["operator"].split(".")
            getattr(getattr(bpy.ops, module), name).get_rna_type()


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


def test_the_archive_dialog_offers_the_options_of_the_formats_it_lists(bpy_scene):
    bpy = bpy_scene
    expected = {("MDL",): ["CLASSIC_MODELS_archive_md2_mdl", "CLASSIC_MODELS_archive_mdl"],
                ("MS3D",): ["CLASSIC_MODELS_archive_ms3d"],
                ("MD3",): ["CLASSIC_MODELS_archive_md3"],
                ("MD2", "MS3D"): ["CLASSIC_MODELS_archive_md2_mdl", "CLASSIC_MODELS_archive_md2",
                                  "CLASSIC_MODELS_archive_ms3d"],
                (): PANELS["import_scene.game_archive"]}        # nothing listed yet: every format's
    for formats, panels in expected.items():
        operator = stand_in(bpy, "import_scene.game_archive", models=archive_models(bpy, *formats))
        log = operator.draw(dialog_context(bpy))
        assert [c.args["idname"] for c in log if c.name == "panel"] == panels
        names = [name for name, _ in option_calls(operator, log)]
        assert len(names) == len(set(names))


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


class PanelStandIn:
    """A Panel's or UIList's methods bound to a stand-in with a recording layout."""

    def __init__(self, cls, log: list, panels: str = "open"):
        self._cls, self.layout = cls, Recorder(log, panels=panels)
        self.bitflag_filter_item = 1 << 30

    def __getattr__(self, name):
        value = getattr(self._cls, name)
        return types.MethodType(value, self) if inspect.isfunction(inspect.getattr_static(self._cls, name)) else value


class ContextStandIn:
    def __init__(self, bpy, **overrides):
        self._bpy, self._overrides = bpy, overrides

    def __getattr__(self, name):
        return self._overrides[name] if name in self._overrides else getattr(self._bpy.context, name)


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
    from formats.mdl.codec import serialize_mdl as write
    from support.mdl_models import synthetic_model
    from support.mdl_models import rapo_model
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
