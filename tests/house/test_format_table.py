"""The table of formats (``formats/table.py``) is where the formats come from: a toy format added as one
row (tests/support/toy_format.py, tests/support/toy_format_blender.py) shows up in File > Import and File > Export, in
the FileHandlers, in the Game Archive dialog's list and options, its import dialog, the sidebar, and in
``python -m classic_models info`` and ``convert`` with an option of its own; every row's extension, magic
and version are what its codec reads in the corpus; and the extension's shared modules name no format
(string literals), but for a few that say why."""
from __future__ import annotations

import ast
import os
import struct
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from support.environment import BLOCK_BPY, CORPUS, TESTS, corpus_files, needs_bpy, skip_inside_blender
from support.toy_format import parse_toy, serialize_toy, site_folder

from formats import table
from formats.md2.codec import parse_md2

# a tetrahedron: 4 vertices, 4 triangles
TOY_POSITIONS = np.array([(0, 0, 0), (10, 0, 0), (0, 20, 0), (0, 0, 30)], np.float32)
TOY_CORNERS = np.array([(0, 2, 1), (0, 1, 3), (0, 3, 2), (1, 2, 3)], np.uint32)


@pytest.mark.parametrize("row", table.FORMATS, ids=lambda r: r.key)
def test_each_row_names_what_its_codec_reads(row):
    """Every corpus file of the row's extensions that its codec parses starts with one of the row's
    magics, followed by the version listed beside that magic (the int32 after it); the table's name
    lookup gives the row back."""
    files = [p for p in corpus_files(f"{row.key}/**/*") if p.suffix.lower() in row.extensions]
    if not files:
        pytest.skip(f"no {row.key} files in the corpus at {CORPUS}")
    parse = table.resolve(row.codec)
    seen = set()
    for path in files:
        data = path.read_bytes()
        try:
            parse(data)
        except Exception:      # noqa: BLE001 - the corpus holds broken files on purpose; they prove nothing here
            continue
        assert table.row_for_name(path.name) is row
        seen.add(path.suffix)
        if not row.magics:      # a text format (MD5): its reader checks the version token
            continue
        magic = next((m for m in row.magics if data.startswith(m)), None)
        assert magic is not None, f"{path}: starts with {data[:10]!r}, not one of {row.magics}"
        version, = struct.unpack_from("<i", data, len(magic))
        assert version == row.versions[row.magics.index(magic)], path
    assert seen, f"the codec reads none of the {len(files)} {row.key} files of the corpus"


def test_rows_do_not_share_keys_extensions_or_magics():
    for attribute in ("key", "extensions", "magics"):
        values = [v for r in table.FORMATS for v in (getattr(r, attribute) if attribute != "key" else [r.key])]
        assert len(values) == len(set(values)), attribute
    assert not set(table.model_extensions()) & set(table.archive_extensions())


def _toy_rows_env(package_path: Path, folder: Path) -> dict:
    """The environment of a process that takes the toy row: a sitecustomize adding it, the package and tests/
    importable (the extension reads no variable naming rows)."""
    return dict(os.environ, PYTHONPATH=os.pathsep.join([str(site_folder(folder / "site")), str(package_path),
                                                         str(TESTS)]))


def test_a_toy_row_reaches_info(package_path, tmp_path):
    (tmp_path / "tetra.toy").write_bytes(serialize_toy(TOY_POSITIONS, TOY_CORNERS))
    result = subprocess.run([sys.executable, "-c", BLOCK_BPY, "info", "tetra.toy"], capture_output=True,
                            text=True, env=_toy_rows_env(package_path, tmp_path), cwd=tmp_path, timeout=120)
    assert result.returncode == 0, result.stderr
    size = (tmp_path / "tetra.toy").stat().st_size
    assert result.stdout.splitlines()[:2] == [f"tetra.toy: Toy Model version 1, {size} bytes",
                                              "  vertices 4, triangles 4"]


