"""Issue 29: one line per kind of problem with a count and the first examples; the full list in the
Info editor (the operators' INFO reports) or with ``convert --verbose``.

Blender's popup after a file-browser operator shows its WARNING and ERROR reports; every report goes
to the Info editor. In the bpy module the operators' reports are printed as ``Warning: ...`` and
``Info: ...`` lines, which is how these tests read them (:func:`blender_helpers.reported`).
"""
from __future__ import annotations

from support.blender_helpers import reported
from support.environment import needs_bpy
from support.md2_synthetic import grid_model
from support.players import TABLE, build_player, export_player, standard_names

from formats.md2.codec import serialize_md2
from formats.md2.player import PlayerPart, body_deviations
from formats.report_lines import LINE_LIMIT, Message, fold, full_list

SKINS = [f"models/test/skin{i:02d}.pcx" for i in range(12)]


def missing_skins_md2(path, frames: int = 4, alternating: bool = False):
    """An MD2 naming the 12 skins of SKINS, none of them on disk; ``alternating`` frame names a0, b1,
    a2, ... make one animation per frame, two names taking turns."""
    model = grid_model(frames=frames)
    model.skins = list(SKINS)
    if alternating:
        model.frame_names = [("a" if i % 2 == 0 else "b") + str(i) for i in range(frames)]
    path.write_bytes(serialize_md2(model))
    return path


def test_messages_of_a_kind_fold_into_one_short_line_with_count_and_examples():
    texts = [f"m.md2: skin {name!r} not found (tried .pcx, .tga, .png) in /a/very/long/folder/name/here"
             for name in SKINS]
    messages = [Message(t, "m.md2: {n} skin{s} not found", name.rpartition("/")[2]) for t, name in zip(texts, SKINS)]
    folded = fold(messages + ["plain", "plain", "other " * 40])
    assert [f.line for f in folded][:2] == [
        "m.md2: 12 skins not found: skin00.pcx, skin01.pcx, skin02.pcx and 9 more", "plain (2 times)"]
    assert folded[0].details == texts and folded[1].details == []
    assert len(folded[2].line) <= LINE_LIMIT and folded[2].details == ["other " * 40]
    assert full_list(folded) == texts + ["plain (2 times)", "other " * 40]
    one = fold(messages[:1])
    assert one[0].line == "m.md2: 1 skin not found: skin00.pcx"
    # many long examples: fewer of them, still under the limit
    long = [Message(f"x{i}", "{n} thing{s} broken", "n" * 40 + str(i)) for i in range(5)]
    line = fold(long)[0].line
    assert len(line) <= LINE_LIMIT and line.startswith("5 things broken: ") and line.endswith("more")


def test_knock_on_lines_go_and_animations_out_of_their_own_place_stay():
    """stand two frames long moves everything after it (no line for that, nor for the 200 frames);
    run and attack swapped are out of place on their own account: both still have their line."""
    names = standard_names()
    run_frames = [n for n in names if n.startswith("run")]
    attack = [n for n in names if n.startswith("attack")]
    body = names[:40] + ["stand41", "stand42"] + attack + run_frames + names[54:]
    lines = body_deviations(PlayerPart("tris.md2", body))
    assert lines == ["tris.md2: animation 'stand' has 42 frames, expected 40",
                     "tris.md2: animation 'run' is at frames 50-55, expected frames 40-45",
                     "tris.md2: animation 'attack' is at frames 42-49, expected frames 46-53"]
    assert lines[0].kind == "tris.md2: {n} animation{s} of the wrong length" and lines[0].item == "stand"


def test_twelve_missing_skins_are_one_warning_and_twelve_info_lines(bpy_scene, tmp_path, capfd):
    bpy = bpy_scene
    path = missing_skins_md2(tmp_path / "m.md2")
    capfd.readouterr()
    assert bpy.ops.import_scene.md2(filepath=str(path)) == {"FINISHED"}
    out = capfd.readouterr().out
    warned, messages = reported(out)
    assert warned == ["m.md2: 12 skins not found: skin00.pcx, skin01.pcx, skin02.pcx and 9 more"]
    assert all(len(line) <= LINE_LIMIT for line in warned)
    assert len(messages) == 12
    for skin, message in zip(SKINS, messages):
        assert message.startswith(f"m.md2: skin {skin!r} not found"), message
    assert len(bpy.context.view_layer.objects.active.data.materials) == 12


