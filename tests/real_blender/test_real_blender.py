"""Debian's own Blender (5.2.x from sid, 4.3.x from trixie), the extension built with `extension build` and
installed with `extension install-file` as a user installs it, driven under Xvfb by tools/real_blender/.
Screenshots and Blender's console output are in out/real_blender/<suite>/."""
from __future__ import annotations

import re
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from formats.md2.codec import parse_md2  # noqa: E402
from formats.md3.codec import read_md3  # noqa: E402
from formats.mdl.codec import parse_mdl  # noqa: E402

EXTENSION_FILE = re.compile(r"extensions/user_default/classic_models/\S+")


def test_built_and_installed_as_a_user_does(session):
    build = (session.out / "build.log").read_text(errors="replace")
    install = (session.out / "install.log").read_text(errors="replace")
    assert re.search(r'created: ".*classic_models-[\d.]+\.zip"', build), build[-2000:]
    assert 'STATUS Installed "classic_models"' in install, install[-2000:]


def test_session_ran_every_scenario(session):
    assert session.info["returncode"] == 0, (session.out / "session_stdout.txt").read_text()[-3000:]
    assert "fatal" not in session.results, session.results.get("fatal")
    unfinished = {k: v.get("traceback") for k, v in session.results.get("checks", {}).items()
                  if k.endswith(":completed") and not v["ok"]}
    assert not unfinished, unfinished
    assert session.results.get("blender", "").startswith({"sid": "5.2", "trixie": "4.3"}[session.suite])


def test_console_names_no_extension_file(session):
    """No warning, traceback or error from the extension's own files: each names its file (a traceback's
    frames, warnings.warn's location, and the bare file:line Blender prints when a layout call fails in
    draw()). Debian's own bl_pkg traceback about cattrs names none of ours."""
    lines = session.log.splitlines()
    named = [(i, line) for i, line in enumerate(lines) if EXTENSION_FILE.search(line)]
    assert not named, "\n".join(f"blender.log:{i + 1}: {line}" for i, line in named[:20]) + \
        f"\n({len(named)} lines in all)"


FILE_DIALOGS = ("import_md2", "import_mdl", "import_ms3d", "import_md3", "import_md5", "import_iqm", "export_md2",
                "export_mdl", "export_ms3d", "export_md3", "export_md5", "export_iqm")


@pytest.mark.parametrize("dialog", FILE_DIALOGS)
def test_file_dialog_draws_its_options(session, dialog):
    """The file browser's option column holds options, not only "Operator Presets" (text lines counted
    in the screenshot of the column)."""
    check = session.check(f"dialog:{dialog}")
    assert check["ok"], f"{session.suite}: {dialog} option column shows {check.get('option_lines')} line(s) " \
                        f"(at least {check.get('minimum')} needed): see {session.out / check.get('shot', '')}"


def test_export_dialog_opens_at_the_loosely_imported_file(session):
    """After File > Import of work/loose/gun.md2, the export dialog opens in work/loose as gun.md2: the
    running file browser's folder and file name, and the operator's file path (screenshot in out/)."""
    check = session.check("dialog:export_after_loose_import")
    assert check["ok"], check


def test_archive_dialog_lists_the_models(session):
    check = session.check("dialog:archive")
    assert check["ok"], check


def test_file_menu_import_md2_by_mouse_and_typed_path(session):
    """File > Import > Quake II Model (.md2) clicked, folder and name typed, Import clicked: the model is in."""
    entry, done = session.check("menu:import_entry"), session.check("menu:import_md2")
    assert entry["ok"], entry
    assert done["ok"], done
    assert done["shape_keys"] == 7, done          # Basis + one per frame of crate.md2's 6 frames


def test_import_option_clicked(session):
    """The MD2 import dialog's Animations menu clicked to Actions (the same clicking the export test does,
    on a dialog that drew its options before issue 24): the model comes in with one action per animation."""
    check = session.check("click:import_md2_actions")
    assert check["ok"], check


def test_export_option_clicked_reaches_the_file(session):
    """File > Export > Quake II Model; Frames switched to Shape Keys in the dialog's own menu by mouse and
    keyboard; Export clicked: the file holds one frame per shape key after Basis (2), not the 6 scene frames,
    sized as the keys are (the cube of side 2 grown 1.5 and 2 times)."""
    assert session.check("menu:export_entry")["ok"]
    check = session.check("menu:export_md2_shape_keys")
    assert check["ok"], check
    model = parse_md2((session.out / "work" / "shape_keys.md2").read_bytes())
    assert model.num_frames == 2
    sides = np.ptp(model.positions(), axis=1)
    np.testing.assert_allclose(sides, [[3.0] * 3, [4.0] * 3], atol=0.05)
    timeline = parse_md2((session.out / "work" / "crate.md2").read_bytes())
    assert timeline.num_frames == 6                # the default (Timeline) on the same scene


@pytest.mark.parametrize("ext", ("md2", "mdl", "ms3d", "md3"))
def test_collection_exporter_draws_options_and_exports(session, ext):
    check = session.check(f"collection_exporter:{ext}")
    assert check["ok"], f"{session.suite}: {check}"
    data = (session.out / "work" / f"collection.{ext}").read_bytes()
    if ext == "md2":
        assert parse_md2(data).num_frames == 6
    elif ext == "mdl":
        assert parse_mdl(data).num_poses == 6
    elif ext == "md3":
        assert len(read_md3(data).frame_names) == 6
    else:
        assert data[:10] == b"MS3D000000"


@pytest.mark.parametrize("ext", ("md2", "mdl", "ms3d"))
def test_sidebar_model_panel(session, ext):
    check = session.check(f"sidebar:{ext}")
    assert check["ok"], check
    if ext in ("md2", "mdl"):
        assert check["frames"] == 6 and check["animations"] >= 1, check


