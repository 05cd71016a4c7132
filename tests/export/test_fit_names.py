"""Names that do not fit (issue 25): each problem said once, and *Fit Names* (``fit_names``, CLI
``--fit-names``) shortens frame names keeping their number, so Quake's grouping of frames into
animations (the name without its trailing digits) is what it was, and every name stays unique."""
from __future__ import annotations

import re

import numpy as np
import pytest
from support.mdl_models import HEXEN_NAMES, hexen_names_mdl

from formats.animations import group_animations
from formats.md2.codec import parse_md2
from formats.mdl.codec import parse_mdl


@pytest.fixture
def fitting(extension):
    """The extension's exporters.name_fitting and exporters.limits (package-relative modules)."""
    from importlib import import_module
    return import_module(f"{extension}.exporters.name_fitting"), import_module(f"{extension}.exporters.limits")


def _groups(names: list[str]) -> list[tuple[int, int]]:
    return [(a.first, a.last) for a in group_animations(names)]


def test_fitted_names_fit_stay_unique_and_keep_their_animations(fitting):
    fit_frame_names = fitting[0].fit_frame_names
    names = HEXEN_NAMES + ["stand1", "stand2"]
    fitted, changes = fit_frame_names(names, 16)
    assert all(len(n.encode("latin-1")) <= 15 for n in fitted)
    assert len(set(fitted)) == len(names)
    assert _groups(fitted) == _groups(names) and len(_groups(names)) == 3
    assert [re.search(r"\d+$", n).group() for n in fitted] == [re.search(r"\d+$", n).group() for n in names]
    assert fitted[-2:] == ["stand1", "stand2"] and set(changes) == set(HEXEN_NAMES)


def test_a_shortened_stem_never_meets_another_animation(fitting):
    fit_frame_names = fitting[0].fit_frame_names
    names = ["abcdefghijklmn01", "abcdefghijklmn02", "abcdefghijklm01"]   # cut to 13: the third's stem
    fitted, _ = fit_frame_names(names, 16)
    assert len(set(fitted)) == 3 and _groups(fitted) == [(0, 1), (2, 2)]
    assert all(len(n) <= 15 for n in fitted)


def test_names_written_back_from_their_field_are_left_alone(fitting):
    fit_frame_names = fitting[0].fit_frame_names
    fitted, changes = fit_frame_names(HEXEN_NAMES[:2], 16, fixed=[True, False])
    assert fitted[0] == HEXEN_NAMES[0] and len(fitted[1]) <= 15 and list(changes) == [HEXEN_NAMES[1]]


def test_skin_paths_keep_folder_and_extension(fitting):
    fit_path_name = fitting[0].fit_path_name
    name = "models/monsters/" + "x" * 60 + ".pcx"
    fitted = fit_path_name(name, 64)
    assert len(fitted) == 63 and fitted.startswith("models/monsters/x") and fitted.endswith(".pcx")
    assert fit_path_name("models/short.pcx", 64) == "models/short.pcx"


def test_many_names_too_long_are_one_problem_said_once(fitting):
    limits = fitting[1]
    problems = limits.name_problems("frame name", HEXEN_NAMES + [None], 16, "Fit Names shortens them")
    assert len(problems) == 1
    assert problems[0].startswith(f"{len(HEXEN_NAMES)} frame names are longer than the limit of 15")
    assert "and 7 more" in problems[0] and problems[0].endswith("Fit Names shortens them")
    with pytest.raises(Exception) as raised:
        limits.refuse("m: ", ["same", "same", "other"])
    assert str(raised.value) == "m: same; other"


def test_mdl_to_md2_refused_once_then_fitted(bpy_scene, tmp_path):
    bpy = bpy_scene
    (tmp_path / "paladin.mdl").write_bytes(hexen_names_mdl())
    assert bpy.ops.import_scene.mdl(filepath=str(tmp_path / "paladin.mdl")) == {"FINISHED"}
    with pytest.raises(RuntimeError) as refused:
        bpy.ops.export_scene.md2(filepath=str(tmp_path / "paladin.md2"))
    message = str(refused.value)
    assert message.count("frame names are longer than the limit of 15") == 1 and "more)" not in message
    assert "--fit-names" in message and not (tmp_path / "paladin.md2").exists()
    assert bpy.ops.export_scene.md2(filepath=str(tmp_path / "paladin.md2"), fit_names=True) == {"FINISHED"}
    names = parse_md2((tmp_path / "paladin.md2").read_bytes()).frame_names
    assert len(names) == len(HEXEN_NAMES) and len(set(names)) == len(names)
    assert all(len(n.encode("latin-1")) <= 15 for n in names)
    assert _groups(names) == _groups(HEXEN_NAMES)


def test_mdl_export_fits_names_too(bpy_scene, tmp_path):
    bpy = bpy_scene
    (tmp_path / "paladin.mdl").write_bytes(hexen_names_mdl())
    assert bpy.ops.import_scene.mdl(filepath=str(tmp_path / "paladin.mdl")) == {"FINISHED"}
    obj = bpy.context.view_layer.objects.active
    obj.classic_model.frames[0].name = "paladin_attack_x01"        # changed: now a new name, 18 characters
    with pytest.raises(RuntimeError, match="is 18 characters, 3 over the limit of 15"):
        bpy.ops.export_scene.mdl(filepath=str(tmp_path / "out.mdl"))
    assert bpy.ops.export_scene.mdl(filepath=str(tmp_path / "out.mdl"), fit_names=True) == {"FINISHED"}
    names = parse_mdl((tmp_path / "out.mdl").read_bytes()).pose_names
    assert len(names[0]) <= 15 and names[0].endswith("01") and names[1:] == HEXEN_NAMES[1:]


def test_many_animations_sharing_a_long_prefix_fit_without_hanging(fitting):
    """60 animations whose stems differ only after the kept letters: the one-letter replacements (52)
    run out, and the search goes on with two letters instead of looping for ever."""
    import threading
    fit_frame_names = fitting[0].fit_frame_names
    names = [f"monster_animation_{k:03d}x{i}" for k in range(60) for i in (1, 2)]
    names = [n.replace(f"{k:03d}", "".join("abcdefghij"[int(d)] for d in f"{k:03d}"))
             for k, n in zip(np.repeat(np.arange(60), 2), names)]      # stems without digits
    out = {}
    worker = threading.Thread(target=lambda: out.update(result=fit_frame_names(names, 16)), daemon=True)
    worker.start()
    worker.join(20)
    assert not worker.is_alive(), "fit_frame_names did not finish"
    fitted, _ = out["result"]
    assert all(len(n.encode("latin-1")) <= 15 for n in fitted)
    assert len(set(fitted)) == len(names)
    assert _groups(fitted) == _groups(names) and len(_groups(names)) == 60
