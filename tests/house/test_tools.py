"""The developer scripts whose figures go into the README still run (smoke tests, one repeat)."""
from __future__ import annotations

import math
import re
import struct
import subprocess
import sys

import numpy as np
import pytest
from support.environment import CHECKOUT, CORPUS, skip_inside_blender

# the developer scripts in a subprocess of this Python: the same scripts on every Blender, so the full run's
# middle wheel leaves them to the newest and the oldest (tools/dev.sh wheel_job)
pytestmark = pytest.mark.subprocess_bpy


def _run(*args: str) -> str:
    skip_inside_blender("the developer scripts")
    result = subprocess.run([sys.executable, *args], cwd=CHECKOUT, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    return result.stdout


def test_benchmark_runs_and_prints_a_table():
    pytest.importorskip("bpy", reason="the benchmark runs in the bpy wheel")
    out = _run("tools/benchmark.py", "--repeat", "1", "--format", "mdl", "--markdown")
    assert "| MDL | synthetic (engine limits) | 1024 |" in out


def test_ms3d_benchmark_runs_on_the_corpus():
    pytest.importorskip("bpy", reason="the benchmark runs in the bpy wheel")
    if not (CORPUS / "ms3d").is_dir():
        pytest.skip(f"MS3D corpus not found at {CORPUS}")
    out = _run("tools/benchmark_ms3d.py", "--repeat", "1", "--markdown")
    assert "| sge/zombie.ms3d |" in out


@pytest.mark.parametrize("fmt", ["md2", "mdl", "ms3d"])
def test_round_trip_report_runs(fmt, tmp_path):
    pytest.importorskip("bpy", reason="the report imports and exports through Blender")
    from support.md2_synthetic import grid_model

    from formats.md2.codec import serialize_md2
    files = sorted((CORPUS / fmt).glob(f"*/*.{fmt}"))[:1] if (CORPUS / fmt).is_dir() else []
    if fmt == "md2":
        (tmp_path / "grid.md2").write_bytes(serialize_md2(grid_model()))
        files = [tmp_path / "grid.md2"]
    if not files:
        pytest.skip(f"{fmt} corpus not found at {CORPUS}")
    out = _run("tools/roundtrip_report.py", "--format", fmt, "--markdown", *map(str, files))
    assert out.count("| yes") >= 1 and "NO" not in out


def test_palette_benchmark_runs_a_base_checkout_side_by_side():
    """``--base``: the old checkout's palette module is imported by path (here the checkout itself, so every
    case must give the same indices on both sides: 0 pixels differ); the dithered cases also count the
    pixels that are not their value's nearest (at most all 24 x 24, and some in one case at least: the
    rounding moves a few) and the largest excess (not negative; positive where pixels are counted)."""
    if not (CORPUS / "mdl" / "librequake" / "player.mdl").is_file():
        pytest.skip(f"LibreQuake's player.mdl not found in {CORPUS}")
    out = _run("tools/benchmark_palette.py", str(CORPUS), "--base", str(CHECKOUT), "--size", "24")
    rows = [[cell.strip() for cell in line.split("|")[1:-1]] for line in out.splitlines() if line.startswith("|")]
    assert len(rows) == 8 and rows[4][0] == "painted-looking skin, dithered" and rows[7][0].endswith("dithered")
    assert all(len(row) == 7 and row[4] == "0" for row in rows), out
    for row in rows:
        if row[0].endswith("dithered"):
            assert 0 <= int(row[5]) <= 24 * 24 and float(row[6]) >= 0.0, out
            assert (int(row[5]) > 0) == (float(row[6]) > 0.0), out
        else:
            assert row[5:] == ["-", "-"], out
    assert any(row[0].endswith("dithered") and int(row[5]) > 0 for row in rows), out


def test_batch_benchmark_runs_a_base_checkout_side_by_side(tmp_path):
    """``--base`` (here the checkout itself) converts the same files twice: every output the same."""
    pytest.importorskip("bpy", reason="the benchmark runs convert in the bpy wheel")
    for relative in ("mdl/slipgate/smoke.mdl", "mdl/slipgate/missile.mdl"):
        if not (CORPUS / relative).is_file():
            pytest.skip(f"{relative} not found in {CORPUS}")
        (tmp_path / "corpus" / relative).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "corpus" / relative).write_bytes((CORPUS / relative).read_bytes())
    out = _run("tools/benchmark_batch.py", "--base", str(CHECKOUT), "--corpus", str(tmp_path / "corpus"),
               "--to", "glb", "-j", "1", "--json", str(tmp_path / "batch.json"))
    rows = [[cell.strip() for cell in line.split("|")[1:-1]] for line in out.splitlines() if line.startswith("|")]
    assert len(rows) == 1 and rows[0][:3] == ["glb", "2", "0"] and rows[0][-1] == "2 of 2", out
    assert "files/s on 1 free cores after" in (tmp_path / "batch.json").read_text(encoding="utf-8")


