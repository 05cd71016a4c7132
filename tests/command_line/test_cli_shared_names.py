"""Batch conversion of several inputs with the same file name into one ``-o``: each keeps its folder
relative to the common parent of those inputs (``a/tris.md2 b/tris.md2 -> out/a/tris.md2, out/b/tris.md2``),
with its own skin beside it; a single input, or inputs with different names, still land in ``-o`` itself."""
from __future__ import annotations

import numpy as np
import pytest
from support.engine_tools import cli
from support.image_files import read_pcx, write_pcx
from support.md2_synthetic import grid_model

from formats.md2.codec import parse_md2, serialize_md2

COLOURS = {"a": 40, "b": 200}      # palette index of each model's skin (one flat colour)


def _tree(tmp_path):
    """src/a/tris.md2 (5 frames) and src/b/tris.md2 (7 frames), each with its own skin.pcx beside it."""
    palette = np.stack([np.arange(256)] * 3, axis=1).astype(np.uint8)
    palette[:, 1] = 255 - palette[:, 1]
    inputs = []
    for folder, frames in (("a", 5), ("b", 7)):
        model = grid_model(frames=frames)
        model.skins = ["skin.pcx"]
        (tmp_path / "src" / folder).mkdir(parents=True)
        path = tmp_path / "src" / folder / "tris.md2"
        path.write_bytes(serialize_md2(model))
        write_pcx(path.with_name("skin.pcx"), np.full((32, 64), COLOURS[folder], np.uint8), palette)
        inputs.append(path)
    return inputs, palette


def test_inputs_sharing_a_name_keep_their_folders(tmp_path):
    """One run: the two tris.md2 land in out/a/ and out/b/ with their own frames and skins; a third input
    with another name (src/c/other.md2) still goes into out/ itself."""
    pytest.importorskip("bpy", reason="convert runs the operators in the bpy wheel")
    inputs, palette = _tree(tmp_path)
    other = tmp_path / "src" / "c" / "other.md2"
    other.parent.mkdir()
    other.write_bytes(serialize_md2(grid_model(frames=3)))
    run = cli("convert", "--to", "md2", "--skins", "pcx", "-o", tmp_path / "out", *inputs, other, cwd=tmp_path)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "also the output of" not in run.stdout
    for folder, frames in (("a", 5), ("b", 7)):
        written = parse_md2((tmp_path / "out" / folder / "tris.md2").read_bytes())
        assert len(written.frame_names) == frames
        skin = tmp_path / "out" / folder / written.skins[0].rsplit("/", 1)[-1]
        indices, written_palette = read_pcx(skin.read_bytes())
        mean = written_palette[indices].reshape(-1, 3).astype(float).mean(axis=0)
        distance = {k: np.abs(mean - palette[v]).sum() for k, v in COLOURS.items()}
        assert min(distance, key=distance.get) == folder, distance      # its own skin, not the other's
    assert not (tmp_path / "out" / "tris.md2").exists()
    assert len(parse_md2((tmp_path / "out" / "other.md2").read_bytes()).frame_names) == 3


def test_plan_puts_shared_names_under_their_folders(tmp_path):
    """The planning alone (no Blender): three inputs named tris.md2 at different depths, one other name."""
    import sys
    link = tmp_path / "_pkg"
    link.mkdir()
    from support.environment import CHECKOUT
    (link / "classic_models").symlink_to(CHECKOUT, target_is_directory=True)
    sys.path.insert(0, str(link))
    try:
        from classic_models.cli.batch import Source, output_path, shared_name_folders
    finally:
        sys.path.remove(str(link))
    files = [tmp_path / "q2" / "players" / name / "tris.md2" for name in ("male", "female")]
    files += [tmp_path / "q2" / "players" / "male" / "extra" / "tris.md2", tmp_path / "q2" / "gun.md2"]
    sources = [Source(f) for f in files]
    folders = shared_name_folders(sources, "mdl", tmp_path / "out")
    outputs = [output_path(s, "mdl", tmp_path / "out", folders.get(s.path.resolve())) for s in sources]
    assert [o.relative_to(tmp_path / "out").as_posix() for o in outputs] == [
        "male/tris.mdl", "female/tris.mdl", "male/extra/tris.mdl", "gun.mdl"]
    assert shared_name_folders(sources, "mdl", None) == {}
    single = [Source(files[0])]
    assert output_path(single[0], "mdl", tmp_path / "out",
                       shared_name_folders(single, "mdl", tmp_path / "out").get(files[0].resolve())) == (
        tmp_path / "out" / "tris.mdl")
