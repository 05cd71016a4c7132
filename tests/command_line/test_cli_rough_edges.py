"""Two rough edges of the command line, on models built here (no corpus needed).

- A model whose only triangles use a vertex twice draws nothing: ``info``/``check`` say so and
  ``convert`` marks the file as empty (warning, per-file line, summary, JSON) instead of a plain ok.
- MS3D texture names that are absolute Windows paths or use backslashes: ``info``/``check`` (and
  the importer) say which bare file name they looked for and in which folder.
"""
from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from support.environment import BLOCK_BPY, skip_inside_blender
from support.md2_synthetic import grid_model
from support.models import degenerate_model
from support.ms3d_models import synthetic_ms3d as ms3d_synthetic

from formats.md2.codec import serialize_md2
from formats.ms3d.codec import parse_ms3d
from formats.ms3d.write import serialize_ms3d


@pytest.fixture
def cli(package_path, tmp_path):
    """``python -m classic_models ARGS`` in a subprocess (bpy blocked unless ``bpy=True``)."""
    def run(*args: object, bpy: bool = False) -> subprocess.CompletedProcess:
        if bpy:
            skip_inside_blender("python -m classic_models with bpy")
        head = [sys.executable, "-m", "classic_models"] if bpy else [sys.executable, "-c", BLOCK_BPY]
        return subprocess.run([*head, *map(str, args)], capture_output=True, text=True, cwd=tmp_path,
                              env=dict(os.environ, PYTHONPATH=str(package_path)), timeout=600)
    return run


@pytest.mark.parametrize("fmt", ["md2", "mdl", "ms3d"])
def test_info_and_check_say_no_drawable_triangles(cli, tmp_path, fmt):
    path = tmp_path / f"flat.{fmt}"
    path.write_bytes(degenerate_model(fmt))
    check = cli("check", "--fail-on", "error", path)
    assert check.returncode == 0, check.stdout + check.stderr
    assert f"{path}: warning: " in check.stdout and "no drawable triangles: " in check.stdout
    info = cli("info", path)
    assert info.returncode == 0, info.stderr
    assert "no drawable triangles: " in info.stdout
    item = json.loads(cli("info", "--json", path).stdout)["files"][0]
    assert item["readable"] and item["details"]["drawable_triangles"] == 0


def test_check_is_quiet_about_drawable_triangles_of_a_normal_model(cli, tmp_path):
    path = tmp_path / "grid.md2"
    path.write_bytes(serialize_md2(grid_model()))
    item = json.loads(cli("info", "--json", path).stdout)["files"][0]
    assert item["details"]["drawable_triangles"] == len(grid_model().tri_xyz)
    assert not any("drawable" in p["message"] for p in item["problems"])


def test_convert_marks_a_model_without_drawable_triangles(cli, tmp_path):
    pytest.importorskip("bpy", reason="convert runs the operators in the bpy wheel")
    (tmp_path / "flat.md2").write_bytes(degenerate_model("md2"))
    (tmp_path / "grid.md2").write_bytes(serialize_md2(grid_model()))
    result = cli("convert", "flat.md2", "grid.md2", "--to", "glb", "-o", "out", "-j", "1", "--json", bpy=True)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    by_name = {Path(r["source"]).name: r for r in report["results"]}
    flat, grid = by_name["flat.md2"], by_name["grid.md2"]
    assert flat["ok"] and flat["empty"] and not grid["empty"]
    assert any(w.startswith("no drawable triangles: all 12 triangle(s) use a vertex twice; flat.glb")
               for w in flat["warnings"])
    assert not any("drawable" in w for w in grid["warnings"])
    assert report["summary"]["empty"] == 1 and report["summary"]["converted"] == 2
    assert "flat.md2 -> out/flat.glb (ok " in result.stderr and ", EMPTY: no drawable triangles)" in result.stderr
    assert "1 empty (no drawable triangles)" in result.stderr


