"""Where an edited export's CPU time goes: the benchmark's MD2 and MDL cases (tools/benchmark.py), each
imported, scaled by 1.1 and exported, with the steps below timed (CPU ms, ``time.process_time``, the
best of ``--repeat`` runs after a first warm-up run), beside the naive timeline stepping and, for MDL,
the bare ``foreach_get`` of every skin and mask image's pixels (what reading the skin costs at least;
read twice and the second timed: Blender's first read after the import costs several times more, and the
benchmark's edited export follows an untouched one that made it)::

    .venvs/bpy-5.2/bin/python tools/edited_parts.py [--format md2|mdl] [--repeat N] [--top K] [--only NAME]

Steps nest (``sample_model`` holds the frame plan and the frame reading); ``other`` is the export's
time outside the listed top-level steps (operator, report, progress). ``--top K`` profiles one more
export of each case (cProfile, which sees every call wherever it was imported) and prints the
cumulative seconds of the numeric stages (:data:`STAGES`: the vertex normals apart from the anorm
lookup) as shares of the operator call, and the K functions with the most own time; ``--only`` keeps
the cases whose name holds NAME (``--only synthetic``).
"""
from __future__ import annotations

import argparse
import cProfile
import gc
import io
import pstats
import sys
import tempfile
import time
from collections import defaultdict
from importlib import import_module
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tools import benchmark  # noqa: E402

TOP = {"md2": ("exporters.md2.export:build_md2", "exporters.md2.export:serialize_md2",
               "exporters.md2.export:atomic_write"),
       "mdl": ("exporters.mdl.export:build_mdl", "exporters.mdl.export:serialize_mdl",
               "exporters.mdl.export:atomic_write")}
INNER = {"md2": ("exporters.md2.build:sample_model", "exporters.sampling.pipeline:plan_frames",
                 "exporters.sampling.pipeline:sample_parts", "exporters.md2.build:normal_indices",
                 "exporters.md2.build:_quantize", "exporters.md2.build:_glcmds"),
         "mdl": ("exporters.mdl.build:sample_model", "exporters.sampling.pipeline:plan_frames",
                 "exporters.sampling.pipeline:sample_parts", "exporters.mdl.build:normal_indices",
                 "exporters.mdl.build:_skins", "exporters.mdl.build:_grid", "exporters.mdl.build:quantize",
                 "exporters.mdl.build:_bounds")}


# stage -> (file suffix, function) whose cumulative time under cProfile is the stage's (``--top``)
STAGES = {
    "frames read (sample_model)": ("exporters/sampling/pipeline.py", "sample_model"),
    "vertex normals (grouped_normals)": ("exporters/sampling/vertex_normals.py", "grouped_normals"),
    "anorm lookup (steady_normal_indices)": ("formats/anorms.py", "steady_normal_indices"),
    "grids and bytes (MD2 _quantize)": ("exporters/md2/build.py", "_quantize"),
    "file written and read back (atomic_write)": ("formats/atomic_file.py", "atomic_write"),
    "the operator call": ("operator.py", "execute"),
}


def profiled(bpy, case, out: Path, top: int) -> list[str]:
    """One more edited export under cProfile: its stages' cumulative seconds and the ``top`` functions."""
    bpy.ops.wm.read_homefile(use_empty=True)
    getattr(bpy.ops.import_scene, case.fmt)(filepath=str(case.path))
    bpy.context.view_layer.objects.active.scale = (1.1, 1.1, 1.1)
    profile = cProfile.Profile()
    profile.runcall(getattr(bpy.ops.export_scene, case.fmt), filepath=str(out), frame_source="TIMELINE")
    cumulative: dict[str, float] = {}
    for (file, _, name), (_, _, _, seconds, _) in pstats.Stats(profile).stats.items():
        for stage, (suffix, function) in STAGES.items():
            if name == function and file.replace("\\", "/").endswith(suffix):
                cumulative[stage] = max(cumulative.get(stage, 0.0), seconds)
    total = cumulative.get("the operator call", float("nan"))
    lines = [f"  profiled (cProfile): {total:.3f} s in the operator call"]
    lines += [f"    {stage}: {cumulative[stage]:.3f} s ({cumulative[stage] / total:.0%})"
              for stage in STAGES if stage in cumulative and stage != "the operator call"]
    text = io.StringIO()
    pstats.Stats(profile, stream=text).sort_stats("tottime").print_stats(top)
    return lines + [text.getvalue().rstrip()]


