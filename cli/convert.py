"""``convert``: one model in, one file out, through the extension's own operators inside ``bpy``.

A worker process (:func:`.worker.worker_main`) loads this package into ``bpy`` the way Blender
loads an installed extension (:func:`enable_package`), then for each :class:`ConvertJob` it empties the
scene (:mod:`.scene_reset`), runs the import operator of the source's row in the table of formats (``import_scene.md2`` ...,
``formats/table.py``) and writes the target: the export operator of the target's row
(``export_scene.md2`` ...), Blender's bundled glTF exporter (``.glb``: shape keys as
morph targets, their animation as ``weights`` channels), or ``save_as_mainfile`` (``.blend``).

Options travel as :class:`OptionRequest` keyed by operator property name and are checked against
the operator's own RNA properties, so the command line takes exactly what the dialogs offer.
``fps`` bakes a skeletal (MS3D) animation at another rate before export: every action's keys and
the scene's markers are stretched about ``frame_start`` and the scene range and rate set to
match, so the frame-per-scene-frame exporters sample it at that rate. MD2 and MDL frames are
named one by one and always convert one to one.
"""
from __future__ import annotations

import atexit
import os
import shutil
import sys
import tempfile
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from ..formats import table
from ..formats.message_text import quoted
from ..formats.report_lines import fold
from .glb_clips import animations_as_tracks

PACKAGE_DIR = Path(__file__).resolve().parents[1]
REPO_MODULE = "classic_models_cli"
SCENE_TARGETS = {"blend": "wm.save_as_mainfile", "glb": "export_scene.gltf"}   # Blender's own writers
# Keyword arguments for the glTF exporter, all present in Blender 4.2's and 5.0's io_scene_gltf2.
GLTF_DEFAULTS = {"export_format": "GLB", "export_morph": True, "export_morph_animation": True,
                 "export_animations": True, "export_animation_mode": "ACTIONS", "use_selection": False}
# After an import the scene holds just that model: export all of it, whatever the importer selected.
MODEL_EXPORT_DEFAULTS = {"use_selection": False}
NO_DRAWABLE = "no drawable triangles"   # how the warning for an output without geometry starts
ALONE_IMPORT = {"anim_mesh": "SKELETON"}   # import options of a side file converted alone (_alone_import)
_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


def targets() -> tuple[str, ...]:
    """What ``convert --to`` writes: every exportable row of the table, then .blend and .glb."""
    return (*(row.key for row in table.exportable()), *SCENE_TARGETS)


def frame_formats() -> tuple[str, ...]:
    """The formats whose frames are named one by one in the file: converted one to one, never resampled."""
    return tuple(row.key for row in table.FORMATS if row.named_frames)


def export_operator(target: str) -> str:
    return SCENE_TARGETS[target] if target in SCENE_TARGETS else table.row(target).export_operator


class ConvertError(Exception):
    """A job that cannot be done; the message is what the user reads."""


@dataclass
class OptionRequest:
    """A value for an operator property, as the user gave it.

    ``flag`` names the command-line option in messages. ``strict`` options (``--import-option``,
    ``--export-option``) fail the job when the operator has no such property; the named shortcuts
    (``--dither``...) only warn, as they are shared by operators that may not all have them.
    """
    flag: str
    value: object
    strict: bool = False


@dataclass
class ConvertSettings:
    target: str
    import_options: dict[str, OptionRequest] = field(default_factory=dict)
    export_options: dict[str, OptionRequest] = field(default_factory=dict)
    fps: float | None = None


@dataclass
class ConvertJob:
    source: str
    source_format: str
    output: str
    settings: ConvertSettings


@dataclass
class ConvertResult:
    source: str
    output: str | None
    ok: bool
    warnings: list[str] = field(default_factory=list)         # every message (printed with --verbose)
    error: str | None = None
    seconds: float = 0.0
    skipped: bool = False
    empty: bool = False      # the model has no drawable triangles: the output holds no geometry
    lines: list[str] = field(default_factory=list)            # the warnings, one line per kind of problem

    def __post_init__(self) -> None:
        if self.warnings and not self.lines:          # made from messages alone: fold them here
            self.lines = [f.line for f in fold(self.warnings, None)]


def extension_id() -> str:
    with open(PACKAGE_DIR / "blender_manifest.toml", "rb") as stream:
        return tomllib.load(stream)["id"]


