"""``convert x.md5mesh --to md5`` with the default options gives back each small weight case of
``support/md5_weight_cases.py`` byte for byte (more than four weights on a vertex, zero biases, two
weights on one joint, an absolute shader path, the file's own commandline, blocks of no vertex), and each
case of vertices no triangle uses of ``support/md5_loose_cases.py``."""
from __future__ import annotations

import pytest
from support.md5_loose_cases import LOOSE_CASES
from support.md5_weight_cases import CASES


def _converted_differ(run, tmp_path, cases: dict[str, bytes]) -> list[str]:
    """The cases whose ``convert --to md5`` (one run, every case) is not the file byte for byte."""
    pytest.importorskip("bpy", reason="convert runs the operators in the bpy wheel")
    for case, data in cases.items():
        (tmp_path / f"{case}.md5mesh").write_bytes(data)
    result = run("convert", *sorted(tmp_path.glob("*.md5mesh")), "--to", "md5", "-o", tmp_path / "out", "-j", "1")
    assert result.returncode == 0, result.stdout + result.stderr
    return [case for case, data in cases.items() if (tmp_path / "out" / f"{case}.md5mesh").read_bytes() != data]


def test_convert_to_md5_gives_every_case_back_byte_for_byte(run, tmp_path):
    assert _converted_differ(run, tmp_path, CASES) == []


def test_convert_to_md5_gives_vertices_no_triangle_uses_back_byte_for_byte(run, tmp_path):
    assert _converted_differ(run, tmp_path, LOOSE_CASES) == []