WINDOWS_NAMES = {
    # file: (texture, alphamap) as MilkShape wrote them; only some images exist beside the models
    "a.ms3d": ("C:\\Models\\Tex\\Skin.BMP", "textures\\wall_alpha.tga"),
    "b.ms3d": ("C:\\Models\\Tex\\Missing.BMP", "textures\\wall.tga"),
}


def windows_texture_folder(folder: Path) -> Path:
    """Two MS3D files whose texture names are Windows paths, and the images skin.bmp and wall.tga."""
    folder.mkdir()
    base = serialize_ms3d(ms3d_synthetic(blocks=0))
    for name, (texture, alphamap) in WINDOWS_NAMES.items():
        model = parse_ms3d(base)
        material = model.materials[0]
        material.texture_raw = texture.encode("ascii").ljust(128, b"\0")
        material.alphamap_raw = alphamap.encode("ascii").ljust(128, b"\0")
        (folder / name).write_bytes(serialize_ms3d(model))
    (folder / "skin.bmp").write_bytes(b"BM" + bytes(60))
    (folder / "wall.tga").write_bytes(bytes(18))
    return folder


def test_check_says_which_file_names_it_looked_for(cli, tmp_path):
    folder = windows_texture_folder(tmp_path / "art")
    result = cli("check", folder)
    assert result.returncode == 1
    out = result.stdout
    assert (f"{folder / 'a.ms3d'}: warning: material 0 alphamap @ offset " in out
            and f"alphamap 'textures\\wall_alpha.tga' not found: backslashes read as folders; "
                f"looked for textures/wall_alpha.tga, then wall_alpha.tga in {folder} (any case)" in out)
    assert (f"texture 'C:\\Models\\Tex\\Missing.BMP' not found: absolute path: only its file name is "
            f"used; looked for Missing.BMP in {folder} (any case)" in out)
    assert "Skin.BMP' not found" not in out and "wall.tga' not found" not in out
    assert "checked 2 file(s): 0 clean, 2 with warnings, 0 with errors" in out


def test_info_shows_the_fallback_for_found_and_missing_textures(cli, tmp_path):
    folder = windows_texture_folder(tmp_path / "art")
    out = cli("info", folder).stdout
    assert (f"    C:\\Models\\Tex\\Skin.BMP: found {folder / 'skin.bmp'} (absolute path: only its file name "
            f"is used; looked for Skin.BMP in {folder} (any case))") in out
    assert (f"    textures\\wall.tga: found {folder / 'wall.tga'} (backslashes read as folders; "
            f"looked for textures/wall.tga, then wall.tga in {folder} (any case))") in out
    assert (f"    textures\\wall_alpha.tga: MISSING: backslashes read as folders; looked for "
            f"textures/wall_alpha.tga, then wall_alpha.tga in {folder} (any case)") in out
    files = json.loads(cli("info", "--json", folder).stdout)["files"]
    notes = {skin["name"]: skin for item in files for skin in item["skins"]}
    assert notes["C:\\Models\\Tex\\Missing.BMP"]["found"] is False
    assert "looked for Missing.BMP in" in notes["C:\\Models\\Tex\\Missing.BMP"]["note"]


def test_importer_warns_with_the_same_words(bpy_scene, extension, tmp_path):
    folder = windows_texture_folder(tmp_path / "art")
    module = importlib.import_module(f"{extension}.importers.ms3d.ms3d_import")
    inspect = importlib.import_module(f"{extension}.cli.inspect")
    for name in WINDOWS_NAMES:
        path = folder / name
        bpy_scene.ops.wm.read_homefile(use_empty=True)
        result = module.import_ms3d(bpy_scene.context, path, module.Ms3dImportOptions())
        warnings = {w.removeprefix(f"{name}: ") for w in result.warnings}
        texture_problems = {p.message for p in inspect.inspect_file(path).problems if "not found" in p.message}
        assert texture_problems and texture_problems == {w for w in warnings if "not found" in w}
