"""What the import dialogs share, and the Game Archive dialog's drawing.

A format's own dialog is in its folder, ``importers/<fmt>/dialog.py`` (its row's ``import_dialog``):
``draw_import(operator, layout, context)``, called by its operator's ``draw()``, and ``ARCHIVE_SECTIONS``,
its groups in the Game Archive dialog. Every option is drawn by name in a group (a layout panel,
``CLASSIC_MODELS_<format>_import_<group>``, ``CLASSIC_MODELS_archive_<formats>`` in the Game Archive
dialog); an option that does not apply to the current choices is greyed out, never hidden.

The Game Archive dialog draws the model list, then the sections of the formats it lists (every
format's while nothing is listed), in table order, each once: a section several formats list (the
same :class:`ArchiveSection`, :data:`FRAME_OPTIONS` of the formats built on ``FrameImportBase``) is
titled with all their names (``MD2 and MDL``) and drawn where the first of them comes. An option a
section drawn before it already holds is left out (the archive operator has one of each: the formats
share it).
"""
from __future__ import annotations

from dataclasses import dataclass

from ..common.dialog_layout import group, start, wrapped_label
from ..formats import table

ARCHIVE_DIALOG_WIDTH = 560      # px at UI scale 1: the Game Archive dialog, its messages wrapped to it
SHOWN_PROBLEMS = 5              # unreadable entries whose reason is spelled out below the list


@dataclass(frozen=True, eq=False)
class ArchiveSection:
    """One group of the Game Archive dialog: ``items`` are option names (drawn as they are, unless a
    section before holds them) or functions ``(operator, body)`` drawing options that depend on others."""
    items: tuple


FRAME_OPTIONS = ArchiveSection(("scale", "use_file_normals", "animations", "scene_timing", "load_skins"))


def frame_import(operator, layout, fmt: str):
    """The groups of the formats built on FrameImportBase: Mesh, Animation, and the Skins group with
    Load Skins in it, returned (None while folded) for the format's skin options."""
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


def prop_groups(operator, layout, fmt: str, groups: tuple[tuple[str, str, tuple[str, ...]], ...]) -> None:
    """A group ``CLASSIC_MODELS_<fmt>_import_<key>`` titled ``title`` per (key, title, options)."""
    start(layout)
    for key, title, options in groups:
        body = group(layout, f"CLASSIC_MODELS_{fmt}_import_{key}", title)
        if body:
            for name in options:
                body.prop(operator, name)


def archive_sections() -> list[tuple[ArchiveSection, list[table.FormatRow]]]:
    """Every section of the importable rows' dialogs with the rows that list it, in table order."""
    listed: dict[int, tuple[ArchiveSection, list[table.FormatRow]]] = {}
    for row in table.importable():
        for section in (table.resolve(row.import_dialog).ARCHIVE_SECTIONS if row.import_dialog else ()):
            listed.setdefault(id(section), (section, []))[1].append(row)
    return list(listed.values())


def _draw_sections(operator, layout, present: set[str]) -> None:
    start(layout)
    held: set[str] = set()
    for section, rows in archive_sections():
        if not present & {row.source_format for row in rows}:
            continue
        items = [item for item in section.items if callable(item) or item not in held]
        held |= {item for item in items if not callable(item)}
        body = group(layout, "CLASSIC_MODELS_archive_" + "_".join(row.key for row in rows),
                     " and ".join(row.source_format for row in rows))
        if body:
            for item in items:
                item(operator, body) if callable(item) else body.prop(operator, item)


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
    _draw_sections(operator, layout, set(formats) or set(shown))
