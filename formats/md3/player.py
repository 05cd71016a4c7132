"""What a Quake III player folder needs for the game to load and draw it (ioquake3 cgame ``cg_players.c``),
as lines for people; bpy-free, shared by ``check --profile q3-player``.

* ``lower.md3``, ``upper.md3``, ``head.md3`` (``CG_RegisterClientModelname`` fails without one, and the
  game falls back to its default player).
* Tags: the torso is drawn on lower's ``tag_torso``, the head on upper's ``tag_head``, the weapon on
  upper's ``tag_weapon`` (``CG_PositionRotatedEntityOnTag``, ``CG_AddPlayerWeapon``); ``R_LerpTag`` of a
  missing tag gives the identity, so the part sits at its parent's origin.
* ``animation.cfg`` parses (``CG_ParseAnimationFile``; else the player does not load) and each animation's
  frames lie in its models: BOTH in lower and upper, TORSO in upper, LEGS in lower after the skip
  (:meth:`.animation_cfg.AnimationCfg.model_first_frame`); a frame past the end is drawn as frame 0
  (renderergl1 ``R_AddMD3Surfaces``: "no such frame").
* Skin sets: every ``<part>_<set>.skin`` has its two other parts (``CG_RegisterClientSkin`` fails when
  one is missing), the set ``default`` exists, and a set's skin names every surface of its part (a surface
  it does not name is drawn with the default shader); each set has ``icon_<set>`` (.tga, .jpg, .png:
  ``CG_RegisterClientModelname`` fails without ``ci->modelIcon``).
* The shaders the skins name are found (:func:`skin_image_problems`) and the levels of detail load and
  match their parts (:func:`lod_problems`): one line for each kind of problem, its items counted and named.
"""
from __future__ import annotations

from collections.abc import Callable

from ..animations import Animation
from ..report_lines import Message
from .animation_cfg import LEGS_WALKCR, REQUIRED_ANIMATIONS, TORSO_GESTURE, AnimationCfg, Md3Animation
from .records import MD3_MAX_LODS, Md3Model
from .shader_lookup import IMAGE_EXTENSIONS
from .skin_file import SkinFile, engine_surface_name

PARTS = ("lower", "upper", "head")
TAGS = {"lower": ("tag_torso",), "upper": ("tag_head", "tag_weapon")}
ICON_EXTENSIONS = (".tga", ".jpg", ".png")


PART_KINDS = {"lower": ("both", "legs"), "upper": ("both", "torso")}     # the animations each part plays


def part_animations(cfg: AnimationCfg | None, part: str, num_frames: int) -> list[tuple[Animation, Md3Animation]]:
    """The animations of ``part`` (``lower``, ``upper``; the head has none) in its own frame numbers
    (the legs' after the skip), cut to its ``num_frames``, each with its line of ``cfg``."""
    if cfg is None:
        return []
    out = []
    for index, anim in enumerate(cfg.animations):
        if anim.part not in PART_KINDS.get(part, ()):
            continue
        first = cfg.model_first_frame(index)
        last = min(first + max(abs(anim.num), 1) - 1, num_frames - 1)
        if 0 <= first < num_frames:
            out.append((Animation(anim.name, first, last), anim))
    return out