@pytest.mark.parametrize("key", ("md2", "mdl", "ms3d", "md3", "md5", "archive"))
def test_drop_poll(session, key):
    check = session.check(f"drop:poll_{key}")
    assert check["ok"], check


@pytest.mark.parametrize("ext", ("md2", "mdl", "ms3d", "md3", "md5mesh", "pak"))
def test_drop_import(session, ext):
    """What a drop on the 3D viewport runs (wm.drop_import_file): the import's popup with its options,
    confirmed with Return (the archive: its model list)."""
    check = session.check(f"drop:{ext}")
    assert check["ok"], check


@pytest.mark.parametrize("operator", ("export_scene.md2", "import_scene.md2"))
def test_operator_preset_round_trip(session, operator):
    check = session.check(f"preset:{operator}")
    if check.get("blender_cannot"):
        pytest.skip(f"Blender {session.results['blender']}'s own preset code fails on Debian's Python 3.13 "
                    f"(bl_operators/presets.py: {check['blender_cannot']}), for every add-on")
    assert check["ok"], check


def test_import_beside_other_animation_keeps_the_scene_rate(session):
    """Issue 29: an MD2 (10 fps) imported through its file browser into a 24 fps scene whose crate is keyed:
    the scene stays at 24 fps (results.json), the crate's keys are untouched and the model's six frames are
    placed 2.4 scene frames apart, so each plays 0.1 s as in the game."""
    check = session.check("timing:keeps_scene_rate")
    assert check["ok"], check
    assert check["option"] == "AUTO" and check["scene_fps"] == 24, check
    np.testing.assert_allclose(check["model_frames"], [1 + 2.4 * k for k in range(6)], atol=1e-4)
    assert check["frame_range"] == [1, 20], check     # 1 + 5 * 2.4 = 13 fits: the range is not shrunk


@pytest.mark.parametrize("dialog", ("archive", "import_md2", "import_mdl", "import_ms3d", "import_md5",
                                    *(f"browser_{d}" for d in FILE_DIALOGS)))
def test_dialog_invoked_where_no_region_is_current(session, dialog):
    """INVOKE_DEFAULT from a timer (no region current, as a script's timer or a startup script runs it): the
    Game Archive dialog and the drop popups crashed Blender (segmentation fault in UILayout.panel); now each
    shows its options, and the file browsers open."""
    check = session.check(f"no_region:{dialog}")
    assert check["ok"], f"{session.suite}: {check}"


# ---------------------------------------------------------------- MD5 (tools/real_blender/gui_md5.py)
def test_md5_import_from_the_file_menu_with_options_clicked(session):
    """File > Import > MD5 (.md5mesh) clicked; the dialog's option column drawn; Anims switched to Folder and
    Animations to Actions by mouse; Import: both anims of the folder come in, the one of the mesh's name split
    into crate.mdl's animations (one: its frames share a name), the other an action of its own, listed."""
    check = session.check("md5:menu_import")
    assert check["ok"], check
    listed = [tuple(item) for item in check["listed"]]
    assert check["mode"] == "ACTIONS" and check["classic"].endswith("crate.mdl"), check
    assert [file for _, file in listed] == ["crate.md5anim", "crate_turn.md5anim"], check
    assert listed[-1][0] == "crate_turn", check


def test_md5_drop_imports_the_mesh_with_its_anim(session):
    check = session.check("md5:drop")
    assert check["ok"], check
    assert check["action"] == "crate.md5anim", check


def test_md5_collection_exporter_writes_the_pair_back(session):
    """Exported untouched through Collection properties > Exporters > MD5: the mesh and the anim read back
    are the dropped files (the files' own text kept), the anim's 6 frames at every scene frame."""
    from formats.md5.anim import read_md5anim
    from formats.md5.mesh import read_md5mesh
    check = session.check("md5:collection_exporter")
    assert check["ok"], check
    work = session.out / "work"
    written = (work / "collection.md5mesh").read_bytes()
    mesh, anim = read_md5mesh(written), read_md5anim((work / "collection.md5anim").read_bytes())
    assert mesh.num_joints == 1 and [p.num_verts for p in mesh.meshes] == [4], check
    assert anim.num_frames == 6 and anim.joint_names == mesh.joint_names, check
    assert written == (work / "md5" / "crate.md5mesh").read_bytes()
    assert (work / "collection.md5anim").read_bytes() == (work / "md5" / "crate.md5anim").read_bytes()


def test_md3_import_dialog_merge_surfaces_and_actions_clicked(session):
    """The MD3 import dialog: Merge Surfaces ticked and Animations set to Actions by clicking where the
    dialog draws them, Import clicked: one mesh for both surfaces of the model the session wrote (a
    material slot each, the default skin set's red.tga), the model root in Actions mode."""
    check = session.check("md3:import_options")
    assert check["ok"], check
    assert check["meshes"] == [["crate2_surfaces", 2]] and check["slot_images"] == ["red.tga", "red.tga"], check


def test_md3_sidebar_skin_set_switched_by_click(session):
    """View3D > Sidebar > Model: the skin-set button beside the pressed 'default' clicked ('blue'): the
    model root shows the blue set, both slots' materials blue.tga, the pressed button moved left and the
    viewport draws the model blue where it was red (mean colour of its pixels; screenshots
    md3_skin_set_before.png and md3_skin_set_blue.png)."""
    check = session.check("md3:sidebar_skin_set")
    assert check["ok"], check
    (before, after) = check["viewport_colour"]
    assert before[0] > before[2] + 60 and after[2] > after[0] + 60, check
    assert check["pressed"][1][0] < check["pressed"][0][0], check
