"""``check --profile q1-enhanced`` and ``check --profile q2-enhanced`` (the MD5 row's ``check_profile``):
each ``.md5mesh`` under the inputs against what the source ports need to draw it in place of its classic
model (docs/dev/format-facts.md, "Enhanced models in the engines"). One line per problem, no Blender.

Both: the classic model is there (the ports load the MD5 only beside it), the ``.md5anim`` of the mesh's
name is there (ironwail stops with "has no poses" without it; Q2PRO needs both), mesh and anim are in the
engines' limits, their joint counts, names and parents agree (:func:`...formats.md5.limits.pair_problems`),
and the anim has the classic model's frame count (anim frame k is drawn for classic frame k).

Every mesh found is checked wherever it lies; one in the other game's place is reported with where it belongs.

- ``q1-enhanced``: ``progs/x.md5mesh`` beside ``progs/x.mdl`` (ironwail ``loadMd5Replacement``; one in
  ``progs/md5/`` is checked against the MDL above it and told to move up); each mesh
  block's skin 0, ``progs/<shader>_00_00`` with one of the ports' extensions, is there, as many skins as
  the MDL has (``<shader>_<n>_00`` counted from 00 while present, ironwail ``Mod_LoadMD5Skins``), and every ``.lmp``
  skin of the shader is a picture the ports read (``Image_LoadLMP``: exactly ``8 + width x height``
  bytes).
- ``q2-enhanced``: ``models/x/md5/tris.md5mesh`` below ``models/x/tris.md2`` (Q2PRO ``MOD_LoadMD5``; one
  beside ``tris.md2``, where yquake2remaster's ``Mod_LoadFileMD5Merge`` looks first, is checked against
  that MD2 and told that Q2PRO needs it in ``md5/``); each
  of the MD2's skins under its ``md5/`` name (``MD5_LoadSkins``), looked up from the game folder the
  MD2's skin paths start at (the stored extension, else ``.png``, ``.tga``, ``.jpg``, ``.pcx``, ``.wal``);
  a ``md5/tris.md5scale`` is valid JSON of the anim's joints and frames (``MD5_LoadScales``).
"""
from __future__ import annotations

from pathlib import Path, PurePosixPath

from ...formats.errors import FormatError
from ...formats.images.lmp import read_lmp
from ...formats.md2.codec import parse_md2
from ...formats.md5.anim import read_md5anim
from ...formats.md5.layout import QUAKE_SKIN_EXTENSIONS, md5_skin_name, quake_skin_stem
from ...formats.md5.limits import anim_problems, mesh_problems, pair_problems, unheld_numbers
from ...formats.md5.mesh import read_md5mesh
from ...formats.md5.scale import SCALE_SUFFIX, read_md5scale
from ...formats.mdl.codec import parse_mdl
from ..player_report import profile_inputs, report_players
from .enhanced_md3 import check_quake_md3, md3_twins

MESH = ".md5mesh"
QUAKE2_FOLDER = "md5"
Q2_SKIN_EXTENSIONS = (".png", ".tga", ".jpg", ".pcx", ".wal")


def _files(folder: Path) -> dict[str, Path]:
    try:
        return {p.name.lower(): p for p in folder.iterdir() if p.is_file()}
    except OSError:
        return {}


def mesh_files(inputs: list[str]) -> tuple[list[Path], list[str]]:
    """Every ``.md5mesh`` named or below a named folder, and the inputs that hold none."""
    return profile_inputs(inputs, lambda p: p.suffix.lower() == MESH, lambda p: p, f"{MESH} file",
                          "a model inside an archive")


def _read(path: Path, reader, errors: list[str]):
    try:
        return reader(path.read_bytes())
    except (FormatError, OSError) as exc:
        errors.append(f"{path.name}: cannot be read: {exc}")
        return None


