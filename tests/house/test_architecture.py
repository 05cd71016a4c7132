"""The code's layout as tests (bpy-free): module sizes, no import circles, the layers.

The extension's modules are read with :mod:`ast` (nothing is imported); relative imports are resolved
to the module they name. The rules:

- no product module over ``MAX_LINES`` lines (``LONGER_ALLOWED`` would list an exception; none today);
- no import circle among product modules (imports inside functions and under ``TYPE_CHECKING`` count:
  a circle closed late is still a circle);
- ``formats/`` imports nothing above it (no ``common``, ``importers``, ``exporters``, ``ui``, ``cli``,
  no Blender module); ``common/`` imports only ``formats`` (and Blender's modules); ``importers/`` and
  ``exporters/`` never import each other; ``cli/`` imports only ``formats`` and ``common`` (it runs the
  Blender side in worker processes, through the operators), so it stays out of ``ui/``; nothing
  imports ``tools/`` or ``tests/``;
- a format's folder in a layer (``exporters/ms3d/``) imports no other format's folder (what two
  formats share lives beside the folders: ``exporters/image_files.py``, ``exporters/sampling/``);
- internal imports are relative, and the rest is the standard library, numpy or Blender's modules.

Each rule is also run on a small tree made to break it, so a check that could not fail would show.
"""
from __future__ import annotations

import ast
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

CHECKOUT = Path(__file__).resolve().parents[2]
PACKAGES = ("formats", "common", "importers", "exporters", "ui", "cli")
MAX_LINES = 560
LONGER_ALLOWED: dict[str, int] = {}      # module -> its own line limit, for a module allowed to be longer
BLENDER_MODULES = {"bpy", "bpy_extras", "mathutils", "addon_utils"}
THIRD_PARTY = BLENDER_MODULES | {"numpy"}
ROOT = ""                                # the extension package itself (__init__.py, __main__.py)
# layer -> the extension's layers it may import ("tools" and "tests" are in none)
MAY_IMPORT = {
    "formats": {"formats"},
    "common": {"formats", "common"},
    "importers": {"formats", "common", "importers"},
    "exporters": {"formats", "common", "exporters"},
    "ui": {"formats", "common", "importers", "exporters", "ui"},
    "cli": {"formats", "common", "cli"},      # the Blender side runs in worker processes, by operator name
    ROOT: {*PACKAGES, ROOT},
}
NO_BLENDER = {"formats"}


@dataclass(frozen=True)
class Import:
    module: str          # the importing module, dotted from the extension's root ("formats.ms3d.codec")
    line: int
    target: str          # the module imported (relative imports resolved), or a top-level name ("numpy")
    relative: bool


