"""The command line: ``python -m classic_models {info,check,convert} ...``.

Exit status: 0 when every file is fine (``check``: clean; ``convert``: converted), 1 when some
file is not, 2 for a usage error (argparse's own, no input files, no bpy for ``convert``).
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import sys
import time
import tomllib
from dataclasses import asdict, replace
from functools import partial
from itertools import chain
from pathlib import Path

from ..formats import table
from ..formats.message_text import quoted
from ..formats.table import row
from . import archives, inspect
from .archive_commands import add_archive_commands, run_list, run_pack
from .arguments import given_input, given_path
from .batch import Progress, Source, default_workers, expand_inputs, failure_kinds, plan, run_jobs, summary
from .convert import ConvertSettings, OptionRequest, frame_formats, targets
from .frame_listing import frame_lines, qc_lines

PACKAGE_DIR = Path(__file__).resolve().parents[1]
PROG = f"python -m {__package__.rpartition('.')[0] or 'classic_models'}"
USAGE_ERROR = 2
BAKE_FPS = 10.0      # the rate a skeletal animation (no named frames) is baked at for a frame format


NAME_ENCODING_CHOICES = ("auto", "utf8", "cp1252", "gbk", "shift_jis", "cp1251")

def _version() -> str:
    try:
        with open(PACKAGE_DIR / "blender_manifest.toml", "rb") as stream:
            return str(tomllib.load(stream).get("version", "unknown"))
    except (OSError, tomllib.TOMLDecodeError):
        return "unknown"


def _key_value(text: str) -> tuple[str, str]:
    key, sep, value = text.partition("=")
    if not sep or not key.strip():
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, got {quoted(text)}")
    return key.strip(), value


def _positive_float(text: str) -> float:
    value = float(text)
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be positive, got {text}")
    return value


def _positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {text}")
    return value


def check_profiles() -> dict:
    """``check --profile`` name -> what runs it (``PROFILE``, ``HELP``, ``run``): the module of a format's
    row, or each of its ``PROFILES`` when it has several."""
    modules = (table.resolve(r.check_profile) for r in table.FORMATS if r.check_profile)
    return {profile.PROFILE: profile for module in modules for profile in getattr(module, "PROFILES", (module,))}


def _option_modules() -> list:
    """The modules of each row's own ``convert`` options (``add_options``, ``requests``), in table order."""
    return [table.resolve(r.cli_options) for r in table.FORMATS if r.cli_options]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG, description="Inspect, validate and convert Quake II MD2, Quake MDL, MilkShape 3D MS3D, "
                               "Quake III MD3, MD5 and Inter-Quake IQM models without opening Blender.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="{info,check,convert,list,pack}")

    info = commands.add_parser("info", help="summarise model files (no Blender needed)",
                               description="A readable summary per file: format and version, counts, skins "
                                           "and whether each image is found, animations with frame ranges, "
                                           "joints, and the original engine's limits the file exceeds.")
    info.add_argument("inputs", nargs="+", metavar="FILE_OR_DIR", type=given_input,
                      help="model files, folders, archives (.pak/.pk3) or ARCHIVE:MEMBER")
    info.add_argument("--json", action="store_true", help="print one JSON document for scripts")
    info.add_argument("--no-skins", action="store_true", help="do not look for skin images")
    info.add_argument("-v", "--verbose", action="store_true", help="list every joint")
    info.add_argument("--frames", action="store_true",
                      help="MD2/MDL: list every frame: its number, name and animation (MDL: per pose, with its "
                           "frame slot and frame group)")
    info.add_argument("--qc", action="store_true",
                      help="MD2/MDL: print only the QuakeC $frame lines, one per animation in file order, as "
                           "the export's QuakeC Frames option writes them (redirect into a .qc file)")
    info.add_argument("--name-encoding", choices=NAME_ENCODING_CHOICES, default="auto",
                      help="MS3D: the code page names were written in (default: UTF-8 when valid, else Windows-1252)")

    check = commands.add_parser("check", help="validate model files like a linter (no Blender needed)",
                                description="Every problem the importer refuses (error) or warns about "
                                            "(warning), and every engine limit exceeded (warning), with "
                                            "file, field and byte offset. Exit status 0 only if all are clean.")
    check.add_argument("inputs", nargs="+", metavar="FILE_OR_DIR", type=given_input,
                       help="model files, folders, archives (.pak/.pk3) or ARCHIVE:MEMBER")
    check.add_argument("--json", action="store_true", help="print one JSON document for scripts")
    check.add_argument("--no-skins", action="store_true", help="do not look for skin images")
    check.add_argument("--fail-on", choices=("warning", "error"), default="warning",
                       help="lowest severity that makes the exit status 1 (default: warning)")
    check.add_argument("-q", "--quiet", action="store_true", help="print only the summary line")
    check.add_argument("--name-encoding", choices=NAME_ENCODING_CHOICES, default="auto",
                       help="MS3D: the code page names were written in")
    profiles = check_profiles()
    check.add_argument("--profile", choices=tuple(profiles), help="; ".join(p.HELP for p in profiles.values()))

    convert = commands.add_parser(
        "convert", help="convert models through the extension's importers and exporters (needs bpy)",
        description="Import each input with the extension's operator and write it as TARGET: each model "
                    "format through the extension's exporter, glb through Blender's glTF exporter (shape keys as "
                    "morph targets with their animation), blend as a Blender file. Directories are searched "
                    "recursively. Files convert in parallel worker processes; a failed file never stops the "
                    "others.")
    convert.add_argument("inputs", nargs="+", metavar="INPUT", type=given_input,
                         help="model files, folders, archives (.pak/.pk3) or ARCHIVE:MEMBER (needs -o: each "
                              "member is written at its path under it)")
    convert.add_argument("--to", required=True, choices=targets(), dest="target", help="output format")
    convert.add_argument("-o", "--output-dir", type=given_path,
                         help="where to write (default: next to each input); sub-folders of directory "
                              "inputs are kept")
    convert.add_argument("-j", "--jobs", type=_positive_int, default=None,
                         help="worker processes (default: one per core)")
    convert.add_argument("--skip-existing", action="store_true", help="leave outputs that already exist")
    convert.add_argument("--timeout", type=_positive_float, help="fail a file that takes longer (seconds)")
    convert.add_argument("--json", action="store_true", help="print a JSON report at the end")
    convert.add_argument("-q", "--quiet", action="store_true", help="do not print warnings")
    convert.add_argument("-v", "--verbose", action="store_true",
                         help="print every warning message; by default one line per kind of problem with a "
                              "count and the first examples (skins not found: a.pcx, b.pcx and 9 more)")
    imports = convert.add_argument_group("import options (the import operators' properties)")
    imports.add_argument("--scale", type=_positive_float, help="multiply coordinates on import (scale)")
    imports.add_argument("--file-normals", action="store_true",
                         help="use the file's normals as custom normals (use_file_normals)")
    imports.add_argument("--no-skins", action="store_true", help="do not load skins or textures (load_skins / load_images = False)")
    imports.add_argument("--import-option", action="append", type=_key_value, default=[], metavar="KEY=VALUE",
                         help="any property of the import operator, by its Python name (repeatable), "
                              "e.g. axis_up=Z for MS3D")
    exports = convert.add_argument_group("export options (the export operators' properties)")
    exports.add_argument("--frame-source", choices=("timeline", "shape-keys", "actions"),
                         help="one frame per scene frame, per shape key, or per frame of each action "
                              "(frame_source)")
    exports.add_argument("--frame-rate", choices=("game", "scene"),
                         help="MD2/MDL: sample the animation every 0.1 s of scene time, as the game plays it "
                              "(game, the default), or every scene frame (scene) (frame_rate)")
    exports.add_argument("--dither", action="store_true", help="MDL: dither skins to the palette (dither)")
    exports.add_argument("--materials", choices=("one-skin", "alternate"),
                         help="MD2/MDL: faces with several materials get one skin packing their images "
                              "(one-skin, the default; the game draws one skin) or one skin per material "
                              "(alternate) (materials)")
    exports.add_argument("--split-normals", action="store_true",
                         help="MD2/MDL: a vertex copy for each normal Blender shows at a vertex (flat faces, sharp "
                              "edges), so a flat-shaded model is lit flat in the game (split_normals)")
    exports.add_argument("--fit-names", action="store_true",
                         help="MD2/MDL: shorten frame names (MD2: and skin names) that do not fit their field "
                              "instead of failing: a frame name keeps its number, so animations stay grouped; "
                              "the warnings list what was shortened (fit_names)")
    exports.add_argument("--enhanced", action="store_true",
                         help="MD2/MDL: also write the model's MD5 twin from the same frames where the source ports "
                              "load it (progs/x.md5mesh, x.md5anim, x_00_00.lmp beside an MDL; md5/tris.md5mesh "
                              "and md5anim with the skins under md5/ beside an MD2); the input needs an armature "
                              "(enhanced)")
    exports.add_argument("--keep-still-frames", action="store_true",
                         help="MD2/MDL: write every sampled frame of a model that does not move (by default a "
                              "model whose frames are all identical and that has no animation, such as a static "
                              "MS3D, is written as one frame; MD2 and MDL inputs keep their frames) "
                              "(keep_still_frames)")
    exports.add_argument("--fps", type=_positive_float,
                         help="MS3D: bake the skeletal animation at this many frames per second "
                              "(default for md2/mdl output: 10, the rate Quake and Quake II play; another "
                              "rate writes every scene frame, frame_rate=scene, unless --frame-rate says "
                              "otherwise; md5 output: this rate, without it an MD5's anims at their own); MD2 and MDL "
                              "frames always convert one to one")
    for module in _option_modules():          # each format's own options (cli/<fmt>/options.py)
        module.add_options(imports, exports)
    exports.add_argument("--export-option", action="append", type=_key_value, default=[], metavar="KEY=VALUE",
                         help="any property of the export operator (for glb: of export_scene.gltf), "
                              "by its Python name (repeatable)")
    add_archive_commands(commands)
    return parser


