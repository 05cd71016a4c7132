"""The extension as Blender sees it: manifest validation, the built zip, registration."""
from __future__ import annotations

import subprocess
import sys
import zipfile

import pytest

from conftest import CHECKOUT, skip_inside_blender


def test_manifest_passes_blenders_validator_and_zip_builds(tmp_path):
    pytest.importorskip("bpy", reason="the validator ships inside the bpy wheel")
    skip_inside_blender("the bpy wheel's extension validator")
    from tools.build_extension import wheel_scripts
    scripts = wheel_scripts()
    tool = scripts / "addons_core" / "bl_pkg" / "cli" / "blender_ext.py"
    tags = scripts / "modules" / "_bpy_internal" / "extensions" / "tags.py"
    validate = subprocess.run([sys.executable, str(tool), "validate", str(CHECKOUT), "--valid-tags", str(tags)],
                              capture_output=True, text=True)
    assert validate.returncode == 0, validate.stdout + validate.stderr
    build = subprocess.run([sys.executable, str(tool), "build", "--source-dir", str(CHECKOUT),
                            "--output-dir", str(tmp_path), "--valid-tags", str(tags)], capture_output=True, text=True)
    assert build.returncode == 0, build.stdout + build.stderr
    (archive,) = tmp_path.glob("*.zip")
    names = zipfile.ZipFile(archive).namelist()
    assert "blender_manifest.toml" in names and "__init__.py" in names and "formats/md2/codec.py" in names
    assert not [n for n in names if n.startswith(("tests/", "tools/", ".venvs/", ".ci/"))]


def test_operators_and_menus_are_registered(extension):
    import bpy
    assert bpy.ops.import_scene.md2.idname() == "IMPORT_SCENE_OT_md2"
    assert bpy.ops.export_scene.md2.idname() == "EXPORT_SCENE_OT_md2"
    assert "PRESET" in bpy.types.IMPORT_SCENE_OT_md2.bl_options
    assert "PRESET" in bpy.types.EXPORT_SCENE_OT_md2.bl_options
    draw_funcs = [f.__module__ for f in bpy.types.TOPBAR_MT_file_import._dyn_ui_initialize()]
    assert any(m.startswith(extension) for m in draw_funcs)


def test_formats_import_without_blender():
    code = ("import sys; import formats.md2.codec, formats.images.pcx, formats.md2.glcmds; "
            "sys.exit('bpy' in sys.modules)")
    result = subprocess.run([sys.executable, "-c", code], cwd=CHECKOUT, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