def test_three_wrong_animation_lengths_are_one_line_without_knock_on_lines(bpy_scene, tmp_path, capfd):
    bpy = bpy_scene
    longer = {"stand": 3, "jump": 2, "wave": 1}
    body, gun, rig, actions = build_player(bpy, [(n.capitalize(), c + longer.get(n, 0)) for n, c in TABLE],
                                           second_skin=False)
    capfd.readouterr()
    export_player(bpy, [body, gun], tmp_path / "players" / "hero" / "tris.md2", skins="NAMES")
    warned, messages = reported(capfd.readouterr().out)
    animation_lines = [w for w in warned if "animation" in w or "frames" in w]
    assert animation_lines == ["Quake II player: tris.md2: 3 animations of the wrong length: stand, jump, wave"]
    hints = [m for m in messages if "frames from action" in m]
    assert [h.split(":")[1].strip() for h in hints] == ["stand", "jump", "wave"]
    assert f"{40 + 3} frames from action 'Stand'" in hints[0]
    # what follows from those three (every later animation moved, 204 frames) is said nowhere
    assert not [m for m in messages if "is at frames" in m or "a Quake II player has 198" in m
                or "has 43 frames" in m]


def test_convert_to_glb_prints_no_repeated_line_and_verbose_the_full_list(run, tmp_path):
    needs_bpy()
    source = missing_skins_md2(tmp_path / "alt.md2", frames=52, alternating=True)
    result = run("convert", source, "--to", "glb", "-o", tmp_path / "out", "-j", "1")
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == len(set(lines)), result.stdout
    warnings = [line.strip() for line in lines if line.strip().startswith("warning: ")]
    assert "warning: alt.md2: 12 skins not found: skin00.pcx, skin01.pcx, skin02.pcx and 9 more" in warnings
    assert all(len(w) <= LINE_LIMIT + len("warning: ") for w in warnings)
    gltf = [w for w in warnings if w.startswith("warning: glTF exporter: ")]
    assert len(gltf) <= 1 and all(w.endswith("times)") for w in gltf)   # the exporter repeats one per clip
    verbose = run("convert", source, "--to", "glb", "-o", tmp_path / "out", "-j", "1", "--verbose")
    assert verbose.returncode == 0, verbose.stdout + verbose.stderr
    full = [line.strip() for line in verbose.stdout.splitlines() if line.strip().startswith("warning: ")]
    for skin in SKINS:
        assert sum(f"alt.md2: skin {skin!r} not found" in line for line in full) == 1, skin
    assert "--verbose" in run("convert", "--help").stdout


LONG = ("merman.skin names 41 shaders with no image under models/players/merman: "
        + ", ".join(f"models/players/merman/pièce_{i:03d}.tga" for i in range(80)))


def test_a_message_longer_than_blender_prints_is_reported_in_pieces_and_read_back_whole():
    """The bpy module prints a report of over 1,023 bytes cut, without a line break (the next report runs into
    it); report_folded sends such a message in pieces and unfold_reported joins them (bpy-free)."""
    from formats.report_lines import REPORT_BYTES, report_folded, unfold_reported
    sent = []
    report_folded(lambda level, text: sent.append((next(iter(level)), text)),
                  [Message(LONG, "{n} long message{s}", "merman"), "short"])
    assert len(LONG.encode()) > 3 * REPORT_BYTES
    assert all(len(text.encode()) <= REPORT_BYTES + 4 for _, text in sent)
    assert [f.details for f in unfold_reported(sent)] == [[LONG], []]


def test_a_long_report_comes_back_whole_from_blenders_printed_lines(bpy_scene, package_path, capfd):
    """Through the operator machinery of the bpy module, as the command line's worker reads it."""
    import importlib
    import sys

    from formats.report_lines import report_folded
    sys.path.insert(0, str(package_path))
    try:
        reported_warnings = importlib.import_module("classic_models.cli.worker").reported_warnings
    finally:
        sys.path.remove(str(package_path))
    bpy = bpy_scene

    class LongReport(bpy.types.Operator):
        bl_idname = "wm.classic_models_long_report_test"
        bl_label = "long report"

        def execute(self, context):
            report_folded(self.report, [Message(LONG, "{n} long message{s}", "merman")])
            return {"FINISHED"}

    bpy.utils.register_class(LongReport)
    try:
        capfd.readouterr()
        bpy.ops.wm.classic_models_long_report_test()
        printed = capfd.readouterr().out
    finally:
        bpy.utils.unregister_class(LongReport)
    assert "truncated" not in printed
    assert [f.details for f in reported_warnings(printed)] == [[LONG]]
