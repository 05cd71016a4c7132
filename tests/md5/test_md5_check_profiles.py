"""``check --profile q1-enhanced`` and ``--profile q2-enhanced`` run as a user runs them, on layouts built
here: a good Quake re-release pair (progs/m.mdl, m.md5mesh, m.md5anim, skins m_00_00 and m_01_00, as many as
the MDL's) and a good Quake II
remaster one (models/m/tris.md2, md5/tris.md5mesh, md5/tris.md5anim, the MD2's skin under md5/) conform;
each broken variant gives exactly one line naming its problem."""
from __future__ import annotations

import json

import numpy as np
import pytest
from support.md5_scale_model import MESH
from support.mdl_models import synthetic_model
from support.models import md2_bytes

FRAMES = 3          # synthetic_model's frame slots; the MD2 is made with as many


def anim(frames: int = FRAMES, joints: tuple[str, ...] = ("root", "arm")) -> bytes:
    """An .md5anim of ``frames`` frames for a chain of ``joints`` (all six components animated)."""
    hierarchy = "".join(f' "{n}" {j - 1} 63 {6 * j}\n' for j, n in enumerate(joints))
    base = " ( 0 0 0 ) ( 0 0 0 )\n" * len(joints)
    rows = "".join(f"frame {k} {{\n" + " 0 0 0 0 0 0\n" * len(joints) + "}\n" for k in range(frames))
    return (f'MD5Version 10\ncommandline ""\nnumFrames {frames}\nnumJoints {len(joints)}\nframeRate 10\n'
            f"numAnimatedComponents {6 * len(joints)}\nhierarchy {{\n{hierarchy}}}\nbounds {{\n"
            + "( 0 0 0 ) ( 1 1 1 )\n" * frames + f"}}\nbaseframe {{\n{base}}}\n" + rows).encode()


def lmp(width: int = 4, height: int = 2) -> bytes:
    return np.array([width, height], "<u4").tobytes() + bytes(width * height)


def quake(root, folder: str = "progs"):
    from formats.mdl.codec import serialize_mdl
    progs = root / folder
    progs.mkdir(parents=True)
    (progs / "m.mdl").write_bytes(serialize_mdl(synthetic_model()))
    (progs / "m.md5mesh").write_bytes(MESH)
    (progs / "m.md5anim").write_bytes(anim())
    (progs / "m_00_00.lmp").write_bytes(lmp())
    (progs / "m_01_00.lmp").write_bytes(lmp())                 # synthetic_model has two skins
    return progs


def quake2(root):
    models = root / "baseq2" / "models" / "m"
    (models / "md5").mkdir(parents=True)
    (models / "tris.md2").write_bytes(md2_bytes(["models/m/skin.pcx"], frames=FRAMES))
    (models / "md5" / "tris.md5mesh").write_bytes(MESH)
    (models / "md5" / "tris.md5anim").write_bytes(anim())
    (models / "md5" / "skin.pcx").write_bytes(b"a skin")
    return models


def check(run, profile: str, target):
    result = run("check", "--profile", profile, target, block_bpy=True)
    lines = result.stdout.strip().splitlines()
    return result.returncode, lines[:-1], lines[-1]


def assert_one_problem(run, profile: str, root, mesh, expected: str) -> None:
    """Exactly one deviation line, for ``mesh``, starting with ``expected``; the exit status 1."""
    code, lines, summary = check(run, profile, root)
    assert code == 1 and len(lines) == 1, lines
    assert lines[0].startswith(f"{mesh}: warning: {expected}"), lines
    assert "1 with deviations" in summary


def test_good_pairs_conform(run, tmp_path):
    progs = quake(tmp_path / "q1")
    code, lines, summary = check(run, "q1-enhanced", tmp_path / "q1")
    assert (code, lines) == (0, [])
    assert summary == "checked 1 Quake re-release enhanced model(s): 1 conform, 0 with deviations, 0 with errors"
    (progs / "m_00_00.lmp").rename(progs / "m_00_00.png")     # any extension the ports try
    assert check(run, "q1-enhanced", progs / "m.md5mesh")[:2] == (0, [])
    models = quake2(tmp_path / "q2")
    code, lines, summary = check(run, "q2-enhanced", tmp_path / "q2")
    assert (code, lines) == (0, [])
    assert summary == "checked 1 Quake II remaster enhanced model(s): 1 conform, 0 with deviations, 0 with errors"
    (models / "md5" / "skin.pcx").rename(models / "md5" / "skin.tga")
    (models / "md5" / "tris.md5scale").write_text(json.dumps({"arm": {"scale_positions": True, "1": 2}}))
    assert check(run, "q2-enhanced", tmp_path / "q2")[:2] == (0, [])