def enable_package(resources: Path | None = None) -> str:
    """Enable this package in ``bpy`` as an installed extension; returns its module name.

    Blender's user resources go to ``resources`` (a new temporary folder by default; set before
    ``import bpy``), and a local extension repository is registered whose folder holds a link
    named after the manifest ``id`` to this package, as ``tools/load_extension.py`` does for a
    checkout.
    """
    if resources is None:
        resources = Path(tempfile.mkdtemp(prefix="classic_models_cli_"))
        atexit.register(shutil.rmtree, resources, True)
    if "bpy" not in sys.modules:
        os.environ["BLENDER_USER_RESOURCES"] = str(resources / "blender")
    import bpy

    import addon_utils  # on sys.path once bpy is imported

    ext_id = extension_id()
    repo_dir = resources / "repo"
    repo_dir.mkdir()
    try:
        (repo_dir / ext_id).symlink_to(PACKAGE_DIR, target_is_directory=True)
    except OSError as exc:
        if PACKAGE_DIR.name != ext_id:
            raise ConvertError(f"cannot link {PACKAGE_DIR} into a Blender extension repository: {exc}") from exc
        repo_dir = PACKAGE_DIR.parent
    repo = bpy.context.preferences.extensions.repos.new(
        name=REPO_MODULE, module=REPO_MODULE, custom_directory=str(repo_dir), source="USER")
    repo.enabled = True
    module = f"bl_ext.{repo.module}.{ext_id}"
    errors: list[BaseException] = []
    addon_utils.enable(module, default_set=True, handle_error=errors.append)
    if errors or module not in bpy.context.preferences.addons:
        reason = f": {errors[0]}" if errors else ""
        raise ConvertError(f"could not enable the extension {module}{reason}")
    return module


def has_operator(path: str) -> bool:
    """Whether operator ``path`` (``import_scene.md2``) is registered: one look-up of its RNA type
    (``dir(bpy.ops.import_scene)`` lists every operator of the group: half a millisecond a call)."""
    import bpy
    group, name = path.split(".")
    try:
        getattr(getattr(bpy.ops, group), name).get_rna_type()
    except KeyError:
        return False
    return True


def _operator(path: str):
    import bpy
    if not has_operator(path):
        raise ConvertError(f"this Blender has no operator {path}")
    group, name = path.split(".")
    return getattr(getattr(bpy.ops, group), name)


def _coerce(prop, value: object, flag: str) -> object:
    """``value`` (a string from the command line, or already typed) as the property's type."""
    if not isinstance(value, str):
        return value
    kind = prop.type
    try:
        if getattr(prop, "is_array", False) and kind in ("BOOLEAN", "INT", "FLOAT"):
            return tuple(_coerce_scalar(kind, part.strip()) for part in value.split(","))
        if kind in ("BOOLEAN", "INT", "FLOAT"):
            return _coerce_scalar(kind, value)
    except ValueError as exc:
        raise ConvertError(f"{flag}: {exc}") from exc
    if kind == "ENUM":
        identifiers = {item.identifier for item in prop.enum_items}
        parts = [part.strip() for part in value.split(",")] if prop.is_enum_flag else [value]
        fixed = [part.upper().replace("-", "_") if part.upper().replace("-", "_") in identifiers else part
                 for part in parts]
        if identifiers and any(part not in identifiers for part in fixed):
            raise ConvertError(f"{flag}: {quoted(value)} is not one of {', '.join(sorted(identifiers))}")
        return set(fixed) if prop.is_enum_flag else fixed[0]
    if kind == "STRING":
        return value
    raise ConvertError(f"{flag}: a {kind.lower()} property cannot be set from the command line")


def _coerce_scalar(kind: str, text: str) -> object:
    if kind == "BOOLEAN":
        if text.lower() in _TRUE:
            return True
        if text.lower() in _FALSE:
            return False
        raise ValueError(f"{quoted(text)} is not a boolean (true/false)")
    if kind == "INT":
        return int(text)
    return float(text)


def operator_kwargs(path: str, requests: dict[str, OptionRequest],
                    defaults: dict[str, object] | None = None) -> tuple[dict[str, object], list[str]]:
    """Keyword arguments for operator ``path``: ``defaults`` it has, then the requests it has.

    One flag may ask for several property names (``--no-skins``: ``load_skins`` or ``load_images``);
    it is reported as ignored only when the operator has none of them.
    """
    props = _operator(path).get_rna_type().properties
    settable = [name for name in props.keys() if name != "rna_type"]
    kwargs = {name: value for name, value in (defaults or {}).items() if name in settable}
    applied: dict[str, bool] = {}
    for name, request in requests.items():
        if name in settable:
            kwargs[name] = _coerce(props[name], request.value, request.flag)
        elif request.strict:
            raise ConvertError(f"{request.flag}: {path} has no option {quoted(name)} "
                               f"(it has: {', '.join(sorted(settable))})")
        applied[request.flag] = applied.get(request.flag, False) or name in settable
    warnings = [f"{flag} does not apply to {path}; ignored" for flag, used in applied.items() if not used]
    return kwargs, warnings


