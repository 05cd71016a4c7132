"""The quick start (docs/quick-start.md) done as a modder does it, in Debian's own Blender under Xvfb
(tools/real_blender/gui_quickstart.py): the extension installed again through Preferences > Get Extensions >
Install from Disk…, a Quake model imported through File > Import, played with Space, scaled in Edit Mode,
exported through File > Export as MDL and MD3. Its screenshots are the page's pictures (``python3
tools/readme_pictures.py`` crops them into docs/)."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from formats.md3.codec import read_md3  # noqa: E402
from formats.mdl.codec import parse_mdl  # noqa: E402

FRAMES = 30               # the demo's sample: idle, nod, wave, 10 frames each
EDIT_SCALE = 1.5          # S 1.5 in Edit Mode (gui_quickstart.EDIT_SCALE)
NEWEST = "sid"            # the quick start runs in the newest Debian Blender only (gui_session.QUICK_START_FROM)


@pytest.fixture(autouse=True)
def newest_only(session):
    if session.suite != NEWEST:
        pytest.skip(f"the quick start's steps run in Debian's newest Blender ({NEWEST}), whose screenshots are the "
                    f"page's pictures; every other dialog runs in {session.suite} too (2-3 minutes a session)")


def test_quick_start_installs_from_disk(session):
    """Edit > Preferences > Get Extensions, Install from Disk… with the stage's zip typed into its file browser:
    Blender installs the extension again (a file left in the installed copy is gone) and it is enabled."""
    check = session.check("quick:install")
    assert check["ok"], check


def test_quick_start_imports_from_the_file_menu(session):
    """File > Import > Quake Model (.mdl) clicked, path typed, Import: one mesh, a shape key per frame after
    Basis, the sample's three animations."""
    check = session.check("quick:import")
    assert check["ok"], check
    assert check["shape_keys"] == FRAMES + 1 and check["animations"] == ["idle", "nod", "wave"], check


def test_quick_start_sidebar_and_playback(session):
    """N opens the sidebar on its Model tab; a click selects the model; Space plays (the frame moves), Esc stops."""
    assert session.check("quick:sidebar")["ok"]
    check = session.check("quick:play")
    assert check["ok"], check


def test_quick_start_edit_mode_scale_moves_every_frame(session):
    """Tab, A, S 1.5 Return, Tab: Basis 1.5 times as big, and every frame's shape key moved with it."""
    check = session.check("quick:edit")
    assert check["ok"], check
    np.testing.assert_allclose(check["grown"], [EDIT_SCALE] * 3, atol=1e-3)


def test_quick_start_exports_what_was_edited(session):
    """File > Export > Quake Model (.mdl) and Quake III Model (.md3) by mouse: both files hold the 30 frames
    with their names; each frame differs from the imported file's by the same offsets (the Edit Mode change,
    followed by every frame), and the first frame is 1.5 times as big (within the MDL's 8-bit grid)."""
    folder = session.out / "work" / "quickstart"
    for key in ("mdl", "md3"):
        check = session.check(f"quick:export_{key}")
        assert check["ok"], check
    source = parse_mdl((folder / "sample.mdl").read_bytes())
    edited = parse_mdl((folder / "edited.mdl").read_bytes())
    assert edited.pose_names == source.pose_names and len(source.pose_names) == FRAMES
    before, after = source.positions(), edited.positions()
    step = max(source.scale.max(), edited.scale.max())   # one step of either file's grid
    shift = after - before
    assert np.abs(shift - shift[0]).max() < 3 * step, "a frame did not follow the edit"
    np.testing.assert_allclose(np.ptp(after[0], axis=0), EDIT_SCALE * np.ptp(before[0], axis=0), atol=3 * step)
    md3 = read_md3((folder / "edited.md3").read_bytes())
    assert md3.frame_names == source.pose_names
