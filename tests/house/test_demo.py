"""The README's main job, run as a user runs it (a subprocess with the checkout's bpy)."""
from __future__ import annotations

import subprocess
import sys

import pytest
from support.environment import CHECKOUT, skip_inside_blender

from formats.md2.codec import parse_md2


def test_demo_builds_exports_imports_and_renders(tmp_path):
    pytest.importorskip("bpy", reason="the demo runs in the bpy wheel")
    skip_inside_blender("the demo")
    result = subprocess.run([sys.executable, str(CHECKOUT / "tools" / "demo.py"), "-o", str(tmp_path)],
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    for name in ("sample.md2", "sample.png", "sample.blend", "sample_roundtrip.md2", "sample_contact.png"):
        assert (tmp_path / name).stat().st_size > 0, name
        assert str(tmp_path / name) in result.stdout
    model = parse_md2((tmp_path / "sample.md2").read_bytes())
    assert model.num_frames == 30 and model.skins == ["sample.png"]
    assert {n.rstrip("0123456789") for n in model.frame_names} == {"idle", "nod", "wave"}
    assert (tmp_path / "sample_roundtrip.md2").read_bytes() == (tmp_path / "sample.md2").read_bytes()
    assert (tmp_path / "sample_contact.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_demo_reports_a_bad_model_without_traceback(tmp_path):
    pytest.importorskip("bpy", reason="the demo runs in the bpy wheel")
    skip_inside_blender("the demo")
    bad = tmp_path / "bad.md2"
    bad.write_bytes(b"IDP2\x08\x00\x00\x00" + b"\xff" * 60)
    result = subprocess.run([sys.executable, str(CHECKOUT / "tools" / "demo.py"), str(bad), "-o", str(tmp_path)],
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 1
    assert "bad.md2" in result.stderr and "Traceback" not in result.stderr