def _inputs(args: argparse.Namespace, folder_archives: bool = False,
            side_files: bool = True) -> tuple[list[Source], list[str]]:
    """Model files from file and folder arguments; archive arguments go to ``args.archive_inputs``, and
    with ``folder_archives`` (info, check) the archives under folder arguments too; without ``side_files``
    (convert) a folder gives no ``.md5anim`` (its ``.md5mesh`` brings it)."""
    plain, args.archive_inputs = archives.split_inputs(args.inputs)
    sources, missing = expand_inputs(plain, side_files) if plain else ([], [])
    if folder_archives:
        found = {text: archives.folder_archives(Path(text)) for text in plain if Path(text).is_dir()}
        args.archive_inputs = [a for text in found for a in found[text]] + args.archive_inputs
        missing = [m for m in missing if not any(found[t] and m.startswith(f"{t}: ") for t in found)]
    return sources, missing


def run_info(args: argparse.Namespace) -> int:
    sources, missing = _inputs(args, folder_archives=True)
    for text in missing:
        print(f"{PROG} info: {text}", file=sys.stderr)
    if not sources and not args.archive_inputs:
        return USAGE_ERROR
    inspect_one = partial(inspect.inspect_file, load_skins=not args.no_skins, name_encoding=args.name_encoding.upper())
    infos = [inspect_one(s.path) for s in sources]
    infos += archives.inspect_archive_inputs(args.archive_inputs, inspect_one)
    if args.json:
        files = [dict(i.to_json(frames=args.frames), **({"qc": "\n".join(qc_lines(i))} if args.qc else {}))
                 for i in infos]
        json.dump({"files": files}, sys.stdout, indent=2)
        print()
    elif args.qc:
        print("\n\n".join("\n".join(qc_lines(i) or [f"// {i.file}: no frames"]) for i in infos))
    else:
        print("\n\n".join("\n".join([inspect.describe(i, verbose=args.verbose)]
                                     + (frame_lines(i) if args.frames else [])) for i in infos))
    return 0 if all(i.readable for i in infos) and not missing else 1


