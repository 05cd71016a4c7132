"""``convert x.md5mesh --to md5`` with every default gives the files back (issue 44: every anim came back
resampled at the game's 10 per second over the scene's default 1-250, a 3-frame 24 fps anim as 104
frames): each anim with its own frame count and rate, byte for byte. The truth: the files' own bytes."""
from __future__ import annotations

import pytest
from support.environment import CORPUS
from support.md5_rates import write_folder

REDECLIPSE = CORPUS / "md5" / "redeclipse" / "data"


def _converted(run, source, out, *options) -> dict[str, bytes]:
    result = run("convert", source, "--to", "md5", "-o", out, *options)
    assert result.returncode == 0, result.stdout + result.stderr
    return {p.name: p.read_bytes() for p in out.iterdir()}


def test_a_pair_of_its_own_rate_converts_back(run, tmp_path):
    files = write_folder(tmp_path / "in", {"thing": (14, 24.0, 6.0)})
    assert _converted(run, tmp_path / "in" / "thing.md5mesh", tmp_path / "out") == files


@pytest.mark.parametrize("mesh, options", [
    ("luckystrike/banner01/banner.md5mesh", ()),
    ("unnamed/door01/mesh.md5mesh", ("--import-option", "find_anims=FOLDER")),
    ("actors/drone/mesh.md5mesh", ("--import-option", "find_anims=FOLDER"))])
def test_corpus_md5_converts_back_byte_for_byte(run, tmp_path, mesh, options):
    """The Red Eclipse banner (its anim of its own name, 3 frames at 24 fps) and, with every anim of the
    folder, a door (3 anims) and the drone (23): each file back under its own name."""
    source = REDECLIPSE / mesh
    if not source.is_file():
        pytest.skip(f"corpus file not found: {source}")
    written = _converted(run, source, tmp_path / "out", *options)
    anims = sorted(p.name for p in source.parent.glob("*.md5anim"))
    expected = [source.with_suffix(".md5anim").name] if not options else anims
    assert sorted(written) == sorted([source.name] + expected)
    for name, data in written.items():
        assert data == (source.parent / name).read_bytes(), name


def test_fps_bakes_an_md5_at_that_rate(run, tmp_path):
    """``--fps`` still bakes at the rate asked for (the default no longer is the game's, whatever --fps said)."""
    from formats.md5.anim import read_md5anim
    write_folder(tmp_path / "in", {"thing": (13, 24.0, 6.0)})
    written = _converted(run, tmp_path / "in" / "thing.md5mesh", tmp_path / "out", "--fps", "12")
    anim = read_md5anim(written["thing.md5anim"])
    assert (anim.frame_rate, anim.num_frames) == (12, 7)       # 12 frames of 24 fps, 0.5 s, at 12 a second: 7
