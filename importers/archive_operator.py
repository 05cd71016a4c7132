"""File > Import > Game Archive (.pak, .pk3): tick models in an archive's directory and import them.

The dialog reads only the archive's directory (``formats/archives/archive.py``) and lists its members of
the importable formats of the table (``formats/table.py``); each ticked member is imported by its
row's importer with the options of that format's own operator (the annotations are shared, so the options and their meaning are the same),
reading the member from memory through :class:`.file_source.ArchiveSource`: skins, textures and a
player's weapon models come from the archive, then from its game folder in the engine's order.
A broken member is reported and the others are imported.
"""
from __future__ import annotations

import sys
from pathlib import Path, PurePosixPath

import bpy
from bpy.props import BoolProperty, CollectionProperty, IntProperty, StringProperty

from bpy_extras.io_utils import axis_conversion_ensure

from ..common.dialog_layout import region_current
from ..common.disk_names import readable_report
from ..formats import table
from ..formats.archives.archive import ArchiveError, member_key, open_archive
from ..formats.archives.game_folder import GameFolder
from ..formats.report_lines import Message, report_folded
from .dialogs import ARCHIVE_DIALOG_WIDTH, draw_archive_import
from .file_source import ArchiveSource, GameFiles
from .operators import FrameImportBase
from .run_import import import_jobs

_NOT_SHARED = {"filepath", "files", "directory", "filter_glob", "skin_image"}   # per file, not per archive


def model_format(name: str) -> str | None:
    """The source format (``MD2``) of a member name the table's importers read, else None."""
    row = table.row_for_name(name)
    return row.source_format if row is not None and row.importer else None


def _importer_entry(name: str):
    """The import entry module (``OPERATOR``, ``IMPORTER``) of a member's format."""
    return table.resolve(table.row_for_name(name).importer)


def _importable_names() -> str:
    return ", ".join(row.source_format for row in table.importable())


class ArchiveModel(bpy.types.PropertyGroup):
    """One model of the archive's directory (``name`` is the member name)."""
    format: StringProperty(name="Format", description="The member's format (MD2 ...), by its extension")
    size: IntProperty(name="Size", description="The member's size in bytes, as the directory says")
    problem: StringProperty(name="Problem", description="Why the directory entry cannot be read")
    ticked: BoolProperty(name="Import", default=False,
                         description="Tick to import this model; the row shows its file name, then its folder "
                                     "in the archive, its format and size")


def _matches(item: ArchiveModel, text: str) -> bool:
    return not text or text.lower() in item.name.lower()


def shown_name(member: str) -> str:
    """What a list row shows of a member: its file name first, then its folder (``tris.md2  (models/ogre)``),
    so rows of one archive (``models/...``) differ where a narrow dialog cuts them."""
    path = PurePosixPath(member)
    return path.name if str(path.parent) in (".", "") else f"{path.name}  ({path.parent})"


class CLASSIC_MODELS_UL_archive_models(bpy.types.UIList):
    """The archive's models: tick box with the file name and folder (its tooltip says what the row is),
    format and size or "cannot be read" (the dialog says why below the list); filtered by the Filter."""

    def draw_item(self, context, layout, data, item, icon, active_data, active_propname, index=0):
        split = layout.split(factor=0.75, align=True)
        split.prop(item, "ticked", text=shown_name(item.name))
        split.label(text="cannot be read" if item.problem else f"{item.format}  {item.size:,} B",
                    icon="ERROR" if item.problem else "NONE")

    def filter_items(self, context, data, propname):
        items = getattr(data, propname)
        text = getattr(data, "model_filter", "")
        flags = [self.bitflag_filter_item if _matches(item, text) else 0 for item in items]
        return flags, []


def _tick_shown_get(self) -> bool:
    shown = [m for m in self.models if _matches(m, self.model_filter)]
    return bool(shown) and all(m.ticked for m in shown)


def _tick_shown_set(self, value: bool) -> None:
    for model in self.models:
        if _matches(model, self.model_filter):
            model.ticked = value


def archive_models(path: Path) -> tuple[list[tuple[str, str, int, str]], str]:
    """(member name, format, size, problem) of every model in the archive's directory, by name, then
    entries the directory lists but cannot be read; and '' or why the archive cannot be opened."""
    try:
        with open_archive(path) as archive:
            listed = {member_key(m.name): m for m in archive.members()}
            problems = [p for p in archive.problems if p.member and model_format(p.member)]
    except ArchiveError as exc:
        return [], str(exc)
    models = [(m.name, model_format(m.name), m.size, "") for m in sorted(listed.values(), key=lambda m: m.name.lower())
              if model_format(m.name)]
    return models + [(p.member, model_format(p.member), 0, p.message) for p in problems], ""


def fill_models(models, path: Path) -> str:
    """Fill the dialog's list from the archive's directory (no member is read); '' or the error."""
    models.clear()
    listed, error = archive_models(path)
    for name, kind, size, problem in listed:
        item = models.add()
        item.name, item.format, item.size, item.problem = name, kind, size, problem
    return error


