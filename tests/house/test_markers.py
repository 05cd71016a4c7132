"""The ``blender`` marker is set by ``tests/conftest.py``, never by hand, so ``-m "not blender"`` is the lane
that runs without bpy. A small suite in a temporary folder, with this conftest and a stand-in ``bpy`` module
(and ``mathutils``, so that it can be collected without Blender), is collected with ``-m "not blender"``: only the tests that
touch no bpy are left.
"""
from __future__ import annotations

import shutil
from pathlib import Path

pytest_plugins = ["pytester"]

CONFTEST = Path(__file__).resolve().parents[1] / "conftest.py"

FREE = '''
import subprocess, sys

def test_codec():
    assert bytes(2) == b"\\0\\0"

def test_bpy_only_in_a_string():
    code = "import sys; sys.modules['bpy'] = None"
    assert subprocess.run([sys.executable, "-c", code]).returncode == 0
'''

NEEDS_BPY = '''
import pytest

@pytest.fixture
def scene():
    import bpy
    return bpy

@pytest.fixture
def scene_user(scene):
    return scene

def needs_bpy():
    pytest.importorskip("bpy", reason="stand-in")

def test_shared_fixture(bpy_scene):
    pass

def test_extension_fixture(extension):
    pass

def test_module_fixture(scene):
    pass

def test_fixture_through_a_fixture(scene_user):
    pass

def test_importorskip():
    pytest.importorskip("bpy")

def test_needs_bpy_helper():
    needs_bpy()

def test_imports_bpy_itself():
    import bpy
    assert bpy
'''

HELPER_USER = '''
from blender_helper import build

def test_helper_importing_bpy():
    assert build()
'''

NAME_FROM_MATHUTILS = '''
from mathutils import Vector

def test_vector():
    assert Vector
'''


CLI_USERS = '''
from support.environment import needs_bpy

def test_convert_in_a_subprocess(run):
    needs_bpy()

def test_info_with_bpy_blocked(run):
    pass
'''

ENGINE_READERS = '''
import subprocess, sys

def test_engine_reads_the_export(bpy_scene):
    pass

def test_engine_reads_a_file_made_without_blender():
    assert subprocess.run([sys.executable, "-c", "pass"]).returncode == 0
'''


def test_tests_that_need_bpy_are_marked_blender(pytester, monkeypatch):
    monkeypatch.delenv("CI", raising=False)     # (the copied conftest would stop a CI run: no corpus beside it)
    pytester.makeconftest(CONFTEST.read_text())
    shutil.copytree(CONFTEST.with_name("support"), pytester.path / "support")
    pytester.makeini("[pytest]\naddopts = -p no:pytest-blender -p no:cacheprovider\nmarkers =\n    blender: needs bpy\n"
                     "    subprocess_bpy: the command line with bpy\n    engine: an engine reads an export\n")
    pytester.makepyfile(bpy="", mathutils="class Vector:\n    pass\n",
                        blender_helper="import bpy\n\ndef build():\n    return bpy\n",
                        test_free=FREE, test_needs_bpy=NEEDS_BPY, test_helper_user=HELPER_USER,
                        test_vector_user=NAME_FROM_MATHUTILS, test_cli_users=CLI_USERS)
    engines = pytester.mkpydir("engines")
    (engines / "test_reader.py").write_text(ENGINE_READERS)
    result = pytester.runpytest_subprocess("--collect-only", "-q", "-m", "not blender")
    collected = sorted(line for line in result.outlines if "::" in line)
    assert collected == ["engines/test_reader.py::test_engine_reads_a_file_made_without_blender",
                         "test_cli_users.py::test_info_with_bpy_blocked", "test_free.py::test_bpy_only_in_a_string",
                         "test_free.py::test_codec"], result.outlines
    result = pytester.runpytest_subprocess("--collect-only", "-q", "-m", "blender")
    collected = sorted(line for line in result.outlines if "::" in line)
    assert len(collected) == 11 and all(not line.startswith("test_free.py") for line in collected), result.outlines
    # the command line run with bpy in a subprocess: subprocess_bpy too (the middle wheel leaves it out)
    result = pytester.runpytest_subprocess("--collect-only", "-q", "-m", "subprocess_bpy")
    assert sorted(line for line in result.outlines if "::" in line) == [
        "test_cli_users.py::test_convert_in_a_subprocess"], result.outlines
    # a Blender test under engines/ (an engine reads the export): engine too; a bpy-free one there is not
    result = pytester.runpytest_subprocess("--collect-only", "-q", "-m", "engine")
    assert sorted(line for line in result.outlines if "::" in line) == [
        "engines/test_reader.py::test_engine_reads_the_export"], result.outlines


def test_corpus_sweeps_are_marked_for_the_middle_wheel(tmp_path, monkeypatch):
    """Each case of a test over a corpus folder carries ``sweep`` (the middle wheel runs ``-m "blender and not
    sweep and not subprocess_bpy"``, tools/dev.sh wheel_job); a missing corpus still gives its one skipped case,
    unmarked."""
    import support.environment as environment
    (tmp_path / "md2" / "a").mkdir(parents=True)
    for name in ("x.md2", "y.md2"):
        (tmp_path / "md2" / "a" / name).write_bytes(b"")
    monkeypatch.setattr(environment, "CORPUS", tmp_path)
    params = environment.corpus_params("md2/*/*.md2")
    assert [p.id for p in params] == ["a/x.md2", "a/y.md2"]
    assert all([m.name for m in p.marks] == ["sweep"] for p in params)
    monkeypatch.setattr(environment, "CORPUS", tmp_path / "absent")
    assert [m.name for p in environment.corpus_params("md2/*/*.md2") for m in p.marks] == ["skip"]
    script = Path(__file__).resolve().parents[2] / "tools" / "dev.sh"
    assert '-m "blender and not sweep and not subprocess_bpy and not engine"' in script.read_text()