def product_files(root: Path) -> dict[str, Path]:
    """Dotted module name -> file, for every product module under ``root`` (the package ``__init__``
    files under their package's name, the root's own as ``ROOT``)."""
    files = {name: root / f"{name}.py" for name in ("__init__", "__main__") if (root / f"{name}.py").exists()}
    files = {(ROOT if name == "__init__" else name): path for name, path in files.items()}
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            parts = path.relative_to(root).with_suffix("").parts
            files[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return files


def imports(root: Path) -> list[Import]:
    """Every import statement of the product modules under ``root``, anywhere in the module."""
    files = product_files(root)
    found = []
    for module, path in files.items():
        package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
        package = [p for p in package if p]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Import):
                found += [Import(module, node.lineno, alias.name, False) for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                found.append(Import(module, node.lineno, node.module, False))
            elif isinstance(node, ast.ImportFrom):
                if node.level - 1 > len(package):
                    found.append(Import(module, node.lineno, "<above the extension>", True))
                    continue
                base = package[:len(package) - (node.level - 1)] + (node.module.split(".") if node.module else [])
                for alias in node.names:      # ``from . import x`` imports the module x where there is one
                    sub = ".".join(base + [alias.name])
                    found.append(Import(module, node.lineno, sub if sub in files else ".".join(base), True))
    return found


def layer(module: str) -> str:
    """The folder a module is in (``ROOT`` for the extension's own ``__init__`` and ``__main__``)."""
    top = module.split(".")[0]
    return ROOT if top == "__main__" else top


def cycles(root: Path) -> list[list[str]]:
    """The import circles among product modules (strongly connected components of the import graph,
    Tarjan's algorithm), each sorted, in sorted order."""
    files = product_files(root)
    graph: dict[str, set[str]] = {module: set() for module in files}
    for imp in imports(root):
        if imp.relative and imp.target in files:
            graph[imp.module].add(imp.target)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found = []

    def visit(start: str) -> None:
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        while work:
            node, edges = work[-1]
            step = next(edges, None)
            if step is not None:
                if step not in index:
                    index[step] = low[step] = len(index)
                    stack.append(step)
                    work.append((step, iter(sorted(graph[step]))))
                elif step in stack:
                    low[node] = min(low[node], index[step])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1 or node in graph[node]:
                    found.append(sorted(component))

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return sorted(found)


def format_folders(root: Path) -> set[str]:
    """The formats: the folders of ``formats/`` that hold a ``codec.py``."""
    return {path.parent.name for path in (root / "formats").glob("*/codec.py")}


def format_of(module: str, formats: set[str]) -> str | None:
    """The format whose folder holds ``module`` (``exporters.ms3d.build`` -> ``ms3d``), or None."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in formats else None


def layer_violations(root: Path) -> list[str]:
    """Imports that break the layer rules, one line each (``module:line imports target: why``)."""
    ours = {*PACKAGES, "tools", "tests"}
    formats = format_folders(root)
    problems = []
    for imp in imports(root):
        source, top = layer(imp.module), imp.target.split(".")[0]
        where = f"{imp.module or '__init__'}:{imp.line} imports {imp.target}"
        if imp.relative:
            target = layer(imp.target) if imp.target != "<above the extension>" else imp.target
            own, other = format_of(imp.module, formats), format_of(imp.target, formats)
            if target not in MAY_IMPORT[source]:
                problems.append(f"{where}: {source or 'the root'} may not import {target or 'the root'}")
            elif own and other and own != other:
                problems.append(f"{where}: the {own} folder may not import the {other} folder")
        elif top in ours:
            problems.append(f"{where}: an internal import must be relative (and tools/tests are not imported)")
        elif top in BLENDER_MODULES and source in NO_BLENDER:
            problems.append(f"{where}: {source} is bpy-free")
        elif top not in THIRD_PARTY and top not in sys.stdlib_module_names:
            problems.append(f"{where}: not a run-time dependency (stdlib, numpy, Blender's modules)")
    return list(dict.fromkeys(problems))       # one line for ``from x import a, b``


def oversized(root: Path, limit: int = MAX_LINES, allowed: dict[str, int] = LONGER_ALLOWED) -> list[str]:
    """Product modules longer than ``limit`` lines (or than their own entry in ``allowed``)."""
    problems = []
    for module, path in product_files(root).items():
        lines = len(path.read_text(encoding="utf-8").splitlines())
        if lines > allowed.get(module, limit):
            problems.append(f"{path.relative_to(root)}: {lines} lines (at most {allowed.get(module, limit)})")
    return problems


def test_the_checkout_is_read_whole():
    files = product_files(CHECKOUT)
    assert {"formats.ms3d.codec", "exporters.md2.export", "importers.operators", "cli.main", "ui.menus",
            ROOT} <= set(files)
    found = {(imp.module, imp.target, imp.relative) for imp in imports(CHECKOUT)}
    assert {("formats.ms3d.write", "formats.ms3d.codec", True), ("exporters.md2.export", "formats.md2.codec", True),
            ("importers.md2.operator", "importers.md2.md2_import", True), ("formats.ms3d.codec", "numpy", False),
            (ROOT, "exporters.operators", True)} <= found


def test_no_module_is_too_long():
    assert oversized(CHECKOUT) == []
    assert set(LONGER_ALLOWED) <= set(product_files(CHECKOUT)), "an allowed exception names no module"


def test_no_import_circles():
    assert cycles(CHECKOUT) == []


def test_layers():
    assert layer_violations(CHECKOUT) == []


def _tree(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        for package in path.relative_to(root).parents:
            if package.parts and not (root / package / "__init__.py").exists():
                (root / package / "__init__.py").write_text('"""A package."""\n')
        path.write_text(text)
    return root


def test_a_long_module_is_found(tmp_path):
    _tree(tmp_path, {"formats/ok.py": "x = 1\n" * MAX_LINES, "formats/long.py": "x = 1\n" * (MAX_LINES + 1)})
    assert oversized(tmp_path) == [f"formats/long.py: {MAX_LINES + 1} lines (at most {MAX_LINES})"]
    assert oversized(tmp_path, allowed={"formats.long": MAX_LINES + 1}) == []


@pytest.mark.parametrize("files, circle", [
    ({"formats/a/codec.py": "from .write import serialize\n", "formats/a/write.py": "from .codec import parse\n"},
     ["formats.a.codec", "formats.a.write"]),
    ({"exporters/b/build.py": "from .kept import kept\n",      # the other way only while type checking
      "exporters/b/kept.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .build import Part\n"},
     ["exporters.b.build", "exporters.b.kept"]),
    ({"cli/one.py": "from . import two\n", "cli/two.py": "def f():\n    from .three import g\n",
      "cli/three.py": "from ..cli.one import h\n"}, ["cli.one", "cli.three", "cli.two"]),
    ({"ui/self.py": "from .self import x\n"}, ["ui.self"]),
])
def test_an_import_circle_is_found(tmp_path, files, circle):
    _tree(tmp_path, {**files, "formats/fine.py": "import numpy\n", "common/fine.py": "from ..formats import fine\n"})
    assert cycles(tmp_path) == [circle]


@pytest.mark.parametrize("name, text, why", [
    ("formats/up.py", "from ..common import contract\n", "formats may not import common"),
    ("formats/deep/up.py", "from ...exporters.md2 import build\n", "formats may not import exporters"),
    ("formats/blend.py", "import bpy\n", "formats is bpy-free"),
    ("formats/maths.py", "from mathutils import Matrix\n", "formats is bpy-free"),
    ("common/up.py", "from ..importers import operators\n", "common may not import importers"),
    ("common/ui.py", "def f():\n    from ..ui import menus\n", "common may not import ui"),
    ("importers/md2/out.py", "from ...exporters.md2 import build\n", "importers may not import exporters"),
    ("exporters/back.py", "from ..importers.ms3d import armature\n", "exporters may not import importers"),
    ("cli/menu.py", "from ..ui import menus\n", "cli may not import ui"),
    ("cli/tool.py", "from ..tools import benchmark\n", "cli may not import tools"),
    ("cli/skins.py", "from ..importers.skin_lookup import find_skin\n", "cli may not import importers"),
    ("__main__.py", "from .tests import support\n", "the root may not import tests"),
    ("ui/test.py", "import tests.support\n", "an internal import must be relative"),
    ("exporters/absolute.py", "from formats.errors import FormatError\n", "an internal import must be relative"),
    ("common/far.py", "from ...elsewhere import x\n", "may not import <above the extension>"),
    ("importers/dep.py", "import scipy\n", "not a run-time dependency"),
    ("exporters/ms3d/textures.py", "from ..md2.skins import encode_skin\n", "the ms3d folder may not import the md2"),
    ("formats/md2/player.py", "from ..ms3d import rig\n", "the md2 folder may not import the ms3d folder"),
])
def test_a_layer_break_is_found(tmp_path, name, text, why):
    _tree(tmp_path, {"formats/fine.py": "import numpy\nfrom . import fine\n", "common/fine.py": "import bpy\n",
                     "formats/md2/codec.py": "from ..fine import x\n", "formats/ms3d/codec.py": "from .. import fine\n",
                     "exporters/md2/skins.py": "from ..image_files import encode_skin\nfrom ...formats.md2 import codec\n",
                     "exporters/image_files.py": "from ..formats.md2.codec import x\n",
                     "cli/fine.py": "from ..formats import fine\nfrom ..common.fine import x\n",
                     "__init__.py": "def version_problem():\n    from .ui import menus\n", name: text})
    (problem,) = layer_violations(tmp_path)
    assert why in problem and problem.startswith(f"{name[:-3].replace('/', '.')}:")


# The skeletal exports (MD5 and IQM) learn what an import said of an anim (its rate, its frames) through the
# shared contract (common/contract.py ANIM_FRAME_RATE, read by common/anim_timing.py): neither reads the
# other format's own names, by importing its modules or by spelling one of its contract's names.
SKELETAL = ("md5", "iqm")


def foreign_names(root: Path) -> list[str]:
    """``where: what`` for each import of the other skeletal format's modules (``common/<fmt>/``,
    ``formats/<fmt>/``) and each string equal to a name of its contract in a skeletal export's folder."""
    problems = []
    found = imports(root)
    for own in SKELETAL:
        for other in (f for f in SKELETAL if f != own):
            contract = ast.parse((root / "common" / other / "contract.py").read_text(encoding="utf-8"))
            names = {node.value.value for node in contract.body if isinstance(node, ast.Assign)
                     and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)}
            problems += [f"{imp.module}:{imp.line} imports {imp.target}" for imp in found
                         if imp.module.startswith(f"exporters.{own}.") and imp.relative
                         and imp.target.split(".")[:2] in (["common", other], ["formats", other])]
            for path in sorted((root / "exporters" / own).glob("*.py")):
                for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                    if isinstance(node, ast.Constant) and node.value in names:
                        problems.append(f"{path.relative_to(root)}:{node.lineno} spells {node.value!r}")
    return list(dict.fromkeys(problems))


