"""The suite's own layout (bpy-free), read with :mod:`ast` (nothing imported). The rules:

- test modules sit in a folder per format or concern (``tests/md2/``, ``tests/export/`` ...), none flat in
  ``tests/``, and every folder is a package, so two folders may hold modules of the same name;
- no folder's package name is one of the checkout's own top-level names (``tests/cli/`` would be shadowed by the
  extension's ``cli`` package, which the tests import from the checkout on ``sys.path``);
- what tests share is a fixture in ``tests/conftest.py`` or a helper in ``tests/support/``: no other module
  beside the tests, and no test module imports another test module, a folder's package or ``conftest``,
  nor a helper by its bare name (``support.engine_tools``, not ``engine_tools``);
- ``tools/`` uses the helpers as ``tests.support`` with only the checkout on ``sys.path``: no tool imports a
  helper by its bare name or puts ``tests/`` (or a folder in it) on ``sys.path``.

Each rule also runs on a small tree made to break it, so a check that could not fail would show.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

CHECKOUT = Path(__file__).resolve().parents[2]
KEPT_AS_IS = {"real_blender"}      # the GUI stage: its own conftest and driver, collected on its own


def groups(tests: Path) -> list[Path]:
    return sorted(p for p in tests.iterdir() if p.is_dir() and p.name not in {"support", "__pycache__"})


def layout_problems(tests: Path) -> list[str]:
    """Test modules flat in ``tests/``, folders that are no package or shadow a name of the checkout, helper
    modules outside ``tests/support/``."""
    checkout_names = {p.stem for p in tests.parent.iterdir() if p.name != "tests"}
    problems = [f"{p.name}: a test module flat in tests/ (move it into the folder of its format or concern)"
                for p in sorted(tests.glob("test_*.py"))]
    problems += [f"{p.name}: a helper beside the tests (helpers go in tests/support/, fixtures in conftest.py)"
                 for p in sorted(tests.glob("*.py")) if not p.name.startswith("test_") and p.name != "conftest.py"]
    for folder in groups(tests):
        if not (folder / "__init__.py").is_file():
            problems.append(f"{folder.name}/: no __init__.py (its modules would clash with same-named ones elsewhere)")
        if folder.name in checkout_names:
            problems.append(f"{folder.name}/: shadows the checkout's own '{folder.name}' on sys.path")
        if folder.name in KEPT_AS_IS:
            continue
        problems += [f"{folder.name}/{p.name}: a helper beside the tests (helpers go in tests/support/)"
                     for p in sorted(folder.glob("*.py")) if not p.name.startswith("test_") and p.name != "__init__.py"]
    return problems


def imported_modules(path: Path) -> list[tuple[int, str, int]]:
    """(line, module, level) for every import of ``path``, inside functions too (``from . import x``: ``.x``)."""
    out = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            out += [(node.lineno, alias.name, 0) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.module:
                out.append((node.lineno, node.module, node.level))
            else:
                out += [(node.lineno, alias.name, node.level) for alias in node.names]
    return out


def module_import_problems(tests: Path) -> list[str]:
    """Test modules that import another test module, a folder's package, ``conftest``, a helper by its bare name
    (``engine_tools``: found only while tests/support/ happens to be on sys.path) or anything relative."""
    folders = {p.name for p in groups(tests)}
    helpers = {p.stem for p in (tests / "support").glob("*.py")} - {"__init__"}
    problems = []
    for path in sorted(tests.rglob("test_*.py")):
        where = path.relative_to(tests)
        if where.parts[0] in KEPT_AS_IS:
            continue
        for line, module, level in imported_modules(path):
            top = module.split(".")[0]
            if level or top.startswith("test_") or top in folders or top == "conftest":
                problems.append(f"{where}:{line}: imports {'.' * level}{module} (shared code goes in tests/support/)")
            elif top in helpers:
                problems.append(f"{where}:{line}: imports {module} by its bare name (import it as support.{module})")
    return problems


def sys_path_calls(tree: ast.AST):
    """Each ``sys.path.insert/append/extend(...)`` call with the loop iterables its names come from."""
    loops: dict[str, list[ast.AST]] = {}
    for node in ast.walk(tree):
        if isinstance(node, (ast.For, ast.comprehension)):
            for name in ast.walk(node.target):
                if isinstance(name, ast.Name):
                    loops.setdefault(name.id, []).append(node.iter)
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr in {"insert", "append", "extend"} and ast.unparse(node.func.value) == "sys.path"):
            sources = list(node.args)
            sources += [it for arg in node.args for name in ast.walk(arg) if isinstance(name, ast.Name)
                        for it in loops.get(name.id, [])]
            yield node, sources


def tool_problems(tools: Path, tests: Path) -> list[str]:
    """Tools that import a helper of tests/ by its bare name or put tests/ on sys.path."""
    bare = {p.stem for p in tests.glob("*.py")} | {p.stem for p in (tests / "support").glob("*.py")}
    bare |= {p.name for p in groups(tests)} | {"support", "conftest"}
    bare -= {"__init__"}
    problems = []
    for path in sorted(tools.rglob("*.py")):
        where = path.relative_to(tools.parent)
        for line, module, level in imported_modules(path):
            if not level and module.split(".")[0] in bare:
                problems.append(f"{where}:{line}: imports {module} from tests/ by its bare name (use tests.support.*)")
        for call, sources in sys_path_calls(ast.parse(path.read_text(), str(path))):
            if any(isinstance(c, ast.Constant) and isinstance(c.value, str) and "tests" in Path(c.value).parts
                   for source in sources for c in ast.walk(source)):
                problems.append(f"{where}:{call.lineno}: puts tests/ on sys.path")
    return problems


def test_tests_sit_in_folders_and_helpers_in_support():
    assert layout_problems(CHECKOUT / "tests") == []


def test_no_test_module_imports_another():
    assert module_import_problems(CHECKOUT / "tests") == []


def test_tools_keep_tests_off_sys_path():
    assert tool_problems(CHECKOUT / "tools", CHECKOUT / "tests") == []


# --- each rule on a small tree made to break it ------------------------------------------------------------
def make(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


GOOD = {"cli/__init__.py": "", "tests/conftest.py": "", "tests/support/__init__.py": "",
        "tests/support/models.py": "from .other import x\n", "tests/md2/__init__.py": "",
        "tests/md2/test_codec.py": "from support.models import x\nfrom formats.md2 import codec\n",
        "tests/mdl/__init__.py": "", "tests/mdl/test_codec.py": "import support.models\n",
        "tools/fuzz.py": "import sys\nsys.path.insert(0, str(CHECKOUT))\nfrom tests.support import models\n"}


def test_a_good_tree_passes(tmp_path):
    root = make(tmp_path, GOOD)
    assert layout_problems(root / "tests") == []
    assert module_import_problems(root / "tests") == []
    assert tool_problems(root / "tools", root / "tests") == []


@pytest.mark.parametrize("files, expected", [
    ({"tests/test_flat.py": ""}, "test_flat.py: a test module flat in tests/"),
    ({"tests/md2_reference.py": ""}, "md2_reference.py: a helper beside the tests"),
    ({"tests/md2/helpers.py": ""}, "md2/helpers.py: a helper beside the tests"),
    ({"tests/ms3d/test_codec.py": ""}, "ms3d/: no __init__.py"),
    ({"tests/cli/__init__.py": "", "tests/cli/test_main.py": ""}, "cli/: shadows the checkout's own 'cli'"),
])
def test_layout_rules_catch_a_broken_tree(tmp_path, files, expected):
    root = make(tmp_path, {**GOOD, **files})
    problems = layout_problems(root / "tests")
    assert any(p.startswith(expected) for p in problems), problems


@pytest.mark.parametrize("text, expected", [
    ("from test_codec import helper\n", "imports test_codec"),
    ("def test_x():\n    import test_other\n", "imports test_other"),
    ("from mdl.test_codec import helper\n", "imports mdl.test_codec"),
    ("from .test_other import helper\n", "imports .test_other"),
    ("from . import helpers\n", "imports .helpers"),
    ("from conftest import CORPUS\n", "imports conftest"),
    ("def test_x():\n    from models import x\n", "imports models by its bare name"),
])
def test_import_rule_catches_a_test_module_importing_another(tmp_path, text, expected):
    root = make(tmp_path, {**GOOD, "tests/md2/test_more.py": text})
    problems = module_import_problems(root / "tests")
    assert len(problems) == 1 and problems[0].startswith("md2/test_more.py:") and expected in problems[0], problems


@pytest.mark.parametrize("text, expected", [
    ("import sys\nsys.path.insert(0, str(CHECKOUT / 'tests'))\n", "puts tests/ on sys.path"),
    ("import sys\nsys.path.append('tests/support')\n", "puts tests/ on sys.path"),
    ("import sys\nfor folder in (CHECKOUT, CHECKOUT / 'tests'):\n    sys.path.insert(0, str(folder))\n",
     "puts tests/ on sys.path"),
    ("import models\n", "imports models from tests/ by its bare name"),
    ("def main():\n    from support import models\n", "imports support from tests/ by its bare name"),
])
def test_tool_rule_catches_tests_on_sys_path(tmp_path, text, expected):
    root = make(tmp_path, {**GOOD, "tools/bad.py": text})
    problems = tool_problems(root / "tools", root / "tests")
    assert len(problems) == 1 and problems[0].startswith("tools/bad.py:") and expected in problems[0], problems