def lod_problems(models: dict[str, Md3Model], lods: dict[str, Md3Model | None]) -> list[str]:
    """One line per kind of problem with the parts' levels of detail (``lods``: ``lower_1.md3`` ... by file
    name, None for one that cannot be read), from how ioquake3 loads and draws them:

    * ``R_RegisterMD3`` (renderergl1 ``tr_model.c``; renderergl2 alike) reads ``x_2``, ``x_1``, then ``x``,
      skipping a missing file and counting each one loaded: with ``x_2`` but no ``x_1`` it counts two levels
      and leaves level 1 empty, which ``R_ComputeLOD`` picks at a distance (always with ``r_lodbias 1``) and
      ``R_AddMD3Surfaces`` draws through a null model: the game crashes.
    * ``R_AddMD3Surfaces`` checks the entity's frame against level 0's frame count only, then reads the chosen
      level's frame of that number (``R_CullModel``'s bounds, the surfaces' vertices): a level with fewer
      frames is read past its end; one with more plays its own frames of the part's numbers.
    * A level's surfaces take their shaders from the part's skin by name (lower-cased, a trailing ``_1`` cut
      by ``R_LoadMD3``): a surface the part has not is one the skins do not name, drawn with the default shader.
    * Tags come from level 0 alone (``R_LerpTag`` reads ``model->md3[0]``): a level's tags are never used,
      so they are not compared.
    * Each part is a model of its own (``CG_RegisterClientModelname`` registers the three files, and
      ``R_ComputeLOD`` spreads the distances over each model's own count of levels): a part without the
      levels the other parts have loads, and is drawn finer than they are at a distance; that is what an
      export without *Levels of Detail* leaves beside the other parts' old files, so it is said.
    """
    out = []
    numbers = {part: [n for n in range(1, MD3_MAX_LODS) if f"{part}_{n}.md3" in lods] for part in PARTS
               if part in models}
    gaps = {part: [n for n in range(1, len(found) + 1) if n not in found] for part, found in numbers.items()}
    skipped = [f"{part}_{max(numbers[part])}.md3 without {part}_{n}.md3" for part, empty in gaps.items() for n in empty]
    if skipped:
        out.append(f"{len(skipped)} level{_s(skipped)} of detail without the one before ({', '.join(skipped)}): "
                   "the game counts the levels it finds, leaves the missing one empty and crashes drawing the part at "
                   "a distance; add the missing file or delete the later one")
    lacking = [f"{part}_{n}.md3" for n in range(1, MD3_MAX_LODS) for part, found in numbers.items()
               if n not in found and not gaps[part] and any(n in other for other in numbers.values())]
    if lacking:
        out.append(f"{len(lacking)} level{_s(lacking)} of detail missing that the other parts have "
                   f"({', '.join(lacking)}): each part picks among its own levels, so at a distance those parts are "
                   "drawn finer than the others (an export without Levels of Detail leaves the other parts' old "
                   "files); write every part's levels of detail, or delete them all")
    fewer: list[str] = []
    more: list[str] = []
    extra = []
    for name, lod in sorted(lods.items()):
        stem = name.partition("_")[0]
        part = models.get(stem)
        if part is None or lod is None:
            continue
        counted = f"{name} has {lod.num_frames} where {stem}.md3 has {part.num_frames}"
        if lod.num_frames != part.num_frames:
            (fewer if lod.num_frames < part.num_frames else more).append(counted)
        own = {engine_surface_name(x.name) for x in part.surfaces}
        theirs = sorted({engine_surface_name(x.name) for x in lod.surfaces} - own)
        if theirs:
            extra.append(f"{name}: {', '.join(theirs)}")
    if fewer:
        out.append(f"{len(fewer)} level{_s(fewer)} of detail with fewer frames than the part ({'; '.join(fewer)}): "
                   "the game checks a frame against the part's count and draws the level's frame of that number, "
                   "reading past the level's end (wrong poses, or a crash); write the levels of detail again from "
                   "the part")
    if more:
        out.append(f"{len(more)} level{_s(more)} of detail with more frames than the part ({'; '.join(more)}): at "
                   "a distance the game draws the level's frames of the part's numbers, other poses unless they "
                   "were made with the part's; write the levels of detail again from the part")
    if extra:
        out.append(f"{len(extra)} level{_s(extra)} of detail with surfaces the part has not ({'; '.join(extra)}): "
                   "at a distance the game draws them with the default shader, as the skins do not name them; "
                   "name them as the part's surfaces")
    return out


def _some(names: list[str], shown: int = 2) -> str:
    """``a.skin, b.skin and 3 more``."""
    if len(names) <= shown + 1:
        return ", ".join(names)
    return ", ".join(names[:shown]) + f" and {len(names) - shown} more"


def _s(items: list) -> str:
    return "" if len(items) == 1 else "s"


def frame_problems(models: dict[str, Md3Model], cfg: AnimationCfg) -> list[str]:
    """Animations whose frames are past the end of a model that plays them."""
    out = []
    for index, anim in enumerate(cfg.animations):
        parts = {"both": ("lower", "upper"), "torso": ("upper",), "legs": ("lower",)}[anim.part]
        first = cfg.model_first_frame(index) if index < REQUIRED_ANIMATIONS else anim.first
        last = first + max(abs(anim.num), 1) - 1
        for part in parts:
            model = models.get(part)
            if model is not None and (first < 0 or last >= model.num_frames):
                out.append(f"{anim.name}: frames {first}-{last} of {part}.md3, which has {model.num_frames}: the "
                           "game draws frame 0 instead (R_AddMD3Surfaces)")
    return out


SHADER_KIND = "{n} shader{s} named in the skins not found, drawn with the game's default shader"   # one line
_WHERE = (f"(the path with {', '.join('.' + e for e in IMAGE_EXTENSIONS[:-1])} or .{IMAGE_EXTENSIONS[-1]})")
_DO = "put the image at that path in the game folder or a pk3, or name an existing one in the skin"