def run_check(args: argparse.Namespace) -> int:
    if args.profile:
        return check_profiles()[args.profile].run(args, PROG)
    sources, missing = _inputs(args, folder_archives=True)
    for text in missing:
        print(f"{PROG} check: {text}", file=sys.stderr)
    if not sources and not args.archive_inputs:
        return USAGE_ERROR
    failing = {"warning": {"warning", "error"}, "error": {"error"}}[args.fail_on]
    reports = []
    counts = {"clean": 0, "warning": 0, "error": 0}
    inspect_one = partial(inspect.inspect_file, load_skins=not args.no_skins, name_encoding=args.name_encoding.upper())
    infos = (inspect_one(s.path) for s in sources)
    for info in chain(infos, archives.inspect_archive_inputs(args.archive_inputs, inspect_one)):
        severities = {p.severity for p in info.problems}
        status = "error" if "error" in severities else "warning" if severities else "clean"
        counts[status] += 1
        reports.append({"file": info.file, "format": info.format, "status": status,
                        "problems": [vars(p) for p in info.problems]})
        if not args.json and not args.quiet:
            for problem in info.problems:
                print(f"{info.file}: {inspect.format_problem(problem)}")
            for line in inspect.check_lines(info):
                print(f"{info.file}: {line}")
    line = (f"checked {len(reports)} file(s): {counts['clean']} clean, {counts['warning']} with warnings, "
            f"{counts['error']} with errors")
    bad = any(r["status"] in failing for r in reports) or bool(missing)
    if args.json:
        json.dump({"files": reports, "summary": {"files": len(reports), **counts, "missing": missing}},
                  sys.stdout, indent=2)
        print()
    else:
        print(line)
    return 1 if bad else 0