def test_a_toy_row_reaches_convert(package_path, tmp_path):
    """``convert --to toy`` (the toy exporter in convert's Blender workers) from a corpus MD2, and a toy
    model back to MD2 (the toy importer): positions as the MD2 codec decodes them."""
    needs_bpy()
    skip_inside_blender("python -m classic_models convert")
    source = CORPUS / "md2/petaaar88-zarlag/weapon.md2"
    if not source.is_file():
        pytest.skip(f"{source} is not in the corpus")
    (tmp_path / "tetra.toy").write_bytes(serialize_toy(TOY_POSITIONS, TOY_CORNERS))
    env = _toy_rows_env(package_path, tmp_path)
    for args in ((source, "--to", "toy", "--toy-scale", "2"), ("tetra.toy", "--to", "md2")):
        result = subprocess.run([sys.executable, "-m", "classic_models", "convert", *args, "-o", "out"],
                                capture_output=True, text=True, env=env, cwd=tmp_path, timeout=600)
        assert result.returncode == 0, result.stdout + result.stderr
    positions, corners = parse_toy((tmp_path / "out/weapon.toy").read_bytes())
    model = parse_md2(source.read_bytes())
    expected = model.positions()[0] * 2          # --toy-scale 2: the toy row's own option of convert
    assert positions.shape == expected.shape
    np.testing.assert_allclose(np.unique(positions, axis=0), np.unique(expected, axis=0), atol=2e-4)
    kept = [t for t in model.tri_xyz.tolist() if len(set(t)) == 3]
    assert len(corners) == len(kept)
    back = parse_md2((tmp_path / "out/tetra.md2").read_bytes())
    assert len(back.tri_xyz) == 4
    step = np.asarray(back.frame_scale[0])
    np.testing.assert_allclose(np.unique(back.positions()[0], axis=0), np.unique(TOY_POSITIONS, axis=0),
                               atol=float(step.max()))


class _Recorder:
    """A stand-in for a menu's ``self``: records what the draw functions add."""

    def __init__(self) -> None:
        self.layout, self.entries = self, []

    def operator(self, idname: str, text: str = "", **_) -> None:
        self.entries.append((idname, text))


@pytest.fixture
def toy_registered(extension):
    """The extension registered again with the toy row in its table (and again without it after)."""
    from support import toy_format

    import bpy
    package, ext_table = sys.modules[extension], sys.modules[f"{extension}.formats.table"]
    package.unregister()
    ext_table.add_row(toy_format.format_rows(ext_table)[0])
    try:
        package.register()
        yield bpy
    finally:
        package.unregister()
        ext_table.remove_row("toy")
        package.register()


def _drawn(menu) -> list[tuple[str, str]]:
    """What the extension's draw functions appended to ``menu`` add to it."""
    recorder = _Recorder()
    for draw in getattr(menu.draw, "_draw_funcs", []):
        if getattr(draw, "__module__", "").endswith(".ui.menus"):
            draw(recorder, None)
    return recorder.entries


def test_a_toy_row_reaches_the_menus_file_handlers_and_archive_dialog(toy_registered, extension, tmp_path):
    bpy = toy_registered
    assert ("import_scene.toy", "Toy Model (.toy)") in _drawn(bpy.types.TOPBAR_MT_file_import)
    assert ("export_scene.toy", "Toy Model (.toy)") in _drawn(bpy.types.TOPBAR_MT_file_export)
    assert ("import_scene.md2", "Quake II Model (.md2)") in _drawn(bpy.types.TOPBAR_MT_file_import)
    handler = bpy.types.IO_FH_classic_models_toy
    assert (handler.bl_file_extensions, handler.bl_import_operator, handler.bl_export_operator) == \
        (".toy", "import_scene.toy", "export_scene.toy")
    assert "toy" in dir(bpy.ops.import_scene) and "toy" in dir(bpy.ops.export_scene)

    archive_module = sys.modules[f"{extension}.importers.archive_operator"]
    pak = tmp_path / "pak0.pak"
    toy = serialize_toy(TOY_POSITIONS, TOY_CORNERS)
    sys.modules[f"{extension}.formats.archives.archive"].write_archive(
        pak, [("models/tetra.toy", toy), ("models/readme.txt", b"not a model")])
    listed, error = archive_module.archive_models(pak)
    assert (listed, error) == ([("models/tetra.toy", "TOY", len(toy), "")], "")


