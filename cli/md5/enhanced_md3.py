"""``check --profile q1-enhanced`` on an enhanced MD3: ``progs/x.md3`` beside ``progs/x.mdl``, read as
ironwail loads it in place of the MDL (``Quake/gl_model.c``; the manual's Enhanced models page):

- Frames: the entity's frame number picks the MD3's frame (``Mod_LoadMD3Model`` takes ``numFrames``), and
  a number past them is drawn as frame 0 ("no such frame"), so the MD3 has the MDL's frame count.
- Skins: ``x.md3_<n>.skin``, else ``x_<n>.skin``, for n = 0, 1, ... until one is missing
  (``Mod_LoadMD3_ValidateAndCacheSkinPath``). A file counts only when its surface names, as a set, are
  exactly the MD3's, compared letter case and all (``Mod_ValidateSkinFile``: a header line is skipped when
  the first comma comes after the first line break). Each ``surface,path`` line's image is looked up with
  the extension dropped (``COM_StripExtension``, ``Image_LoadImage``) under the game folder; a skin with no
  image found does not count. The MDL's skin numbers past the counted skins show skin 0.
"""
from __future__ import annotations

from pathlib import Path

from ...formats.errors import FormatError
from ...formats.md3.codec import read_md3
from ...formats.md5.layout import QUAKE_SKIN_EXTENSIONS
from ...formats.mdl.codec import parse_mdl
from ..player_report import profile_inputs

MD3 = ".md3"


def md3_twins(inputs: list[str]) -> dict[str, list[Path]]:
    """Per input, every ``.md3`` with an ``.mdl`` of its name beside it, named or below a named folder (an
    MD3 of Quake III's is not an enhanced model: it is left alone); each folder listed once."""
    listed: dict[Path, set[str]] = {}

    def twin(path: Path) -> bool:
        if path.suffix.lower() != MD3:
            return False
        if path.parent not in listed:
            listed[path.parent] = {p.name.lower() for p in path.parent.iterdir()}
        return path.stem.lower() + ".mdl" in listed[path.parent]
    return {text: profile_inputs([text], twin, lambda p: p, f"{MD3} file", "a model inside an archive")[0]
            for text in inputs}


def skin_lines(text: str) -> list[tuple[str, str]]:
    """(surface, image path) of each line with a comma, the header line skipped as ironwail skips it."""
    first_break, first_comma = text.find("\n"), text.find(",")
    if first_break >= 0 and first_comma > first_break:
        text = text[first_break + 1:]
    pairs = []
    for line in text.split("\n"):
        surface, comma, path = line.strip().partition(",")
        if comma:
            pairs.append((surface, path.strip().rstrip("\r")))
    return pairs


def _image_found(game: Path, path: str) -> bool:
    stem = path.replace("\\", "/").rsplit(".", 1)[0] if "." in path.rsplit("/", 1)[-1] else path
    return any((game / (stem + extension)).is_file() for extension in QUAKE_SKIN_EXTENSIONS)


def _skin_problems(path: Path, surfaces: set[str], wanted: int) -> list[str]:
    """Why fewer skins than ``wanted`` (the MDL's) are drawn: files missing, naming other surfaces, images absent."""
    problems, game, counted = [], path.parent.parent, 0
    while True:
        names = [path.with_name(f"{path.name}_{counted}.skin"), path.with_name(f"{path.stem}_{counted}.skin")]
        files = [name for name in names if name.is_file()]
        if not files:
            break
        pairs = skin_lines(files[0].read_text(encoding="latin-1"))
        named = {surface for surface, _ in pairs}
        if named != surfaces:
            problems.append(f"{files[0].name} names the surfaces {', '.join(sorted(named)) or 'none'}, the MD3 has "
                            f"{', '.join(sorted(surfaces))}: ironwail uses a .skin only when they are the same, letter "
                            "case and all (Mod_ValidateSkinFile), and stops counting skins there; name every surface")
            break
        absent = [image for _, image in pairs if not _image_found(game, image)]
        if len(absent) == len(pairs):
            problems.append(f"{files[0].name}: no image it names is there ({absent[0]}, with any of "
                            f"{', '.join(QUAKE_SKIN_EXTENSIONS)} under {game.name or '.'}/): ironwail counts no skin "
                            f"{counted}")
            break
        if absent:
            problems.append(f"{files[0].name}: {len(absent)} of its images are not there ({absent[0]} ...): those "
                            "surfaces are drawn without a skin")
        counted += 1
    if counted < wanted and not problems:
        problems.append(f"{path.name} has {counted} skin file(s), {path.stem}.mdl {wanted} skins: ironwail counts "
                        f"{path.name}_<n>.skin from 0 while one is there and draws skin 0 for the others; add "
                        f"{path.name}_{counted}.skin")
    return problems


def check_quake_md3(path: Path) -> tuple[list[str], list[str]]:
    """(problems, errors) of an enhanced MD3 beside its MDL."""
    problems: list[str] = []
    mdl_path = next((p for p in path.parent.iterdir() if p.name.lower() == path.stem.lower() + ".mdl"), None)
    try:
        model = read_md3(path.read_bytes())
        mdl = parse_mdl(mdl_path.read_bytes()) if mdl_path is not None else None
    except (FormatError, OSError) as exc:
        return problems, [f"{path.name}: cannot be read: {exc}"]
    if path.parent.name.lower() != "progs":
        problems.append(f"{path.name} is in folder {path.parent.name or '.'}: the ports look for progs/{path.name} "
                        f"beside progs/{path.stem}.mdl")
    if mdl is None:
        return problems + [f"{path.stem}.mdl is missing: the ports load the MD3 only in place of it"], []
    frames = len(mdl.frames)
    if model.num_frames != frames:
        problems.append(f"{path.name} has {model.num_frames} frames, {mdl_path.name} {frames}: ironwail draws MD3 "
                        "frame k for the MDL's frame k, " + (
                            f"frame 0 for the MDL's frames from {model.num_frames} on" if model.num_frames < frames
                            else f"never the MD3's last {model.num_frames - frames}")
                        + "; export the Enhanced MD3 again with the MDL")
    problems += _skin_problems(path, {s.name for s in model.surfaces}, len(mdl.skins))
    return problems, []