def convert_settings(args: argparse.Namespace) -> ConvertSettings:
    settings = ConvertSettings(target=args.target, fps=args.fps)
    imports, exports = settings.import_options, settings.export_options
    if args.scale is not None:
        imports["scale"] = OptionRequest("--scale", args.scale)
    if args.file_normals:
        imports["use_file_normals"] = OptionRequest("--file-normals", True)
    if args.no_skins:
        imports["load_skins"] = OptionRequest("--no-skins", False)
        imports["load_images"] = OptionRequest("--no-skins", False)
    if args.frame_source:
        exports["frame_source"] = OptionRequest("--frame-source", args.frame_source.upper().replace("-", "_"))
    if args.frame_rate:
        exports["frame_rate"] = OptionRequest("--frame-rate", args.frame_rate.upper())
    if args.dither:
        exports["dither"] = OptionRequest("--dither", True)
    if args.materials:
        exports["materials"] = OptionRequest("--materials", args.materials.upper().replace("-", "_"))
    if args.split_normals:
        exports["split_normals"] = OptionRequest("--split-normals", True)
    if args.fit_names:
        exports["fit_names"] = OptionRequest("--fit-names", True)
    if args.enhanced:
        exports["enhanced"] = OptionRequest("--enhanced", True)
    if args.keep_still_frames:
        exports["keep_still_frames"] = OptionRequest("--keep-still-frames", True)
    for module in _option_modules():
        own_imports, own_exports = module.requests(args)
        imports.update({name: OptionRequest(*request) for name, request in own_imports.items()})
        exports.update({name: OptionRequest(*request) for name, request in own_exports.items()})
    for key, value in args.import_option:
        imports[key] = OptionRequest(f"--import-option {key}={value}", value, strict=True)
    for key, value in args.export_option:
        exports[key] = OptionRequest(f"--export-option {key}={value}", value, strict=True)
    return settings


def run_convert(args: argparse.Namespace) -> int:
    if importlib.util.find_spec("bpy") is None:
        print(f"{PROG} convert: needs the bpy module (Blender as a Python module, e.g. pip install bpy); "
              f"info and check work without it", file=sys.stderr)
        return USAGE_ERROR
    started = time.perf_counter()
    sources, missing = _inputs(args, side_files=False)
    for text in missing:
        print(f"{PROG} convert: {text}", file=sys.stderr)
    if not sources and not args.archive_inputs:
        return USAGE_ERROR
    if args.archive_inputs and args.output_dir is None:
        print(f"{PROG} convert: archive inputs need -o DIR (each member is written at its path under it)",
              file=sys.stderr)
        return USAGE_ERROR
    with archives.ArchiveSession() as session:
        return _convert(args, sources, missing, session, started)


def _convert(args: argparse.Namespace, sources: list[Source], missing: list[str],
             session: archives.ArchiveSession, started: float) -> int:
    settings = convert_settings(args)
    jobs, known = plan(sources, settings, args.output_dir, args.skip_existing)
    member_jobs, member_known, extractions = archives.plan_archive_jobs(
        args.archive_inputs, settings, args.output_dir, args.skip_existing, session,
        {Path(job.output).resolve() for job in jobs} | {s.path.resolve() for s in sources})
    jobs += member_jobs
    known += member_known
    for job in jobs:
        if settings.fps is None and not row(job.source_format).named_frames and settings.target in frame_formats():
            job.settings = replace(settings, fps=BAKE_FPS)
    workers = min(args.jobs or default_workers(), max(len(jobs), 1))
    line_stream = sys.stderr if args.json else sys.stdout
    progress = Progress(len(jobs) + len(known), line_stream, sys.stderr, quiet=args.quiet, verbose=args.verbose)
    archives.relabel_progress(progress, extractions)
    progress.start(workers)
    for result in known:
        progress.update(result)
    results = known + run_jobs(jobs, workers, progress, args.timeout)
    order = {str(s.path): i for i, s in enumerate(sources)}
    results.sort(key=lambda r: order.get(r.source, len(order)))
    seconds = time.perf_counter() - started
    lines = summary(results, seconds, workers, args.target)
    if missing:
        lines += ["not found:", *(f"  {text}" for text in missing)]
    if args.json:
        json.dump({"results": [asdict(r) for r in results],
                   "summary": {"files": len(results), "converted": sum(r.ok and not r.skipped for r in results),
                               "skipped": sum(r.skipped for r in results),
                               "warned": sum(r.ok and bool(r.warnings) for r in results),
                               "empty": sum(r.ok and r.empty for r in results),
                               "failed": sum(not r.ok for r in results), "missing": missing,
                               "seconds": round(seconds, 3),
                               "files_per_second": round(sum(not r.skipped for r in results) / max(seconds, 1e-6), 2),
                               "problems": [{"problem": text, "files": [r.source for r in members]}
                                            for text, members in failure_kinds([r for r in results if not r.ok])]}},
                  sys.stdout, indent=2)
        print()
        print("\n".join(lines), file=sys.stderr)
    else:
        print("\n".join(lines))
    return 1 if missing or any(not r.ok for r in results) else 0


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    handlers = {"info": run_info, "check": run_check, "convert": run_convert, "list": partial(run_list, prog=PROG),
                "pack": partial(run_pack, prog=PROG)}
    try:
        return handlers[args.command](args)
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 1
