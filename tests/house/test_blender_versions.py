"""The supported Blender range is stated once per place and the places agree; the running bpy is in it."""
from __future__ import annotations

import importlib.util
import tomllib

import pytest
from support.environment import CHECKOUT


def _package():
    spec = importlib.util.spec_from_file_location("classic_models_init", CHECKOUT / "__init__.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.split("."))


def test_manifest_and_register_check_state_the_same_range():
    manifest = tomllib.loads((CHECKOUT / "blender_manifest.toml").read_text())
    package = _package()
    assert _version(manifest["blender_version_min"]) == package.BLENDER_MIN == (4, 2, 0)
    assert _version(manifest["blender_version_max"]) == package.BLENDER_MAX == (5, 3, 0)
    assert package.version_problem((4, 2, 0)) is None and package.version_problem((5, 2, 3)) is None
    assert "too old" in package.version_problem((4, 1, 1))
    assert "4.2 to 5.2" in package.version_problem((5, 3, 0))


def test_this_bpy_is_in_the_stated_range():
    bpy = pytest.importorskip("bpy", reason="needs the bpy wheel")
    problem = _package().version_problem(bpy.app.version)
    assert problem is None, f"{problem}: test it, then update blender_manifest.toml and __init__.py"
