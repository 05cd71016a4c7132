"""Shared fixtures: the corpus, the extension loaded into bpy, a clean scene per test."""
from __future__ import annotations

import importlib
import inspect
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from support.environment import BLOCK_BPY, CHECKOUT, TESTS, corpus_problem, skip_inside_blender

ENGINES = TESTS / "engines"          # tests that have a game engine or another program read an export

sys.path.insert(0, str(CHECKOUT))
# The real-Blender layer (Debian's Blender under Xvfb) runs once, in its own stage of tools/dev.sh test.
collect_ignore = [] if os.environ.get("CLASSIC_MODELS_REAL_BLENDER") == "1" else ["real_blender"]


def pytest_sessionstart(session):
    """Under CI (``CI=true``) a missing corpus fails the run at once: elsewhere its tests skip saying so, and a
    CI run that skipped them would look green."""
    if os.environ.get("CI", "").lower() == "true" and (problem := corpus_problem()):
        pytest.exit(f"CI=true: {problem}", returncode=1)


@pytest.fixture(scope="session")
def extension():
    """The extension enabled in this bpy (module name); skips if bpy cannot be imported."""
    pytest.importorskip("bpy", reason="bpy is not installed in this Python")
    from tools.load_extension import enable_extension
    return enable_extension()


@pytest.fixture
def bpy_scene(extension):
    """An empty scene with the extension enabled; yields bpy."""
    import bpy
    bpy.ops.wm.read_homefile(use_empty=True)
    yield bpy


# --- the command line in a subprocess, as a user runs it -------------------------------------------
@pytest.fixture(scope="session")
def package_path(tmp_path_factory) -> Path:
    """A folder holding ``classic_models`` -> the checkout, as PYTHONPATH for the subprocesses."""
    folder = tmp_path_factory.mktemp("pkgpath")
    (folder / "classic_models").symlink_to(CHECKOUT, target_is_directory=True)
    return folder


@pytest.fixture
def run(package_path, tmp_path):
    def run_cli(*args: object, block_bpy: bool = False, timeout: float = 600) -> subprocess.CompletedProcess:
        if not block_bpy and args and str(args[0]) == "convert":
            skip_inside_blender("python -m classic_models convert")
        env = dict(os.environ, PYTHONPATH=str(package_path))
        head = [sys.executable, "-c", BLOCK_BPY] if block_bpy else [sys.executable, "-m", "classic_models"]
        return subprocess.run([*head, *map(str, args)], capture_output=True, text=True, env=env,
                              cwd=tmp_path, timeout=timeout)
    return run_cli


@pytest.fixture(scope="session")
def cli_modules(package_path):
    """The CLI modules imported through the package, for the few in-process tests."""
    sys.path.insert(0, str(package_path))
    try:
        yield {name: importlib.import_module(f"classic_models.cli.{name}") for name in ("batch", "inspect")}
    finally:
        sys.path.remove(str(package_path))


# --- the `blender` marker, set automatically -------------------------------------------------------
# A test needs Blender when it, or a fixture it uses (directly or through other fixtures), imports bpy
# (``import bpy``, ``pytest.importorskip("bpy")``, ``needs_bpy()``), or when its module or a test helper
# module it takes names from imports bpy at its top. ``-m "not blender"`` is then the lane that runs
# without bpy: the codecs, the CLI's bpy-free commands, the tools.
BPY_MODULES = {"bpy", "mathutils", "bmesh", "bpy_extras"}
BPY_USE = re.compile(r"^\s*(?:import|from)\s+(?:bpy|mathutils|bmesh|bpy_extras)\b"
                     r"|importorskip\(\s*[\"']bpy[\"']|\bneeds_bpy\(\)", re.M)


def _source_uses_bpy(function, seen: dict) -> bool:
    """Whether the source of ``function`` (a test or fixture) imports bpy."""
    function = inspect.unwrap(function)
    if function not in seen:
        try:
            seen[function] = bool(BPY_USE.search(inspect.getsource(function)))
        except (OSError, TypeError):
            seen[function] = False
    return seen[function]


def _imports_bpy(module) -> bool:
    """Whether ``module`` holds bpy (or mathutils ..., or a name from them) among its globals: imported at its top."""
    def origin(value) -> str:
        name = value.__name__ if inspect.ismodule(value) else getattr(value, "__module__", None)
        return name.split(".")[0] if isinstance(name, str) else ""
    return any(origin(value) in BPY_MODULES for value in vars(module).values())


def _module_needs_bpy(module, seen: dict) -> bool:
    """The test module, or a helper module under tests/ it takes names from, imports bpy at its top."""
    if module not in seen:
        helpers = {inspect.getmodule(value) for value in vars(module).values()
                   if inspect.ismodule(value) or inspect.isfunction(value) or inspect.isclass(value)}
        helpers = {m for m in helpers if m is not None and TESTS in Path(getattr(m, "__file__", None) or "/").resolve().parents}
        seen[module] = _imports_bpy(module) or any(_imports_bpy(m) for m in helpers)
    return seen[module]


def needs_blender(item, seen: dict) -> bool:
    """Whether the collected test ``item`` needs bpy (see above)."""
    module = getattr(item, "module", None)
    if module is not None and _module_needs_bpy(module, seen):
        return True
    function = getattr(item, "function", None)
    if function is not None and _source_uses_bpy(function, seen):
        return True
    fixtures = getattr(getattr(item, "_fixtureinfo", None), "name2fixturedefs", {})
    return any(_source_uses_bpy(definition.func, seen)
               for name in getattr(item, "fixturenames", ()) for definition in fixtures.get(name, ()))


def pytest_collection_modifyitems(config, items):
    seen: dict = {}
    for item in items:
        if needs_blender(item, seen):
            item.add_marker(pytest.mark.blender)
            if "run" in getattr(item, "fixturenames", ()):
                # the command line in a subprocess of this Python with bpy (`run`): its own code is the same
                # on every Blender, whose operators the in-process tests run on each wheel; the full run's
                # middle wheel leaves it to the newest and the oldest (tools/dev.sh wheel_job)
                item.add_marker(pytest.mark.subprocess_bpy)
            if ENGINES in Path(str(item.path)).resolve().parents:
                # a game engine or another program (OpenArena, DarkPlaces, Assimp, the glTF validator) reads
                # what Blender exported: the export's own checks run on every wheel in-process; the full run's
                # middle wheel leaves the outside program's reading to the newest and the oldest
                item.add_marker(pytest.mark.engine)