def timers(extension: str, specs: tuple[str, ...], spent: dict[str, float]) -> None:
    """Wrap each ``module:function`` so its CPU time adds up in ``spent``."""
    for spec in specs:
        module_name, name = spec.split(":")
        module = import_module(f"{extension}.{module_name}")
        original = getattr(module, name)

        def timed(*args, _original=original, _spec=spec, **kwargs):
            start = time.process_time()
            try:
                return _original(*args, **kwargs)
            finally:
                spent[_spec] += time.process_time() - start
        setattr(module, name, timed)


def skin_floor(bpy, obj) -> float:
    """CPU seconds of the bare ``foreach_get`` of every image the object's materials use."""
    import numpy as np
    images = {node.image for slot in obj.material_slots if slot.material and slot.material.node_tree
              for node in slot.material.node_tree.nodes if node.type == "TEX_IMAGE" and node.image}
    start = time.process_time()
    for image in images:
        image.pixels.foreach_get(np.empty(len(image.pixels), np.float32))
    return time.process_time() - start


def run(bpy, case, repeat: int, out: Path, spent: dict[str, float]) -> dict[str, float]:
    """The best CPU seconds of each step (``spent`` is what :func:`timers` adds to)."""
    best: dict[str, float] = defaultdict(lambda: float("inf"))
    for run_index in range(repeat + 1):
        bpy.ops.wm.read_homefile(use_empty=True)
        getattr(bpy.ops.import_scene, case.fmt)(filepath=str(case.path))
        obj = bpy.context.view_layer.objects.active
        found = {"naive stepping": benchmark.naive_export(bpy, obj)[1]}
        if case.fmt == "mdl":     # the second read: the benchmark's edited export follows an untouched one
            skin_floor(bpy, obj)
            found["skin read floor"] = skin_floor(bpy, obj)
        obj.scale = (1.1, 1.1, 1.1)
        gc.collect()
        spent.clear()
        start = time.process_time()
        getattr(bpy.ops.export_scene, case.fmt)(filepath=str(out), frame_source="TIMELINE")
        found["edited export"] = time.process_time() - start
        found |= spent
        found["other"] = found["edited export"] - sum(spent[s] for s in TOP[case.fmt])
        if run_index:
            for key, value in found.items():
                best[key] = min(best[key], value)
    return best


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--format", choices=("md2", "mdl"), action="append")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--top", type=int, default=0, help="also profile one export: the K functions by own time")
    parser.add_argument("--only", default="", help="the cases whose name holds this text")
    args = parser.parse_args(argv)
    from tools.load_extension import enable_extension
    extension = enable_extension()
    import bpy

    from formats.md2.codec import serialize_md2
    from formats.mdl.codec import serialize_mdl
    synthetic = {"md2": (benchmark.synthetic_md2, serialize_md2), "mdl": (benchmark.synthetic_mdl, serialize_mdl)}
    lines: list[str] = []
    with tempfile.TemporaryDirectory(prefix="classic_models_parts_") as tmp, benchmark.reports_to_stderr():
        for fmt in args.format or ("md2", "mdl"):
            spent: dict[str, float] = defaultdict(float)
            cases = benchmark.corpus_cases(fmt)[0]
            path = Path(tmp) / f"synthetic_limits.{fmt}"
            path.write_bytes(synthetic[fmt][1](synthetic[fmt][0]()))
            cases.append(benchmark.Case(fmt, "synthetic (engine limits)", path, 0, 0, 0))
            timers(extension, TOP[fmt] + INNER[fmt], spent)
            for case in (c for c in cases if args.only in c.name):
                best = run(bpy, case, max(args.repeat, 1), Path(tmp) / f"out.{fmt}", spent)
                lines.append(f"\n{fmt.upper()} {case.name} (CPU ms, bpy {bpy.app.version_string})")
                lines += [f"  {value * 1000:8.2f}  {key}" for key, value in best.items()]
                if args.top:
                    lines += profiled(bpy, case, Path(tmp) / f"out.{fmt}", args.top)
    print("\n".join(lines))
    benchmark.exit_without_teardown(0)
    return 0


if __name__ == "__main__":
    sys.exit(main())
