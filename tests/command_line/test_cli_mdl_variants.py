"""``info``, ``check`` and ``convert --mdl-format`` on MD16 and RAPO files the tests build."""
from __future__ import annotations

import json

import numpy as np
from support.environment import needs_bpy
from support.mdl_models import md16_model, rapo_model, synthetic_model

from formats.mdl.codec import parse_mdl, serialize_mdl


def _write(tmp_path, name, model):
    path = tmp_path / name
    path.write_bytes(serialize_mdl(model))
    return path


def test_info_names_the_variant_and_hexen2_flags(run, tmp_path):
    paths = [_write(tmp_path, "a.mdl", synthetic_model()), _write(tmp_path, "b.mdl", md16_model()),
             _write(tmp_path, "c.mdl", rapo_model())]
    result = run("info", *paths, block_bpy=True)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "Quake MDL version 6" in out and "variant IDPO (every Quake engine)" in out
    assert "variant MD16 (QuakeForge and FTE only)" in out
    assert "Quake MDL version 50" in out and "variant RAPO (Hexen II engines" in out
    assert "Hexen II flags: transparent, face_view" in out
    data = json.loads(run("info", "--json", *paths, block_bpy=True).stdout)
    files = data["files"] if isinstance(data, dict) else data
    assert [f["details"]["variant"] for f in files] == ["IDPO", "MD16", "RAPO"]
    assert files[2]["details"]["hexen2_flags"] == ["transparent", "face_view"]
    assert files[2]["counts"]["texcoords"] == 7


def test_check_warns_where_only_some_engines_load_it(run, tmp_path):
    idpo = _write(tmp_path, "a.mdl", synthetic_model())
    md16 = _write(tmp_path, "b.mdl", md16_model())
    rapo = _write(tmp_path, "c.mdl", rapo_model())
    assert "MD16 variant" not in run("check", idpo, block_bpy=True).stdout
    result = run("check", md16, rapo, block_bpy=True)
    assert result.returncode == 1
    assert f"{md16}: warning: ident @ offset 0: MD16 variant: QuakeForge and FTE only load it" in result.stdout
    assert f"{rapo}: warning: ident @ offset 0: RAPO variant: Hexen II engines" in result.stdout


def test_convert_mdl_format_option(run, tmp_path):
    needs_bpy()
    source = _write(tmp_path, "m.mdl", md16_model())
    out = tmp_path / "out"
    result = run("convert", source, "--to", "mdl", "-o", out)
    assert result.returncode == 0, result.stdout + result.stderr
    assert (out / "m.mdl").read_bytes() == source.read_bytes()        # its own format, byte for byte
    for name in ("idpo", "rapo"):
        result = run("convert", source, "--to", "mdl", "-o", tmp_path / name, "--mdl-format", name)
        assert result.returncode == 0, result.stdout + result.stderr
        model = parse_mdl((tmp_path / name / "m.mdl").read_bytes())
        assert model.variant == name.upper()
        assert np.all(np.abs(model.positions() - md16_model().positions()) <= model.scale / 2 + 1e-4)