def test_a_toy_row_brings_its_dialog_archive_options_and_sidebar(toy_registered, extension, tmp_path):
    """The toy row's import dialog (its operator's draw), its group in the Game Archive dialog with its
    option shared by the archive operator (a member imported with Flip Faces), and its part of the sidebar."""
    from support.dialog_stand_ins import (
        ContextStandIn,
        PanelStandIn,
        archive_models,
        dialog_context,
        option_calls,
        stand_in,
    )
    bpy = toy_registered
    operator = stand_in(bpy, "import_scene.toy")
    log = operator.draw(dialog_context(bpy))
    assert [(name, c.layout.panel_id) for name, c in option_calls(operator, log)] == [
        ("toy_flip", "CLASSIC_MODELS_toy_import_mesh")]

    operator = stand_in(bpy, "import_scene.game_archive", models=archive_models(bpy, "TOY", "MS3D"))
    log = operator.draw(dialog_context(bpy))
    assert [c.args["idname"] for c in log if c.name == "panel"] == ["CLASSIC_MODELS_archive_ms3d",
                                                                     "CLASSIC_MODELS_archive_toy"]
    assert ("toy_flip", "CLASSIC_MODELS_archive_toy") in [(n, c.layout.panel_id) for n, c in option_calls(operator, log)]
    assert [c.args["text"] for c in log if c.name == "label" and c.layout.panel_id == "CLASSIC_MODELS_archive_toy"] \
        == ["TOY"]

    pak = tmp_path / "pak0.pak"
    sys.modules[f"{extension}.formats.archives.archive"].write_archive(
        pak, [("models/tetra.toy", serialize_toy(TOY_POSITIONS, TOY_CORNERS))])
    entry = {"name": "models/tetra.toy", "format": "", "size": 0, "problem": "", "ticked": True}
    assert bpy.ops.import_scene.game_archive(filepath=str(pak), models=[entry], toy_flip=True) == {"FINISHED"}
    obj = bpy.data.objects["tetra"]
    assert [tuple(p.vertices) for p in obj.data.polygons] == [tuple(c[::-1]) for c in TOY_CORNERS.tolist()]

    context = ContextStandIn(bpy, object=obj, active_object=obj)
    log = []
    PanelStandIn(bpy.types.VIEW3D_PT_classic_model, log).draw(context)
    labels = [c.args.get("text") for c in log if c.name == "label"]
    assert labels[:2] == ["Imported from TOY", "Toy model: 4 vertices"]


def test_the_toy_row_is_gone_after_it_is_removed(extension):
    """The fixture left the extension as it was: no toy operator, menus and handlers of the table only."""
    import bpy
    assert "toy" not in dir(bpy.ops.import_scene)
    assert not hasattr(bpy.types, "IO_FH_classic_models_toy")
    assert [e for e, _ in _drawn(bpy.types.TOPBAR_MT_file_import)] == [
        *(f"import_scene.{r.key}" for r in table.importable()), "import_scene.game_archive"]


def test_an_import_only_row_of_two_extensions():
    """The shape MD5 will have (``.md5mesh`` and ``.md5anim``, imported only): both names find the row, the
    import side lists it, the export side does not."""
    from support import toy_format
    pair = toy_format.format_rows(table)[0]
    pair = type(pair)(**{**vars(pair), "key": "toypair", "extensions": (".toymesh", ".toyanim"), "exporter": None})
    table.add_row(pair)
    try:
        assert table.row_for_name("models/a.TOYANIM") is pair and table.row_for_name("a.toymesh") is pair
        assert pair in table.importable() and pair not in table.exportable()
        assert table.model_extensions()[-2:] == (".toymesh", ".toyanim")
        assert pair.menu_text == "Toy Model (.toymesh, .toyanim)"
    finally:
        table.remove_row("toypair")
    assert "toypair" not in table.keys()


# The command line's shared modules (cli/*.py) take every format from the table: a format's own code is
# in cli/<fmt>/, reached through its row. A module here that names a format (a string that is a key or
# an extension, or ends in one; a variable, function or argument with a key as a word; an import of a
# format's folder) breaks that. Attributes are other objects' fields (``args.mdl_format``: an option of
# the MDL exporter's, which ``convert`` passes on by name) and are not looked at.
SHARED_CLI = sorted((Path(__file__).resolve().parents[2] / "cli").glob("*.py"))


def format_names(source: str, keys: set[str], extensions: tuple[str, ...]) -> list[str]:
    """``line: what`` for each place in ``source`` that names one of the formats (docstrings aside)."""
    tree = ast.parse(source)
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                  and node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}
    found = []
    for node in ast.walk(tree):
        words: list[str] = []
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            text = node.value.lower()
            if text in keys or text.endswith(extensions):
                found.append(f"{node.lineno}: {node.value!r}")
        elif isinstance(node, ast.ImportFrom):
            words = (node.module or "").split(".") + [a.name for a in node.names]
        elif isinstance(node, ast.Import):
            words = [part for a in node.names for part in a.name.split(".")]
        elif isinstance(node, ast.Name):
            words = node.id.lower().split("_")
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef, ast.arg)):
            words = (node.arg if isinstance(node, ast.arg) else node.name).lower().split("_")
        if keys & set(words):
            found.append(f"{node.lineno}: {sorted(keys & set(words))[0]} in {ast.unparse(node).splitlines()[0][:60]}")
    return found


@pytest.mark.parametrize("path", SHARED_CLI, ids=lambda p: p.name)
def test_the_command_lines_shared_modules_name_no_format(path):
    keys = set(table.keys())
    assert format_names(path.read_text(encoding="utf-8"), keys, table.model_extensions()) == []