Q1_BROKEN = {
    "m.mdl is missing: the ports load the MD5 only in place of it": lambda p: (p / "m.mdl").unlink(),
    "m.md5anim is missing: the ports need the anim": lambda p: (p / "m.md5anim").unlink(),
    "m.md5anim has 4 frames, m.mdl 3: the ports draw anim frame k for classic frame k, so the anim's last 1 "
    "frame(s) are never drawn; export the twin again":
        lambda p: (p / "m.md5anim").write_bytes(anim(4)),
    "m.md5anim: the anim has 3 joints, the mesh 2: ironwail, Q2PRO and FTE refuse the pair":
        lambda p: (p / "m.md5anim").write_bytes(anim(joints=("root", "arm", "hand"))),
    "m.md5anim: 1 joint is named differently in the anim (joint 1 is": lambda p: (p / "m.md5anim").write_bytes(
        anim(joints=("root", "leg"))),
    "m.md5anim: a number is not finite (nan or inf) on line 21: the import refuses the file":
        lambda p: (p / "m.md5anim").write_bytes(anim().replace(b"frame 0 {\n 0 0", b"frame 0 {\n nan 0", 1)),
    "skin m_00_00 (.png, .tga, .jpg, .pcx or .lmp) is missing": lambda p: (p / "m_00_00.lmp").unlink(),
    "skin m_00_00.lmp is not a picture the ports read": lambda p: (p / "m_00_00.lmp").write_bytes(lmp()[:-1]),
    "shader m has 1 skin(s), m.mdl 2: the ports count skins while <shader>_<skin>_00 is there and draw skin 0 "
    "for the others; add m_01_00": lambda p: (p / "m_01_00.lmp").unlink(),
}


@pytest.mark.parametrize("expected", list(Q1_BROKEN))
def test_each_broken_quake_layout_names_its_problem(run, tmp_path, expected):
    progs = quake(tmp_path)
    Q1_BROKEN[expected](progs)
    assert_one_problem(run, "q1-enhanced", tmp_path, progs / "m.md5mesh", expected)


def test_quake_mesh_outside_progs_and_unreadable_files(run, tmp_path):
    quake(tmp_path, folder="models")
    code, lines, _ = check(run, "q1-enhanced", tmp_path)
    assert code == 1 and len(lines) == 1 and "is in folder models: the ports look for progs/m.md5mesh" in lines[0]
    progs = quake(tmp_path / "other")
    (progs / "m.md5mesh").write_bytes(b"MD5Version 11\n")
    code, lines, summary = check(run, "q1-enhanced", progs)
    assert code == 1 and len(lines) == 1 and ": error: m.md5mesh: cannot be read: " in lines[0]
    assert summary.endswith("1 with errors")


Q2_BROKEN = {
    "tris.md2 (one folder up) is missing": lambda m: (m / "tris.md2").unlink(),
    "tris.md5anim is missing": lambda m: (m / "md5" / "tris.md5anim").unlink(),
    "tris.md5anim has 2 frames, tris.md2 3": lambda m: (m / "md5" / "tris.md5anim").write_bytes(anim(2)),
    "tris.md5anim: the anim has 1 joint, the mesh 2": lambda m: (m / "md5" / "tris.md5anim").write_bytes(
        anim(joints=("root",))),
    "skin models/m/md5/skin.pcx is missing: Q2PRO looks for the MD2's skin models/m/skin.pcx under md5/ "
    "(MD5_LoadSkins) and draws its no-texture checks without it":
        lambda m: (m / "md5" / "skin.pcx").unlink(),
    "tris.md5scale: not valid JSON": lambda m: (m / "md5" / "tris.md5scale").write_text("{"),
    "tris.md5scale: 1 name(s) are no joint of the anim: Q2PRO skips them, so the bones they meant do not scale: "
    "'hand'":
        lambda m: (m / "md5" / "tris.md5scale").write_text('{"hand": {"0": 2}}'),
}