def test_the_skeletal_exports_read_no_other_formats_names():
    assert foreign_names(CHECKOUT) == []


@pytest.mark.parametrize("name, text, found", [
    ("exporters/md5/anims.py", "from ...common.iqm.contract import IQM_ANIM_RATE\n",
     "exporters.md5.anims:1 imports common.iqm.contract"),
    ("exporters/iqm/anims.py", "from ...formats.md5.anim import read_md5anim\n",
     "exporters.iqm.anims:1 imports formats.md5.anim"),
    ("exporters/md5/rate.py", "def rate(action):\n    return action.get('iqm_framerate')\n",
     "exporters/md5/rate.py:2 spells 'iqm_framerate'"),
    ("exporters/iqm/rate.py", "SOURCE = 'md5_anim_source'\n", "exporters/iqm/rate.py:1 spells 'md5_anim_source'"),
])
def test_another_skeletal_formats_name_is_found(tmp_path, name, text, found):
    _tree(tmp_path, {"common/iqm/contract.py": 'IQM_ANIM_RATE = "iqm_framerate"\n',
                     "common/md5/contract.py": 'MD5_ANIM_SOURCE = "md5_anim_source"\n',
                     "common/contract.py": 'ANIM_FRAME_RATE = "anim_frame_rate"\n',
                     "exporters/md5/fine.py": "from ...common.contract import ANIM_FRAME_RATE\nRATE = 'anim_frame_rate'\n",
                     "exporters/iqm/fine.py": "from ...common.iqm.contract import IQM_ANIM_RATE\nRATE = 'iqm_framerate'\n",
                     name: text})
    assert foreign_names(tmp_path) == [found]