@pytest.mark.parametrize("source", [
    'fmt = "md2"\n', 'if info.format == "MDL":\n    pass\n', 'SUFFIXES = (".pcx", ".md2")\n',
    'BODY = "tris.md2"\n', "from ..formats.md2 import codec\n", "from ..formats import ms3d\n",
    "import formats.mdl.codec\n", "from .md2.info import inspect\n", "MS3D_FPS = 24.0\n",
    "x = inspect_md2(data)\n", "def read_mdl(data):\n    pass\n"])
def test_a_format_named_in_shared_code_is_found(source):
    assert len(format_names(source, {"md2", "mdl", "ms3d"}, (".md2", ".mdl", ".ms3d"))) == 1, source


def test_a_format_named_only_in_a_docstring_or_within_words_is_not():
    source = ('"""Reads ``.md2`` files."""\ndef f(args, target="glb"):\n    """The MDL ``mdl``."""\n'
              '    return args.mdl_format, "an .md2 or .mdl file", {"mdl_format": 1}, mdlx, md2s\n')
    assert format_names(source, {"md2", "mdl", "ms3d"}, (".md2", ".mdl", ".ms3d")) == []


# The extension's shared modules (every module outside a format's own folders, the table aside) name no
# format: no string that is a format's key (in any case) or ends in one of its extensions. A module that
# must is one of at most MAX_NAMING, beside the format folders, and its docstring says why.
CHECKOUT = Path(__file__).resolve().parents[2]
NAMING_ALLOWED = ("exporters/enhanced_md3.py",)
MAX_NAMING = 3


def shared_modules(root: Path, formats: set[str]) -> list[Path]:
    """The product modules of ``root`` outside the folders of ``formats`` (``importers/md2/``) and the table."""
    found = [root / "__init__.py", root / "__main__.py"]
    for layer in ("formats", "common", "importers", "exporters", "ui", "cli"):
        found += [p for p in sorted((root / layer).rglob("*.py"))
                  if not (len(p.relative_to(root).parts) > 2 and p.relative_to(root).parts[1] in formats)]
    return [p for p in found if p.relative_to(root).as_posix() != "formats/table.py"]


def format_literals(source: str, keys: set[str], extensions: tuple[str, ...]) -> list[str]:
    """``line: 'text'`` for each string in ``source`` (docstrings aside) that is a format key or ends in an
    extension of one."""
    return [name for name in format_names(source, keys, extensions) if ": '" in name or ': "' in name]


def _format_folders() -> set[str]:
    return set(table.keys()) | {p.parent.name for p in (CHECKOUT / "formats").glob("*/codec.py")}


def test_shared_modules_name_no_format_but_a_few_that_say_why():
    keys = set(table.keys())
    found = {p.relative_to(CHECKOUT).as_posix(): hits for p in shared_modules(CHECKOUT, _format_folders())
             if (hits := format_literals(p.read_text(encoding="utf-8"), keys, table.model_extensions()))}
    assert {k: v for k, v in found.items() if k not in NAMING_ALLOWED} == {}
    assert len(NAMING_ALLOWED) <= MAX_NAMING
    for name in NAMING_ALLOWED:
        docstring = ast.get_docstring(ast.parse((CHECKOUT / name).read_text(encoding="utf-8"))) or ""
        assert "beside the format folders" in " ".join(docstring.split()), f"{name}: its docstring says not why"


def test_a_format_named_in_a_shared_module_is_counted(tmp_path):
    """The count finds a key and an extension in a module beside the format folders, not in a format's
    own folder nor in a docstring."""
    for path, text in (("importers/dialogs.py", '"""MD2."""\nif present & {"MD2", "MDL"}:\n    pass\n'),
                       ("exporters/frame_scripts.py", 'IS_MDL = path.suffix == ".mdl"\n'),
                       ("importers/md2/dialog.py", 'FMT = "md2"\n'), ("formats/table.py", 'KEY = "md2"\n')):
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text)
    (tmp_path / "__init__.py").write_text("")
    (tmp_path / "__main__.py").write_text("")
    found = {p.relative_to(tmp_path).as_posix(): format_literals(p.read_text(), {"md2", "mdl"}, (".md2", ".mdl"))
             for p in shared_modules(tmp_path, {"md2", "mdl"})}
    assert found == {"__init__.py": [], "__main__.py": [], "importers/dialogs.py": ["2: 'MD2'", "2: 'MDL'"],
                     "exporters/frame_scripts.py": ["1: '.mdl'"]}


def test_the_extension_imports_nothing_the_environment_names():
    """The toy row reaches the processes by a test-side sitecustomize; the shipped table reads no variable
    (it used to import the modules CLASSIC_MODELS_FORMAT_ROWS named, in every process that loaded it)."""
    source = Path(table.__file__).read_text()
    assert "os.environ" not in source and "getenv" not in source
    assert not hasattr(table, "ROWS_VARIABLE")