@pytest.mark.parametrize("expected", list(Q2_BROKEN))
def test_each_broken_quake2_layout_names_its_problem(run, tmp_path, expected):
    models = quake2(tmp_path)
    Q2_BROKEN[expected](models)
    assert_one_problem(run, "q2-enhanced", tmp_path, models / "md5" / "tris.md5mesh", expected)


def test_a_quake2_mesh_named_outside_md5_and_json_report(run, tmp_path):
    models = quake2(tmp_path)
    (models / "md5" / "tris.md5mesh").rename(models / "tris.md5mesh")
    code, lines, _ = check(run, "q2-enhanced", models / "tris.md5mesh")
    assert code == 1 and any("lies beside tris.md2 in m/, where yquake2remaster finds it but Q2PRO does not" in x
                             for x in lines), lines
    result = run("check", "--profile", "q2-enhanced", "--json", tmp_path / "nothing", block_bpy=True)
    assert result.returncode == 2 and "neither a folder nor a .md5mesh file" in result.stderr


def test_info_finds_a_skin_under_any_extension_the_ports_try(run, tmp_path):
    """``info`` looks up skin 0 as the ports do (``.png`` before ``.lmp``), loose and inside a ``.pak``."""
    from support.archive_builders import pack_bytes
    progs = quake(tmp_path / "loose")
    (progs / "m_00_00.lmp").rename(progs / "m_00_00.png")
    out = run("info", progs / "m.md5mesh", block_bpy=True).stdout
    assert f"m_00_00.png: found {progs / 'm_00_00.png'}" in out and "MISSING" not in out
    archive = tmp_path / "pak0.pak"
    archive.write_bytes(pack_bytes([(f"progs/{p.name}", p.read_bytes()) for p in sorted(progs.iterdir())]))
    out = run("info", f"{archive}:progs/m.md5mesh", block_bpy=True).stdout
    assert "m_00_00.png: found" in out and "MISSING" not in out, out
    (progs / "m_00_00.png").unlink()
    out = run("info", progs / "m.md5mesh", block_bpy=True).stdout
    assert "m_00_00.lmp: MISSING" in out and "nor as .png, .tga, .jpg or .pcx" in out


def test_q1_enhanced_reports_a_mesh_in_an_md5_subfolder_and_where_it_belongs(run, tmp_path):
    """A mesh put in progs/md5/ (the Quake II remaster's place) is checked, not passed over: one line says
    the Quake ports look for it beside the MDL and where to move it; the rest of the pair checks out."""
    progs = quake(tmp_path)
    (progs / "md5").mkdir()
    for name in ("m.md5mesh", "m.md5anim"):
        (progs / name).rename(progs / "md5" / name)
    code, lines, summary = check(run, "q1-enhanced", tmp_path)
    assert code == 1 and len(lines) == 1, lines
    assert lines[0] == (f"{progs / 'md5' / 'm.md5mesh'}: warning: m.md5mesh is in progs/md5/ (the Quake II "
                        "remaster's layout) below progs/m.mdl: the Quake ports look for progs/m.md5mesh beside the "
                        "MDL; move it and m.md5anim up into progs/"), lines
    assert "1 with deviations" in summary


def test_q2_enhanced_names_a_mesh_beside_tris_md2_and_where_q2pro_wants_it(run, tmp_path):
    """yquake2remaster's other place, models/m/tris.md5mesh beside tris.md2, is checked: the one problem is
    that Q2PRO loads only models/m/md5/tris.md5mesh, and the line says to move mesh and anim there."""
    models = quake2(tmp_path)
    for name in ("tris.md5mesh", "tris.md5anim"):
        (models / "md5" / name).rename(models / name)
    code, lines, summary = check(run, "q2-enhanced", tmp_path)
    assert code == 1 and len(lines) == 1, lines
    assert lines[0] == (f"{models / 'tris.md5mesh'}: warning: tris.md5mesh lies beside tris.md2 in m/, where "
                        "yquake2remaster finds it but Q2PRO does not: Q2PRO loads only m/md5/tris.md5mesh with "
                        "md5/tris.md5anim; move both into m/md5/"), lines
    assert "1 with deviations" in summary