def _pair(mesh_path: Path, classic: Path | None, classic_name: str, frames_of, problems: list[str],
          errors: list[str]):
    """The checks both layouts share; (mesh, anim, classic model) as read (None where absent or unreadable)."""
    mesh = _read(mesh_path, read_md5mesh, errors)
    anim_path = _files(mesh_path.parent).get((mesh_path.stem + ".md5anim").lower())
    if anim_path is None:
        problems.append(f"{mesh_path.stem}.md5anim is missing: the ports need the anim of the mesh's name beside it")
    anim = _read(anim_path, read_md5anim, errors) if anim_path is not None else None
    if classic is None:
        problems.append(f"{classic_name} is missing: the ports load the MD5 only in place of it")
    model = _read(classic, frames_of[0], errors) if classic is not None else None
    if mesh is not None:
        problems += [f"{mesh_path.name}: {p}" for p in mesh_problems(mesh) + unheld_numbers(mesh)]
    if anim is not None:
        problems += [f"{anim_path.name}: {p}" for p in anim_problems(anim) + unheld_numbers(anim)]
    if mesh is not None and anim is not None:
        problems += [f"{anim_path.name}: {p}" for p in pair_problems(mesh, anim)]
    if anim is not None and model is not None:
        count = frames_of[1](model)
        if count != anim.num_frames:
            problems.append(f"{anim_path.name} has {anim.num_frames} frames, {classic.name} {count}: the ports draw "
                            "anim frame k for classic frame k, so " + (
                                f"the classic frames from {anim.num_frames} on show another pose (Q2PRO wraps them "
                                "to the anim's first frames)" if anim.num_frames < count else
                                f"the anim's last {anim.num_frames - count} frame(s) are never drawn")
                            + "; export the twin again, one anim frame per classic frame")
    return mesh, anim, model


def _shaders(mesh, mesh_path: Path) -> list[str]:
    return list(dict.fromkeys(PurePosixPath((p.shader or mesh_path.stem).replace("\\", "/")).name
                              for p in mesh.meshes))


def check_quake(mesh_path: Path) -> tuple[list[str], list[str]]:
    """(problems, errors) of a Quake re-release enhanced model."""
    problems, errors = [], []
    home = mesh_path.parent          # where the MDL and the skins are: the mesh's folder, or above an md5/
    mdl_name = (mesh_path.stem + ".mdl").lower()
    if home.name.lower() == QUAKE2_FOLDER and mdl_name in _files(home.parent):
        home = home.parent
        problems.append(f"{mesh_path.name} is in {home.name}/{QUAKE2_FOLDER}/ (the Quake II remaster's layout) below "
                        f"{home.name}/{mesh_path.stem}.mdl: the Quake ports look for {home.name}/{mesh_path.name} "
                        f"beside the MDL; move it and {mesh_path.stem}.md5anim up into {home.name}/")
    elif home.name.lower() != "progs":
        problems.append(f"{mesh_path.name} is in folder {home.name or '.'}: the ports look for "
                        f"progs/{mesh_path.name} beside progs/{mesh_path.stem}.mdl")
    files = _files(home)
    classic = files.get(mdl_name)
    mesh, _, model = _pair(mesh_path, classic, f"{mesh_path.stem}.mdl", (parse_mdl, lambda m: len(m.frames)),
                           problems, errors)
    if mesh is None:
        return problems, errors
    for shader in _shaders(mesh, mesh_path):
        stem = quake_skin_stem(shader, 0, 0)
        if not any((stem + ext).lower() in files for ext in QUAKE_SKIN_EXTENSIONS):
            problems.append(f"skin {stem} (.png, .tga, .jpg, .pcx or .lmp) is missing: the ports draw shader "
                            f"{shader} without a skin")
        elif model is not None and _skin_count(files, shader) < len(model.skins):
            have = _skin_count(files, shader)
            problems.append(f"shader {shader} has {have} skin(s), {classic.name} {len(model.skins)}: the ports count "
                            f"skins while <shader>_<skin>_00 is there and draw skin 0 for the others; add "
                            f"{quake_skin_stem(shader, have, 0)}")
        for name in sorted(n for n in files if n.startswith(f"{shader}_".lower()) and n.endswith(".lmp")):
            try:
                read_lmp(files[name].read_bytes())
            except (FormatError, OSError) as exc:
                problems.append(f"skin {files[name].name} is not a picture the ports read: {exc}")
    return problems, errors


def _skin_count(files: dict[str, Path], shader: str) -> int:
    """Skins the ports find for ``shader``: counted from 00 while ``<shader>_<n>_00`` exists in one of their
    formats (ironwail ``Mod_LoadMD5Skins``); a skin number past the count draws skin 0 (``R_DrawAliasModel``)."""
    count = 0
    while any((quake_skin_stem(shader, count, 0) + ext).lower() in files for ext in QUAKE_SKIN_EXTENSIONS):
        count += 1
    return count


def _game_root(md2_path: Path, stored: str) -> Path | None:
    """The folder an MD2's stored skin path starts at: the ancestor of the MD2 whose child is the
    path's first folder (``models``, ``players``)."""
    first = stored.replace("\\", "/").split("/", 1)[0].lower()
    for folder in md2_path.parents:
        if folder.name.lower() == first:
            return folder.parent
    return None