def missing_shaders(skins: dict[str, SkinFile], has_image: Callable[[str], bool]) -> dict[str, list[str]]:
    """Each shader the ``.skin`` files name that ``has_image`` does not find (a shader script's name, or an
    image under the file names ``R_LoadImage`` tries, :func:`.shader_lookup.image_candidates`) -> the skins
    naming it: the game's ``RE_RegisterSkin`` -> ``R_FindShader`` finds neither and draws those surfaces with
    its default shader."""
    missing: dict[str, list[str]] = {}
    for name, skin in sorted(skins.items()):
        for entry in skin.entries:
            if entry.shader.strip() and not has_image(entry.shader):
                files = missing.setdefault(entry.shader, [])
                if name not in files:
                    files.append(name)
    return missing


def skin_image_problems(skins: dict[str, SkinFile], has_image: Callable[[str], bool]) -> list[str]:
    """The check's one line for the shaders :func:`missing_shaders` finds, counted, each with its skins."""
    missing = missing_shaders(skins, has_image)
    if not missing:
        return []
    named = "; ".join(f"{shader} ({_some(files)})" for shader, files in missing.items())
    n = len(missing)
    return [f"{n} shader{'s' if n > 1 else ''} the skins name {'are' if n > 1 else 'is'} not found: {named}; no shader "
            f"script defines {'them' if n > 1 else 'it'} and no image lies where the game looks {_WHERE}, so the "
            f"game draws those surfaces with its default shader: {_DO}"]


def skin_image_messages(skins: dict[str, SkinFile], has_image: Callable[[str], bool],
                        prefix: str = "") -> list[Message]:
    """The export's line per shader :func:`missing_shaders` finds, each one item of :data:`SHADER_KIND` (a
    report folds them into one line, each shader's own below it: short lines, as Blender prints a report
    of more than about 1000 bytes cut off)."""
    return [Message(f"{prefix}{_some(files)} name{'s' if len(files) == 1 else ''} shader {shader}, which no shader "
                    f"script defines and which has no image where the game looks {_WHERE}: {_DO}",
                    prefix + SHADER_KIND, shader)
            for shader, files in missing_shaders(skins, has_image).items()]


def player_problems(models: dict[str, Md3Model], cfg: AnimationCfg | None, skins: dict[str, SkinFile],
                    files: list[str]) -> list[str]:
    """The folder's deviations from what the game needs (see the module docstring). ``skins``: file name
    (``lower_default.skin``) -> parsed skin; ``files``: every file name in the folder."""
    out = [f"{part}.md3 is missing: the game does not load the player" for part in PARTS if part not in models]
    for part, names in TAGS.items():
        model = models.get(part)
        if model is None:
            continue
        for tag in names:
            if tag not in model.tag_names:
                out.append(f"{part}.md3 has no {tag}: what hangs on it is drawn at the part's origin")
    if cfg is None:
        out.append("animation.cfg is missing or unreadable: the game does not load the player")
    else:
        out += frame_problems(models, cfg)
        if cfg.animations[LEGS_WALKCR].first < cfg.animations[TORSO_GESTURE].first:
            out.append("LEGS_WALKCR starts before TORSO_GESTURE: lower.md3's frames are numbered from a negative skip")
    sets: dict[str, set[str]] = {}
    for name in skins:
        part, _, rest = name.lower().partition("_")
        if part in PARTS and rest.endswith(".skin"):
            sets.setdefault(rest[:-5], set()).add(part)
    if "default" not in sets:
        out.append("no default skin set (lower_default.skin ...): the game's default skin does not load")
    lowered = {f.lower() for f in files}
    for name, parts in sorted(sets.items()):
        missing = [p for p in PARTS if p not in parts]
        if missing:
            out.append(f"skin set {name}: no {', '.join(f'{p}_{name}.skin' for p in missing)}: the game refuses the set")
        if not any(f"icon_{name}{ext}" in lowered for ext in ICON_EXTENSIONS):
            out.append(f"skin set {name}: no icon_{name}.tga (or .jpg, .png): the game refuses the player in it")
        for part in (p for p in PARTS if p in parts):         # in the parts' order, not the set's (hash) order
            model, skin = models.get(part), _skin(skins, f"{part}_{name}.skin")
            if model is None or skin is None:
                continue
            named = {e.surface for e in skin.entries}
            bare = [s.name for s in model.surfaces if engine_surface_name(s.name) not in named]
            if bare:
                out.append(f"skin set {name}: {part}_{name}.skin names no shader for {len(bare)} surface(s) "
                           f"({', '.join(bare[:3])}): drawn with the default shader")
    return out


def _skin(skins: dict[str, SkinFile], name: str) -> SkinFile | None:
    return next((skin for key, skin in skins.items() if key.lower() == name), None)