def _run_operator(path: str, **kwargs) -> set[str]:
    try:
        return _operator(path)(**kwargs)
    except RuntimeError as exc:
        raise ConvertError(operator_message(exc)) from exc
    except TypeError as exc:
        raise ConvertError(f"{path}: {exc}") from exc


def operator_message(exc: RuntimeError) -> str:
    """The reports an operator raised, without Blender's ``Error: `` prefixes."""
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    return "; ".join(line.removeprefix("Error: ") for line in lines) or "unknown error"


def _action_fcurves(action) -> list:
    """Every F-curve of ``action``: slotted actions (4.4+) through their channel bags."""
    curves = [fcurve for layer in getattr(action, "layers", ()) for strip in layer.strips
              for bag in getattr(strip, "channelbags", ()) for fcurve in bag.fcurves]
    if not curves and hasattr(action, "fcurves"):
        curves = list(action.fcurves)
    return curves


def retime_scene(scene, fps: float) -> float:
    """Play the scene's animation at ``fps`` scene frames per second; returns the stretch factor.

    The same seconds of animation then cover ``fps / old_fps`` times as many scene frames, so an
    exporter that writes one frame per scene frame bakes it at ``fps``.
    """
    import bpy
    old = scene.render.fps / scene.render.fps_base
    factor = fps / old
    if abs(factor - 1.0) < 1e-9:
        return 1.0
    start = scene.frame_start

    def stretch(frame: float) -> float:
        return start + (frame - start) * factor

    for action in bpy.data.actions:
        for fcurve in _action_fcurves(action):
            for point in fcurve.keyframe_points:
                point.co.x = stretch(point.co.x)
                point.handle_left.x = stretch(point.handle_left.x)
                point.handle_right.x = stretch(point.handle_right.x)
            fcurve.update()
    for marker in scene.timeline_markers:
        marker.frame = round(stretch(marker.frame))
    scene.frame_end = max(start, round(stretch(scene.frame_end)))
    scene.render.fps = max(1, round(fps))
    scene.render.fps_base = scene.render.fps / fps
    return factor


def convert(job: ConvertJob, empty_scene: Callable[[], object] | None = None) -> list[str]:
    """Import ``job.source`` into an empty scene and write ``job.output``; returns warnings.

    ``empty_scene`` empties the scene first (a worker's :meth:`.scene_reset.SceneReset.clean`); by
    default the empty home file is read."""
    import bpy
    settings = job.settings
    importer = table.row(job.source_format).import_operator
    if not has_operator(importer):
        raise ConvertError(f"this version of the extension cannot import {job.source_format.upper()} "
                           f"(no {importer} operator)")
    if empty_scene is None:
        bpy.ops.wm.read_homefile(use_empty=True)
    else:
        empty_scene()
    warnings: list[str] = []
    # one file in, one file out: a player's weapon models convert on their own (--import-option load_weapons=true),
    # and a player's part is assembled with the rest of the player only where the output holds the player
    kwargs, notes = operator_kwargs(importer, settings.import_options,
                                    defaults={"load_weapons": False, "assemble_player": holds_player(settings),
                                              **_alone_import(job)})
    warnings += notes
    kwargs.update(_actions_import(importer, settings, kwargs))
    if _run_operator(importer, filepath=job.source, **kwargs) != {"FINISHED"}:
        raise ConvertError("the import created nothing")
    empty = None if _alone_import(job) else no_geometry_warning(bpy.context.scene, Path(job.source),
                                                                 Path(job.output).name)
    if empty:
        warnings.append(empty)
    if settings.fps is not None:
        if job.source_format in frame_formats():
            warnings.append(f"--fps ignored: {job.source_format.upper()} frames convert one to one")
        else:
            retime_scene(bpy.context.scene, settings.fps)
            settings = _bake_at_scene_rate(settings)
    output = Path(job.output)
    output.parent.mkdir(parents=True, exist_ok=True)
    if settings.target == "blend":
        if settings.export_options:
            warnings.append("export options do not apply to .blend output; ignored")
        _run_operator("wm.save_as_mainfile", filepath=str(output), check_existing=False)
        return warnings
    exporter = export_operator(settings.target)
    if not has_operator(exporter):
        raise ConvertError(f"this version of the extension cannot export {settings.target.upper()} "
                           f"(no {exporter} operator)")
    if settings.target == "glb":
        kwargs, notes = operator_kwargs(exporter, settings.export_options, GLTF_DEFAULTS)
        warnings += notes
        dropped = drop_faceless_frames(bpy.context.scene)
        if dropped:
            warnings.append(f"the frames of {', '.join(dropped)} are left out of {output.name}: glTF animates "
                            "frames as morph targets, which a mesh without triangles cannot have")
        if "export_animation_mode" not in settings.export_options and animations_as_tracks(bpy.context.scene):
            kwargs.update(export_animation_mode="NLA_TRACKS", export_anim_slide_to_zero=True)   # one clip each
        temporary = temporary_output(output, os.getpid())
        try:
            _run_operator(exporter, filepath=str(temporary), **kwargs)
            if not temporary.is_file():
                raise ConvertError("the glTF exporter wrote nothing")
            os.replace(temporary, output)
        finally:
            temporary.unlink(missing_ok=True)
        return warnings
    kwargs, notes = operator_kwargs(exporter, settings.export_options, MODEL_EXPORT_DEFAULTS)
    warnings += notes
    _run_operator(exporter, filepath=str(output), check_existing=False, **kwargs)
    return warnings


