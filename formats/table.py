"""The table of formats: one row per model format, one per archive format, and nothing else decides
which formats exist.

The menus and file handlers (``ui/menus.py``), the registration (``__init__.py``), the sidebar and
object settings (``ui/panel.py``, ``ui/properties.py``), the Game Archive dialog
(``importers/archive_operator.py``, ``importers/dialogs.py``: each listed format's groups) and the command
line (``info``, ``check``, ``convert`` and its options, ``list``, ``pack``) all take the formats from here. A row names the code of
its format in the layers above as module names (``.importers.md2.operator``: relative to this
package; a name without a leading dot is an ordinary absolute module), imported only when asked
(:func:`resolve`), so ``formats/`` imports nothing above it and ``info`` runs without Blender.

What a row's modules (or ``module:attribute``) provide:

    codec      ``module:function``: the bpy-free ``parse(data)`` of the format (``formats/<fmt>/codec.py``)
    importer   ``OPERATOR``: the File > Import operator class (its ``import_options(exclude)`` and the
               ``IMPORTER`` function the Game Archive dialog calls with a member as the source)
    exporter   ``OPERATOR``: the File > Export operator class (None: import only)
    info       ``module:function(info, path, data, load_skins, name_encoding)``: what ``info`` and
               ``check`` read of a file of the format into ``info`` (a ``cli.inspect.ModelInfo``),
               without Blender (``cli/<fmt>/info.py``)
    describe   ``module:function(info)``: ``info``'s lines of the format's own between the skin size and
               the animations, its skins included ("": the skins only)
    check      ``module:function(info)``: lines ``check`` prints after a file's problems ("": none)
    member_files  ``module:function(name, data, folder_files)``: the game paths an archive member
               ``name`` needs beside it (skins, textures, sibling files); ``folder_files()`` lists
               the game folder's files ("": none)
    import_dialog  a module with ``draw_import(operator, layout, context)`` (its operator's dialog) and
               ``ARCHIVE_SECTIONS``: its groups in the Game Archive dialog (``importers/<fmt>/dialog.py``;
               "": none there)
    sidebar    a module drawing the format's part of the sidebar, with its panels and its fields of
               ``Object.classic_model`` (``ui/<fmt>/sidebar.py``; what it may hold: ``ui/panel.py``,
               ``object_fields``: ``ui/properties.py``) ("": the shared part only)
    cli_options  a module with ``add_options(imports, exports)`` (its arguments of ``convert``, in the
               import and export option groups) and ``requests(args)``: the operator properties they set,
               (import options, export options), each ``{property: (option as typed, value)}``
               (``cli/<fmt>/options.py``)
    check_profile  a module with ``PROFILE`` (``q2-player``), ``HELP`` and ``run(args, prog)``: a
               ``check --profile`` of the format, or with ``PROFILES``, several objects each having
               them (``q1-enhanced``, ``q2-enhanced``) ("": none)

Adding a format touches this table and the format's own folders only (docs/dev/architecture.md):
``formats/<fmt>/`` (codec), ``common/<fmt>/`` (its contract names), ``importers/<fmt>/`` (operator.py,
dialog.py and the build), ``exporters/<fmt>/`` (operator.py, dialog.py and export.py), ``ui/<fmt>/``
(sidebar.py, where it shows more), ``cli/<fmt>/`` (its ``info`` reader, options.py and what else of the
command line is its own), and one row in ``FORMATS``. The modules beside the format folders take every
format from here and name none (``tests/house/test_format_table.py`` counts).
A format tried before its row is here (the tests' toy format) is added with :func:`add_row` by the
code that tries it, before the extension registers; nothing the environment names is imported.
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass
from pathlib import PurePosixPath

_PACKAGE = __name__.rpartition(".")[0].rpartition(".")[0]      # the extension's own package


@dataclass(frozen=True)
class FormatRow:
    """One model format. ``key`` is its name everywhere: the operators ``import_scene.<key>`` and
    ``export_scene.<key>`` (users' keymaps and presets name them), ``convert --to <key>``, and
    ``<KEY>`` as the source format an imported object records."""
    key: str                          # "md2"
    title: str                        # "Quake II MD2": what info prints before the version
    menu_label: str                   # "Quake II Model": File > Import / Export, before the extensions
    extensions: tuple[str, ...]       # (".md2",): the first is what an export writes
    magics: tuple[bytes, ...]         # what a file starts with (b"IDP2"); () for a text format
    versions: tuple[int, ...]         # the versions the codec reads, in the order of ``magics`` (binary
                                      # formats: the little-endian int32 right after the magic)
    limits: str                       # the original engine's limits, one line
    codec: str                        # ".formats.md2.codec:parse_md2"
    importer: str | None              # ".importers.md2.operator" (None: not imported yet)
    exporter: str | None              # ".exporters.md2.operator" (None: import only)
    info: str                         # ".cli.md2.info:inspect_md2"
    named_frames: bool = False        # frames are the file's own, named one by one: never resampled
    player: str = ""                  # the player model of a game's player folder ("tris.md2"), if any
    describe: str = ""                # ".cli.mdl.info:describe_lines"
    check: str = ""                   # ".cli.md2.info:check_lines"
    member_files: str = ""            # ".cli.md2.members:member_files"
    check_profile: str = ""           # ".cli.md2.player_check"
    frame_groups: bool = False        # frames may be groups of poses (MDL): info --frames lists poses
    game_palette: bool = False        # paletted skins: an archive member converts with its game folder's palette
    import_dialog: str = ""           # ".importers.md2.dialog": its groups in the Game Archive dialog
    sidebar: str = ""                 # ".ui.mdl.sidebar": its part of the sidebar's Classic Model panel
    cli_options: str = ""             # ".cli.mdl.options": its own options of convert

    @property
    def source_format(self) -> str:
        """What an imported object records as its source format (``MD2``)."""
        return self.key.upper()

    @property
    def import_operator(self) -> str:
        return f"import_scene.{self.key}"

    @property
    def export_operator(self) -> str:
        return f"export_scene.{self.key}"

    @property
    def menu_text(self) -> str:
        """``Quake II Model (.md2)``: the File menus' entry."""
        return f"{self.menu_label} ({', '.join(self.extensions)})"


@dataclass(frozen=True)
class ArchiveRow:
    """One archive format: read by ``formats/archives/archive.py``, opened by the Game Archive dialog."""
    key: str                          # "pak"
    title: str
    extensions: tuple[str, ...]
    magics: tuple[bytes, ...]


FORMATS: list[FormatRow] = [
    FormatRow("md2", "Quake II MD2", "Quake II Model", (".md2",), (b"IDP2",), (8,),
              "Quake II qfiles.h: 2048 vertices, 4096 triangles, 512 frames, 32 skins of 64-byte names",
              ".formats.md2.codec:parse_md2", ".importers.md2.operator", ".exporters.md2.operator",
              ".cli.md2.info:inspect_md2", import_dialog=".importers.md2.dialog",
              cli_options=".cli.md2.options",
              named_frames=True, player="tris.md2",
              check=".cli.md2.info:check_lines", member_files=".cli.md2.members:member_files",
              check_profile=".cli.md2.player_check"),
    FormatRow("mdl", "Quake MDL", "Quake Model", (".mdl",), (b"IDPO", b"MD16", b"RAPO"), (6, 6, 50),
              "Quake Mod_LoadAliasModel: 1024 vertices, 2048 triangles, 256 frames, skins up to 480 high",
              ".formats.mdl.codec:parse_mdl", ".importers.mdl.operator", ".exporters.mdl.operator",
              ".cli.mdl.info:inspect_mdl", import_dialog=".importers.mdl.dialog",
              sidebar=".ui.mdl.sidebar", cli_options=".cli.mdl.options",
              named_frames=True, describe=".cli.mdl.info:describe_lines",
              frame_groups=True, game_palette=True),
    FormatRow("ms3d", "MilkShape 3D MS3D", "MilkShape 3D", (".ms3d",), (b"MS3D000000",), (4,),
              "MilkShape 3D: 65534 vertices and triangles, 255 groups, materials and joints",
              ".formats.ms3d.codec:parse_ms3d", ".importers.ms3d.operator", ".exporters.ms3d.operator",
              ".cli.ms3d.info:inspect_ms3d", import_dialog=".importers.ms3d.dialog",
              sidebar=".ui.ms3d.sidebar",
              describe=".cli.ms3d.info:describe_lines",
              member_files=".cli.ms3d.members:member_files"),
    FormatRow("md3", "Quake III MD3", "Quake III Model", (".md3",), (b"IDP3",), (15,),
              "Quake III qfiles.h: 4096 vertices and 8192 triangles per surface, 32 surfaces, 16 tags, 1024 frames",
              ".formats.md3.codec:read_md3", ".importers.md3.operator", ".exporters.md3.operator",
              ".cli.md3.info:inspect_md3", import_dialog=".importers.md3.dialog",
              sidebar=".ui.md3.sidebar",
              named_frames=True, player="lower.md3",
              describe=".cli.md3.info:describe_lines", member_files=".cli.md3.members:member_files",
              check_profile=".cli.md3.player_check"),
    FormatRow("md5", "MD5", "MD5", (".md5mesh", ".md5anim"), (), (),     # text: no magic (Red Eclipse's start
              # with 'commandline'), the version a token the reader checks
              "Q2PRO MD5_MAX_*: 256 joints, 32 meshes, 6144 vertices and triangles per mesh, 1024 frames",
              ".formats.md5.mesh:read_md5mesh", ".importers.md5.operator", ".exporters.md5.operator",
              ".cli.md5.info:inspect_md5", import_dialog=".importers.md5.dialog",
              sidebar=".ui.md5.sidebar",
              describe=".cli.md5.info:describe_lines",
              member_files=".cli.md5.members:member_files", check_profile=".cli.md5.enhanced_check"),
    FormatRow("iqm", "Inter-Quake Model (IQM)", "Inter-Quake Model", (".iqm",), (b"INTERQUAKEMODEL\0",), (2,),
              "DarkPlaces Mod_INTERQUAKEMODEL_Load: position and texcoord float arrays, ubyte x 4 blend arrays; "
              "FTE and Warsow: one pose per joint",
              ".formats.iqm.codec:read_iqm", ".importers.iqm.operator", ".exporters.iqm.operator",
              ".cli.iqm.info:inspect_iqm", import_dialog=".importers.iqm.dialog", describe=".cli.iqm.info:describe_lines",
              member_files=".cli.iqm.info:member_files"),
]

ARCHIVES: list[ArchiveRow] = [
    ArchiveRow("pak", "Quake PAK", (".pak",), (b"PACK",)),
    ArchiveRow("pk3", "PK3 (ZIP)", (".pk3",), (b"PK\x03\x04",)),
]
ARCHIVE_OPERATOR = "import_scene.game_archive"
ARCHIVE_MENU_TEXT = "Game Archive (.pak, .pk3)"


def add_row(row: FormatRow) -> None:
    """Add ``row`` (or replace the row of its key)."""
    remove_row(row.key)
    FORMATS.append(row)


def remove_row(key: str) -> None:
    FORMATS[:] = [r for r in FORMATS if r.key != key]


def row(key: str) -> FormatRow:
    """The row of ``key`` (``md2`` or ``MD2``); KeyError for a format the table does not hold."""
    found = next((r for r in FORMATS if r.key == key.lower()), None)
    if found is None:
        raise KeyError(key)
    return found


def keys() -> tuple[str, ...]:
    return tuple(r.key for r in FORMATS)


def importable() -> list[FormatRow]:
    return [r for r in FORMATS if r.importer]


def exportable() -> list[FormatRow]:
    return [r for r in FORMATS if r.exporter]


def model_extensions() -> tuple[str, ...]:
    """Every extension of a model format (``.md2``, ``.mdl`` ...), in table order."""
    return tuple(ext for r in FORMATS for ext in r.extensions)


def archive_extensions() -> tuple[str, ...]:
    return tuple(ext for a in ARCHIVES for ext in a.extensions)


def row_for_name(name: str) -> FormatRow | None:
    """The row of a file or archive member name by its extension (``players/male/tris.md2``), or None."""
    suffix = PurePosixPath(str(name).replace("\\", "/")).suffix.lower()
    return next((r for r in FORMATS if suffix in r.extensions), None)


def resolve(name: str):
    """The module (``.importers.md2.operator``) or ``module:attribute`` a row names, imported now."""
    module_name, _, attribute = name.partition(":")
    if module_name.startswith("."):      # this package's (its checkout on sys.path: a top-level name)
        module = importlib.import_module(module_name, _PACKAGE) if _PACKAGE \
            else importlib.import_module(module_name[1:])
    else:
        module = importlib.import_module(module_name)
    return getattr(module, attribute) if attribute else module