def test_iqm_anchor_benchmark_compares_both_files_with_blenders_pose(tmp_path):
    """One fresh scene exported by ours and by the format author's exporter: the table's two rows, what our
    file holds (every bone, every action's frames) and our joints within the file's quantisation."""
    pytest.importorskip("bpy", reason="the benchmark exports through Blender")
    from tools.benchmark_iqm_anchor import ACTIONS, ANCHOR, HEADERS, rig_layout
    out = _run("tools/benchmark_iqm_anchor.py", "--rounds", "1", "--markdown", "--json", str(tmp_path / "a.json"))
    rows = [[cell.strip() for cell in line.split("|")[1:-1]] for line in out.splitlines() if line.startswith("| ")]
    assert rows[0] == HEADERS and len(rows) == 3, out
    ours, anchor = (dict(zip(HEADERS, row)) for row in rows[1:])
    assert ours["exporter"].startswith("ours") and anchor["exporter"].startswith("anchor")
    frames = sum(last - first + 1 for _, first, last in ACTIONS)
    assert (ours["joints"], ours["anims"], ours["frames"]) == (str(len(rig_layout())), str(len(ACTIONS)), str(frames))
    assert float(ours["largest joint error"]) <= float(ours["quantisation bound"]), ours
    if ANCHOR.is_file():
        assert (anchor["joints"], anchor["anims"], anchor["frames"]) == (ours["joints"], ours["anims"], ours["frames"])
        assert float(ours["ours faster by"].rstrip("x")) > 0 and float(anchor["CPU s (best)"]) > 0
    assert '"script": "tools/benchmark_iqm_anchor.py"' in (tmp_path / "a.json").read_text(encoding="utf-8")


def test_md2_quality_report_runs_and_shared_grids_keep_still_vertices_still():
    pytest.importorskip("bpy", reason="the report exports through Blender")
    out = _run("tools/md2_quality_report.py", "--markdown")
    rows = {tuple(c.strip() for c in line.split("|")[1:4]): line.split("|")[1:-1]
            for line in out.splitlines() if line.startswith("| built in Blender")}
    assert set(rows) == {("built in Blender", "MD2", "Per Frame"), ("built in Blender", "MD2", "Shared"),
                         ("built in Blender", "MD2", "Auto (shared)"), ("built in Blender", "MDL", "one grid"),
                         ("built in Blender", "MD16", "one 16-bit lattice")}
    assert float(rows["built in Blender", "MD2", "Shared"][9]) == 0.0
    assert float(rows["built in Blender", "MD2", "Per Frame"][9]) > 0.0
    md16, mdl = rows["built in Blender", "MD16", "one 16-bit lattice"], rows["built in Blender", "MDL", "one grid"]
    assert float(md16[3]) * 100 < float(mdl[3])         # largest error: 1/256 of the 8-bit step