def _alone_import(job: ConvertJob) -> dict:
    """A file of its row's other extensions converted to its own format is written alone (an ``.md5anim``
    to ``x.md5anim``, :func:`.batch.output_name`): it is imported without the files it would go onto
    (:data:`ALONE_IMPORT`: an anim on its own skeleton, not onto the mesh beside it), so that it comes back
    as it was whatever lies beside it."""
    side = Path(job.source).suffix.lower() in table.row(job.source_format).extensions[1:]
    return dict(ALONE_IMPORT) if side and job.settings.target == job.source_format else {}


def holds_player(settings: ConvertSettings) -> bool:
    """Whether the output holds a whole player: a scene (.blend, .glb), or a player folder written by
    the exporter's ``player`` option; any other output is the one file converted."""
    if settings.target in SCENE_TARGETS:
        return True
    request = settings.export_options.get("player")
    return request is not None and str(request.value).lower() in _TRUE


def _bake_at_scene_rate(settings: ConvertSettings) -> ConvertSettings:
    """After ``--fps`` retimed the scene: an export that samples frames (its operator has *Frame Rate*:
    MD2, MDL, MD5) writes every scene frame (``frame_rate='SCENE'``), so the file holds frames at the rate
    asked for, unless the user chose a frame rate."""
    if (settings.target in SCENE_TARGETS or "frame_rate" in settings.export_options
            or "frame_rate" not in _operator(export_operator(settings.target)).get_rna_type().properties.keys()):
        return settings
    return replace(settings, export_options=dict(settings.export_options,
                                                  frame_rate=OptionRequest("--fps", "SCENE")))


def _actions_import(importer: str, settings: ConvertSettings, kwargs: dict) -> dict:
    """``--frame-source actions`` from MD2/MDL: import one action per animation (the import's
    ``animations='ACTIONS'``, where the operator has it and it was not asked otherwise)."""
    request = settings.export_options.get("frame_source")
    if request is None or request.value != "ACTIONS" or "animations" in kwargs:
        return {}
    if "animations" not in _operator(importer).get_rna_type().properties.keys():
        return {}
    return {"animations": "ACTIONS"}


def no_geometry_warning(scene, source: Path, output_name: str) -> str | None:
    """A warning when the imported model draws nothing (every triangle degenerate, or none at all)."""
    if any(len(obj.data.polygons) for obj in scene.objects if obj.type == "MESH"):
        return None
    from .inspect import inspect_file  # only now: the reason, in the words of info/check
    problems = inspect_file(source, load_skins=False).problems
    why = next((p.message for p in problems if p.message.startswith(NO_DRAWABLE)), NO_DRAWABLE)
    return f"{why}; {output_name} holds no geometry"


def drop_faceless_frames(scene) -> list[str]:
    """Remove the shape keys (and so their animation) of meshes without faces, before a glTF export.

    Blender's glTF exporter writes such a mesh as an empty node but still writes its shape-key
    animation as a ``weights`` channel, which glTF forbids on a node without morph targets (Khronos
    validator: ANIMATION_CHANNEL_TARGET_NODE_WEIGHTS_NO_MORPHS). Returns the objects' names."""
    dropped = []
    for obj in scene.objects:
        if obj.type == "MESH" and not len(obj.data.polygons) and obj.data.shape_keys is not None:
            obj.shape_key_clear()
            dropped.append(obj.name)
    return dropped


def temporary_output(output: Path, pid: int) -> Path:
    """Where worker ``pid`` writes a glTF file before renaming it to ``output``."""
    return output.with_name(f".{output.stem}.{pid}.tmp{output.suffix}")
