"""``convert`` of one MD5 file writes that file (issue 44): an ``.md5anim`` alone converts to md5 as
``x.md5anim`` byte for byte with the default options (a small one written here, and every corpus anim in one run), whatever mesh lies
beside it; a mesh without an anim beside it converts to the ``.md5mesh`` alone."""
from __future__ import annotations

import json
from pathlib import Path

from support.environment import CORPUS, corpus, corpus_files, needs_bpy
from support.md5_scale_model import MESH, anim_text


def test_an_anim_alone_converts_to_itself(run, tmp_path):
    needs_bpy()
    source = tmp_path / "in"
    source.mkdir()
    (source / "walk.md5anim").write_bytes(anim_text())
    (source / "walk.md5mesh").write_bytes(MESH)         # its mesh beside it: not written, not needed
    result = run("convert", source / "walk.md5anim", "--to", "md5", "-o", tmp_path / "out", "-j", "1")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no drawable triangles" not in result.stdout
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["walk.md5anim"]
    assert (tmp_path / "out" / "walk.md5anim").read_bytes() == anim_text()


def test_a_mesh_alone_converts_to_the_mesh_alone(run, tmp_path):
    needs_bpy()
    (tmp_path / "body.md5mesh").write_bytes(MESH)
    turret = corpus("md5/redeclipse/data/actors/turret/turret.md5mesh")     # no anim beside it
    result = run("convert", tmp_path / "body.md5mesh", turret, "--to", "md5", "-o", tmp_path / "out", "-j", "1")
    assert result.returncode == 0, result.stdout + result.stderr
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["body.md5mesh", "turret.md5mesh"]
    assert (tmp_path / "out" / "body.md5mesh").read_bytes() == MESH
    assert (tmp_path / "out" / "turret.md5mesh").read_bytes() == turret.read_bytes()


def test_every_corpus_anim_alone_converts_back_byte_for_byte(run, tmp_path):
    needs_bpy()
    anims = corpus_files("md5/**/*.md5anim")
    if not anims:
        corpus("md5/redeclipse/data/actors/drone/idle.md5anim")      # skips, naming what is missing
    out = tmp_path / "out"
    result = run("convert", *anims, "--to", "md5", "-o", out, "-j", "2", "--json", timeout=1800)
    report = json.loads(result.stdout)
    failed = [(r["source"], r.get("error")) for r in report["results"] if not r["ok"]]
    assert result.returncode == 0 and not failed, failed or result.stderr
    outputs = {Path(r["source"]): Path(r["output"]) for r in report["results"]}
    assert sorted(outputs) == sorted(anims)
    differ = [str(p.relative_to(CORPUS)) for p in anims if outputs[p].read_bytes() != p.read_bytes()]
    assert not differ, f"{len(differ)} of {len(anims)} anims differ: {differ[:5]}"
    assert all(o.suffix == ".md5anim" for o in outputs.values())
