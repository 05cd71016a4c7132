"""The same files as the previous code, on demand against any base commit (issue 33's speed work, and issue 46:
this replaces the copies of earlier code the suite used to keep): the speed benchmark's models (the corpus MD2s,
MDLs and the two MD3s it times, one of them Nexuiz's 14-surface turret, an MD3 player part with tags, its
engine-limit MD2 and MDL) exported untouched, scaled by 1.1, squashed, with the skin repainted, an MDL repainted
and dithered, and (MD3) with one surface object or every one of them moved or scaled; and every corpus MD5 file
written by the MD5 writer as read and changed as an edited export changes it, kept and printed afresh, each mesh
skinned with the anims beside it (tools/edited_identity.py) by this checkout and by the previous code give the
same bytes, file for file, and the same reports. The previous code is a checkout named by
``CLASSIC_MODELS_BASE`` (e.g. ``git worktree add --detach /tmp/base HEAD~1``, or main, made before the change);
without it the test is skipped. An identity test: it passes on the old code by design (both sides the same code
then); a change meant to change the output shows here as the files it changed. A base before the MDL fix of
2026-11-27 (a scaled MDL kept the imported bounding radius and size, a squashed one its imported normals) writes
the scaled and squashed MDLs differently, as it should."""
from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import pytest
from support.environment import CHECKOUT, corpus_files, skip_inside_blender

MODELS = ("md2/assimp/faerie.md2", "md2/petaaar88-zarlag/tris.md2", "mdl/librequake/zombie.mdl",
          "mdl/librequake/player.mdl", "mdl/librequake/oldone.mdl", "md3/nexuiz/models/domination/dom_yellow.md3",
          "md3/openarena081/models/players/merman/upper.md3", "md3/nexuiz/models/turrets/walker_body.md3")


def exported(checkout: Path, out: Path, models: list[Path]) -> tuple[dict[str, str], list[str]]:
    """{file name: sha256} of what ``checkout``'s code wrote, and its report lines (paths made relative)."""
    done = subprocess.run([sys.executable, str(CHECKOUT / "tools" / "edited_identity.py"), "--checkout",
                           str(checkout), "--out", str(out), *map(str, models)],
                          capture_output=True, text=True, timeout=1800)
    assert done.returncode == 0, done.stderr[-2000:]
    lines = [line.replace(str(out), "OUT") for line in (done.stdout + done.stderr).splitlines()
             if line.startswith(("==", "Info", "Warning", "Error"))]
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(out.iterdir())}, lines


def test_benchmark_models_export_the_same_bytes_as_the_previous_code(tmp_path):
    skip_inside_blender("the export in two checkouts")
    pytest.importorskip("bpy", reason="the exports run the operators in the bpy wheel")
    base = os.environ.get("CLASSIC_MODELS_BASE")
    if not base:
        pytest.skip("set CLASSIC_MODELS_BASE to a checkout of the previous code to compare its exports")
    models = [path for relative in MODELS for path in corpus_files(relative)]
    if len(models) < len(MODELS):
        pytest.skip("the benchmark's corpus models were not found")
    models += corpus_files("md5/**/*.md5mesh") + corpus_files("md5/**/*.md5anim")
    sys.path.insert(0, str(CHECKOUT / "tools"))
    from benchmark import synthetic_md2, synthetic_mdl

    from formats.md2.codec import serialize_md2
    from formats.mdl.codec import serialize_mdl
    inputs = tmp_path / "synthetic"
    inputs.mkdir()
    for name, data in (("limits.md2", serialize_md2(synthetic_md2())), ("limits.mdl", serialize_mdl(synthetic_mdl()))):
        (inputs / name).write_bytes(data)
        models.append(inputs / name)
    (tmp_path / "old").mkdir()
    (tmp_path / "new").mkdir()
    old_files, old_reports = exported(Path(base), tmp_path / "old" / "out", models)
    new_files, new_reports = exported(CHECKOUT, tmp_path / "new" / "out", models)
    assert len(new_files) >= 4 * len(models)
    assert new_files == old_files
    assert new_reports == old_reports
