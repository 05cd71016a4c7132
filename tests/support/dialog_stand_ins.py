"""Dialogs drawn without a window, for the tests of tests/interface: an operator's, a panel's or a UIList's
``draw()`` run against a recording stand-in of ``UILayout`` (the ``bpy`` module never opens a window, so
Blender never calls ``draw()`` in the tests).

The stand-in accepts only the functions, keyword arguments and attributes that bpy's own
``UILayout`` RNA lists (so a call the real program rejects fails here too), records every call with
whether its layout is greyed out (``active``/``enabled`` False on it or a parent) and which layout
panel holds it. The operator stand-in carries the option values and, as a running operator does,
``bl_rna`` of the Operator type, whose properties are not the options (what the old draw walked).
``PANELS`` names every dialog's layout panels; ``DIALOGS`` lists the dialogs.
"""
from __future__ import annotations

import inspect
import types
from dataclasses import dataclass
from types import SimpleNamespace

NOT_DRAWN = {"rna_type", "filepath"}        # the file browser (or Collection Exporter) draws the path


@dataclass
class Call:
    name: str
    args: dict
    layout: Recorder
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


ALL_FORMATS = ("MD2", "MDL", "MD3", "MS3D", "MD5", "IQM")

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
    "import_scene.iqm": ["CLASSIC_MODELS_iqm_import_mesh", "CLASSIC_MODELS_iqm_import_animation"],
    "export_scene.iqm": ["CLASSIC_MODELS_iqm_export_include", "CLASSIC_MODELS_iqm_export_animation",
                         "CLASSIC_MODELS_iqm_export_transform", "CLASSIC_MODELS_iqm_export_geometry"],
    "import_scene.game_archive": ["CLASSIC_MODELS_archive_md2_mdl", "CLASSIC_MODELS_archive_md2",
                                  "CLASSIC_MODELS_archive_mdl", "CLASSIC_MODELS_archive_ms3d",
                                  "CLASSIC_MODELS_archive_md3", "CLASSIC_MODELS_archive_md5",
                                  "CLASSIC_MODELS_archive_iqm"],   # table order
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
