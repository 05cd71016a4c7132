"""The quick start's last step (docs/quick-start.md, "See it in the game"), run as the page writes it: its
DarkPlaces check command and its OpenArena command, with ``~`` a home folder of the test's own, on a model
exported from Blender where the page says to save it. The page's map command for DarkPlaces needs Quake's
data, which no test has; the check command loads the file the same way (``Mod_ForName``)."""
from __future__ import annotations

import os
import re
import shlex
import subprocess
from pathlib import Path

import pytest
from support.engine_tools import parse_obj, require, select_only
from support.environment import CHECKOUT
from support.openarena_tools import complaints, openarena_models

from formats.md3.codec import read_md3
from formats.mdl.codec import parse_mdl

PAGE = CHECKOUT / "docs" / "quick-start.md"


def page_command(program: str) -> list[str]:
    """The words of the page's one command line (in a fenced block) that starts with ``program``."""
    text = PAGE.read_text(encoding="utf-8")
    blocks = re.findall(r"^```[^\n]*\n(.*?)^```", text, re.S | re.M)
    lines = [line for block in blocks for line in block.splitlines() if line.split()[:1] == [program]]
    assert len(lines) == 1, f"docs/quick-start.md should give one '{program}' command, gives {lines}"
    return shlex.split(lines[0])


def page_path(pattern: str) -> str:
    """The inline-code path of the page matching ``pattern`` (a regular expression)."""
    found = re.findall(r"`(" + pattern + r")`", PAGE.read_text(encoding="utf-8"))
    assert found, f"docs/quick-start.md names no path like {pattern}"
    return found[0]


def at_home(word: str, home: Path) -> str:
    return str(home) + word[1:] if word.startswith("~/") else word


def monkey(bpy, material: str):
    """Suzanne with UVs and one material, the scene one frame long; selected."""
    scene = bpy.context.scene
    scene.render.fps, scene.frame_start, scene.frame_end = 10, 1, 1
    bpy.ops.mesh.primitive_monkey_add(size=16.0, calc_uvs=True)
    obj = bpy.context.object
    obj.data.materials.append(bpy.data.materials.new(material))
    select_only(bpy, [obj])
    return obj


def test_the_pages_darkplaces_check_reads_the_exported_mdl(bpy_scene, tmp_path):
    exe = require("darkplaces-server")
    bpy = bpy_scene
    words = page_command("darkplaces-server")
    home = tmp_path / "home"
    basedir = Path(at_home(words[words.index("-basedir") + 1], home))
    name = words[words.index("+modelprecache") + 1]                       # progs/armor.mdl
    assert page_path(r"id1/progs/") and Path(name).name == page_path(r"\w+\.mdl")   # where the page saves it
    target = basedir / "id1" / name
    target.parent.mkdir(parents=True)
    monkey(bpy, "skin")
    assert bpy.ops.export_scene.mdl(filepath=str(target)) == {"FINISHED"}
    run = subprocess.run([exe, *(at_home(w, home) for w in words[1:])], capture_output=True, text=True,
                         timeout=120, env=dict(os.environ, HOME=str(home)), cwd=tmp_path)
    written = Path(at_home(page_path(r"~/\.darkplaces/[^`]*\.obj"), home))
    assert written.is_file(), f"DarkPlaces wrote no {written}:\n{(run.stdout + run.stderr)[-2000:]}"
    obj = parse_obj(written)
    model = parse_mdl(target.read_bytes())
    assert len(obj.triangles) == len(model.triangles) and len(obj.positions) >= model.num_vertices


def test_the_pages_openarena_command_loads_the_exported_md3(bpy_scene, tmp_path):
    require("openarena")
    bpy = bpy_scene
    words = page_command("openarena")
    shader = page_path(r"models/weapons2/[^`]*/skin")
    saved = page_path(r"~/\.openarena/baseoa/[^`]*\.md3")
    name = saved.split("/baseoa/", 1)[1]                                   # the game's path of the file
    monkey(bpy, shader)
    path = tmp_path / Path(name).name
    assert bpy.ops.export_scene.md3(filepath=str(path)) == {"FINISHED"}
    assert [s.shaders[0].name for s in read_md3(path.read_bytes()).surfaces] == [shader]
    models, log = openarena_models({name: path}, tmp_path, game_args=words[1:])
    assert models.get(name) == (path.stat().st_size, 1), f"the game did not load the export:\n{log[-3000:]}"
    assert not complaints(log, name), complaints(log, name)


@pytest.mark.parametrize("program", ("darkplaces", "darkplaces-server", "openarena"))
def test_the_page_gives_each_command_once(program):
    assert page_command(program)[0] == program