class IMPORT_SCENE_OT_game_archive(bpy.types.Operator):
    """Import models from a Quake PAK or PK3 archive: tick them in the list; skins come from the archive
    and its game folder"""
    bl_idname = "import_scene.game_archive"
    bl_label = "Import Archive"
    bl_options = {"REGISTER", "UNDO"}

    filepath: StringProperty(name="File Path", subtype="FILE_PATH", options={"SKIP_PRESET", "HIDDEN"})
    filter_glob: StringProperty(default=";".join(f"*{ext}" for ext in table.archive_extensions()), options={"HIDDEN"})
    models: CollectionProperty(type=ArchiveModel, options={"SKIP_SAVE"}, name="Models",
                               description="The archive's models: tick the ones to import")
    active_model: IntProperty(name="Highlighted Model", options={"HIDDEN", "SKIP_SAVE"},
                              description="The model row last clicked; the tick boxes choose what is imported")
    listed_path: StringProperty(name="Listed Archive", options={"HIDDEN", "SKIP_SAVE"},
                                description="The archive the list was read from")
    list_error: StringProperty(name="List Error", options={"HIDDEN", "SKIP_SAVE"},
                               description="Why the archive's directory could not be read")
    model_filter: StringProperty(name="Filter", options={"SKIP_SAVE", "TEXTEDIT_UPDATE"},
                                 description="Show only models whose member name contains this text")
    tick_shown: BoolProperty(name="All Shown", get=_tick_shown_get, set=_tick_shown_set, options={"SKIP_SAVE"},
                             description="Tick (or untick) every model the filter shows")

    def _refresh(self) -> bool:
        """List the archive ``filepath`` names, once per archive chosen."""
        path = bpy.path.abspath(self.filepath)
        if path == self.listed_path:
            return False
        self.listed_path = path
        if Path(path).is_file():
            self.list_error = fill_models(self.models, Path(path))
        else:
            self.models.clear()
            self.list_error = ""
        return True

    def invoke(self, context, event):
        if self.properties.is_property_set("filepath") and self.filepath:   # dropped on the viewport
            self._refresh()
            with region_current(context):      # from a timer or startup script: no region (a crash in draw)
                return context.window_manager.invoke_props_dialog(self, width=ARCHIVE_DIALOG_WIDTH,
                                                              title=Path(self.filepath).name)
        context.window_manager.fileselect_add(self)
        return {"RUNNING_MODAL"}

    def check(self, context):
        axes = axis_conversion_ensure(self, "axis_forward", "axis_up")    # as ImportHelper does for a format with axes
        return self._refresh() or axes

    def draw(self, context):
        draw_archive_import(self, self.layout, context)

    def execute(self, context):
        if not self.models:          # called from a script with the archive only
            self._refresh()
        ticked = [m.name for m in self.models if m.ticked and model_format(m.name)]
        for name in (m.name for m in self.models if m.ticked and not model_format(m.name)):
            self.report({"ERROR"}, f"{self.filepath}:{name}: not a model this importer reads ({_importable_names()})")
        if self.list_error:
            self.report({"ERROR"}, self.list_error)
            return {"CANCELLED"}
        if not ticked:
            self.report({"ERROR"}, f"{self.filepath}: no model ticked; select the archive once and tick the "
                                   "models to import in the list beside the file browser")
            return {"CANCELLED"}
        path = Path(bpy.path.abspath(self.filepath))
        try:
            archive = open_archive(path)
        except ArchiveError as exc:
            self.report({"ERROR"}, str(exc))
            return {"CANCELLED"}
        game = GameFolder.around(path)
        try:
            files = GameFiles(archive, game)
            jobs = []
            report_folded(readable_report(self.report), [w for name in ticked for w in archive.warnings_for(name)])
            for name in ticked:
                entry = _importer_entry(name)
                options = entry.OPERATOR.import_options(self, exclude=tuple(ticked))
                jobs.append((ArchiveSource(archive, name, game, files), entry.IMPORTER, options))
            status = import_jobs(self, context, jobs)
            report_folded(readable_report(self.report), [Message(f"skipped in the skin search of the game folder: {problem}",
                                                "skipped {n} broken archive{s} in the skin search of the game "
                                                "folder", Path(problem.archive).name)
                                        for problem in (game.problems if game is not None else [])])
            return status
        finally:
            archive.close()
            if game is not None:
                game.close()


_OWN_OPTIONS = dict(IMPORT_SCENE_OT_game_archive.__annotations__)


def share_options() -> None:
    """Give the archive operator every option of the table's import operators, as the table is now (the
    same properties; annotations written as strings are evaluated where they were written). Called before
    the operator is registered, so a row added before registration brings its options."""
    IMPORT_SCENE_OT_game_archive.__annotations__.clear()
    IMPORT_SCENE_OT_game_archive.__annotations__.update(_OWN_OPTIONS)
    for row in table.importable():
        operator_class = table.resolve(row.importer).OPERATOR
        for cls in reversed(operator_class.__mro__):
            for name, prop in getattr(cls, "__annotations__", {}).items():
                if name not in _NOT_SHARED and name not in IMPORT_SCENE_OT_game_archive.__annotations__:
                    if isinstance(prop, str):
                        prop = eval(prop, vars(sys.modules[cls.__module__]))  # noqa: S307 - our own source
                    IMPORT_SCENE_OT_game_archive.__annotations__[name] = prop
    IMPORT_SCENE_OT_game_archive.frame_options = FrameImportBase.frame_options


share_options()

CLASSES = (ArchiveModel, CLASSIC_MODELS_UL_archive_models, IMPORT_SCENE_OT_game_archive)