def _find_q2_skin(root: Path, name: str) -> Path | None:
    wanted = root / name
    files = _files(wanted.parent)
    for candidate in [wanted.name] + [wanted.stem + ext for ext in Q2_SKIN_EXTENSIONS]:
        if candidate.lower() in files:
            return files[candidate.lower()]
    return None


def check_quake2(mesh_path: Path) -> tuple[list[str], list[str]]:
    """(problems, errors) of a Quake II remaster enhanced model."""
    problems, errors = [], []
    folder, name, stem = mesh_path.parent, mesh_path.name, mesh_path.stem
    md2_name = (stem + ".md2").lower()
    if folder.name.lower() == QUAKE2_FOLDER:
        classic, classic_name = _files(folder.parent).get(md2_name), f"{stem}.md2 (one folder up)"
    else:
        classic, classic_name = _files(folder).get(md2_name), f"{stem}.md2 (beside it)"
        where = folder.name or "."
        if classic is not None:        # yquake2remaster's first place (Mod_LoadFileMD5Merge), not Q2PRO's
            problems.append(f"{name} lies beside {classic.name} in {where}/, where yquake2remaster finds it but "
                            f"Q2PRO does not: Q2PRO loads only {where}/{QUAKE2_FOLDER}/{name} with "
                            f"{QUAKE2_FOLDER}/{stem}.md5anim; move both into {where}/{QUAKE2_FOLDER}/")
        else:
            problems.append(f"{name} is in {where}/, not in a folder {QUAKE2_FOLDER} below {stem}.md2: Q2PRO loads "
                            f"<folder>/{QUAKE2_FOLDER}/{name} for <folder>/{stem}.md2; move it and {stem}.md5anim "
                            f"into the {QUAKE2_FOLDER}/ folder beside the MD2 it replaces")
    _, anim, model = _pair(mesh_path, classic, classic_name, (parse_md2, lambda m: m.num_frames), problems, errors)
    for stored in model.skins if model is not None else []:
        wanted = md5_skin_name(stored)
        root = _game_root(classic, stored)
        if root is None or _find_q2_skin(root, wanted) is None:
            problems.append(f"skin {wanted} is missing: Q2PRO looks for the MD2's skin {stored} under md5/ "
                            "(MD5_LoadSkins) and draws its no-texture checks without it; put the skin there")
    scale = _files(mesh_path.parent).get((mesh_path.stem + SCALE_SUFFIX).lower())
    if scale is not None and anim is not None:
        try:
            problems += [f"{scale.name}: {w}" for w in read_md5scale(scale.read_bytes(), list(anim.joint_names),
                                                                      anim.num_frames).warnings]
        except OSError as exc:
            errors.append(f"{scale.name}: cannot be read: {exc}")
    return problems, errors


class _Profile:
    """Every ``.md5mesh`` under the inputs is checked, wherever it lies: one in the other game's place is
    reported with where it should go (not passed over); with ``md3``, every ``.md3`` beside an ``.mdl`` too
    (:mod:`.enhanced_md3`)."""
    def __init__(self, name: str, noun: str, text: str, check, md3: bool = False) -> None:
        self.PROFILE, self.HELP, self.noun, self.check, self.md3 = name, f"{name}: {text}", noun, check, md3

    def run(self, args, prog: str) -> int:
        meshes, missing = mesh_files(args.inputs)
        items = [(str(m), lambda m=m: self.check(m)) for m in meshes]
        if self.md3:
            twins = md3_twins(args.inputs)
            found = list(dict.fromkeys(m for models in twins.values() for m in models))
            items += [(str(m), lambda m=m: check_quake_md3(m)) for m in found]
            missing = [line for line in missing if not any(line.startswith(f"{text}: ") for text, models in
                                                            twins.items() if models)]
        return report_players(args, prog, self.PROFILE, self.noun, items, missing)


QUAKE = _Profile("q1-enhanced", "Quake re-release enhanced model",
                 "check each .md5mesh as the Quake re-release's enhanced model (progs/x.mdl and x.md5anim "
                 "beside it, frame and joint counts, skins progs/<shader>_00_00) and each .md3 beside an .mdl "
                 "as its enhanced MD3 (frame count, x.md3_<n>.skin naming its surfaces and images)", check_quake,
                 md3=True)
QUAKE2 = _Profile("q2-enhanced", "Quake II remaster enhanced model",
                  "check each .md5mesh as the Quake II remaster's enhanced model (md5/x.md5mesh below x.md2, "
                  "x.md5anim, frame and joint counts, the MD2's skins under md5/, x.md5scale)", check_quake2)
PROFILES = (QUAKE, QUAKE2)