def test_packed_skin_sheet_runs(tmp_path):
    pytest.importorskip("bpy", reason="the sheet builds, exports and renders in Blender")
    out = _run("tools/packed_skin_sheet.py", "-o", str(tmp_path / "sheet.png"))
    assert "skin models/crate/tris_skin.pcx: 104x88" in out
    assert (tmp_path / "sheet.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_ms3d_sheet_runs(tmp_path):
    pytest.importorskip("bpy", reason="the sheet imports and renders in Blender")
    model = CORPUS / "ms3d" / "sge" / "zombie.ms3d"
    if not model.is_file():
        pytest.skip(f"corpus model {model} not found")
    out = _run("tools/ms3d_sheet.py", str(model), "-o", str(tmp_path / "zombie.png"))
    assert "zombie.ms3d, frames [1, 19, 37, 55, 128, 146, 164, 182] of 1-200" in out
    assert (tmp_path / "zombie.png").read_bytes().startswith(b"\x89PNG")


def test_iqm_sheet_runs_and_every_tile_shows_the_player(tmp_path):
    """tools/iqm_sheet.py: the six anims of Red Eclipse's player, joined to its mesh, import as six actions over
    their files' frames at their own rates; the picture is 2 anims x 3 tiles wide and 3 rows high, under 300 KB, and each
    tile has the player on it (pixels off its slot's shade)."""
    pytest.importorskip("bpy", reason="the sheet imports and renders in Blender")
    from formats.iqm.codec import read_iqm
    from tools.contact_sheet import read_png  # Blender's PNG reader: the sheet is filtered RGB
    from tools.iqm_sheet import ANIMS, PLAYER, SHOWN, TILE
    missing = [p for p in (PLAYER, *(ANIMS / f for _, f, _ in SHOWN)) if not p.is_file()]
    if missing:
        pytest.skip(f"corpus files not found: {missing}")
    sheet = tmp_path / "sheet.png"
    out = _run("tools/iqm_sheet.py", "-o", str(sheet))
    # the scene plays the first anim's 10 per second; each action spans its frames at its own rate on it
    scene_fps = SHOWN[0][2]
    listed = [(name, 1, 1 + math.ceil((read_iqm((ANIMS / file).read_bytes()).num_frames - 1) * scene_fps / fps))
              for name, file, fps in SHOWN]
    assert f"6 anims {listed}" in out, out
    assert sheet.stat().st_size < 300_000
    pixels = np.rint(read_png(sheet)[::-1, :, :3] * 255).astype(int)
    assert pixels.shape == (3 * TILE, 6 * TILE, 3)
    for row in range(3):
        for column in range(6):
            tile = pixels[row * TILE:(row + 1) * TILE, column * TILE:(column + 1) * TILE]
            colours, counts = np.unique(tile.reshape(-1, 3), axis=0, return_counts=True)
            shade = colours[counts.argmax()]
            assert (np.abs(tile - shade).max(axis=2) > 12).sum() > 500, (row, column)


def test_player_icons_sheet_runs(tmp_path):
    pytest.importorskip("bpy", reason="the sheet exports a player through Blender")
    player = CORPUS / "md2" / "petaaar88-zarlag"
    if not (player / "tris.md2").is_file():
        pytest.skip(f"corpus player {player} not found")
    out = _run("tools/player_icons_sheet.py", str(player), "-o", str(tmp_path / "icons.png"))
    assert "players/zarlag2/zarlag.pcx: zarlag.pcx 512x256, icon zarlag_i.pcx 32x32" in out
    assert (tmp_path / "icons.png").read_bytes().startswith(b"\x89PNG")


def test_convert_sheet_runs_one_batch_and_shows_each_frame_beside_its_source(tmp_path):
    """tools/convert_sheet.py: the batch exits 0 and writes an MD2 per model, with the frame count the caption
    prints; the picture is a row of 3 + 3 tiles per model, each tile with the model on it (pixels off the
    background), and each converted frame's silhouette overlaps the source's frame of its time more than the
    source's other frames (one camera for both: the animation is carried across)."""
    pytest.importorskip("bpy", reason="the sheet imports and renders in Blender")
    from support.image_files import read_png

    from tools.convert_sheet import DEFAULT_MODELS, TILE
    missing = [m for m in DEFAULT_MODELS if not (CORPUS / m).is_file()]
    if missing:
        pytest.skip(f"corpus models not found in {CORPUS}: {missing}")
    sheet, keep = tmp_path / "sheet.png", tmp_path / "out"
    out = _run("tools/convert_sheet.py", "-o", str(sheet), "--keep", str(keep))
    assert re.search(r"printed `4 file\(s\) to md2: 4 converted, 0 failed[^`]*` and exited 0\.", out), out
    for model in DEFAULT_MODELS:
        md2 = keep / f"{model.rsplit('/', 1)[-1].rsplit('.', 1)[0]}.md2"
        data = md2.read_bytes()
        assert struct.unpack_from("<4si", data) == (b"IDP2", 8), md2.name
        frames = struct.unpack_from("<i", data, 40)[0]          # num_frames, the header's 11th int32
        shown = re.search(rf"`{re.escape(md2.name)}`: frames [\d, ]+ of (\d+) \(", out)
        assert shown and int(shown.group(1)) == frames > 1, (md2.name, frames, out)
    assert sheet.stat().st_size < 300_000
    pixels = read_png(sheet.read_bytes())[..., :3].astype(int)
    assert pixels.shape == (len(DEFAULT_MODELS) * TILE, 6 * TILE + 4, 3)
    colours, counts = np.unique(pixels.reshape(-1, 3), axis=0, return_counts=True)
    background = colours[counts.argmax()]
    for row in range(len(DEFAULT_MODELS)):
        tiles = [pixels[row * TILE:(row + 1) * TILE, x:x + TILE] for x in
                 (0, TILE, 2 * TILE, 3 * TILE + 4, 4 * TILE + 4, 5 * TILE + 4)]
        masks = [np.abs(tile - background).max(axis=2) > 12 for tile in tiles]
        assert all(mask.sum() > 200 for mask in masks), (row, [int(m.sum()) for m in masks])

        def overlap(a, b):
            return (a & b).sum() / (a | b).sum()
        for i in range(3):
            same = overlap(masks[i], masks[3 + i])
            assert same > 0.5 and all(same > overlap(masks[j], masks[3 + i]) for j in range(3) if j != i), (row, i)
