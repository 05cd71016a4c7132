"""Where the edited export of the engine-limit synthetic model spends its time (cProfile), stage by stage.

Run with a Python that has the ``bpy`` wheel::

    .venvs/bpy-5.2/bin/python tools/profile_edited.py [--format md2|mdl] [--runs N] [--top K]

The model is :mod:`tools.benchmark`'s synthetic band at the format's limits, imported and scaled by 1.1 as
there (the edited export). Each run re-imports it; the CPU seconds (``time.process_time``) of every export
are printed without the profiler, then one profiled export: the cumulative seconds of the pipeline's stages
and their share of the whole operator call, and the ``--top`` functions by their own time.
"""
from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import sys
import tempfile
import time
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parents[1]
# stage -> function name (file suffix, function) whose cumulative time is the stage's
STAGES = {
    "frames read (sample_model)": ("exporters/sampling/pipeline.py", "sample_model"),
    "vertex normals (grouped_normals)": ("exporters/sampling/vertex_normals.py", "grouped_normals"),
    "anorm lookup (steady_normal_indices)": ("formats/anorms.py", "steady_normal_indices"),
    "grids and bytes (MD2 _quantize)": ("exporters/md2/build.py", "_quantize"),
    "file written and read back (atomic_write)": ("formats/atomic_file.py", "atomic_write"),
}
OPERATOR = ("operator.py", "execute")


def _edited_object(bpy, fmt: str, source: Path):
    bpy.ops.wm.read_homefile(use_empty=True)
    getattr(bpy.ops.import_scene, fmt)(filepath=str(source))
    obj = bpy.context.view_layer.objects.active
    obj.scale = (1.1, 1.1, 1.1)
    return obj


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--format", choices=("md2", "mdl"), default="md2")
    parser.add_argument("--runs", type=int, default=3, help="exports timed without the profiler (default 3)")
    parser.add_argument("--top", type=int, default=15, help="functions listed by own time (default 15)")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(CHECKOUT))
    from tools.benchmark import reports_to_stderr, synthetic_md2, synthetic_mdl
    from tools.load_extension import enable_extension
    enable_extension()
    import bpy
    from formats.md2.codec import serialize_md2
    from formats.mdl.codec import serialize_mdl

    make, serialize = {"md2": (synthetic_md2, serialize_md2), "mdl": (synthetic_mdl, serialize_mdl)}[args.format]
    export = getattr(bpy.ops.export_scene, args.format)
    with tempfile.TemporaryDirectory(prefix="classic_models_profile_") as tmp:
        source, out = Path(tmp) / f"synthetic.{args.format}", Path(tmp) / f"edited.{args.format}"
        source.write_bytes(serialize(make()))
        seconds = []
        with reports_to_stderr():
            for _ in range(max(args.runs, 1)):
                _edited_object(bpy, args.format, source)
                start = time.process_time()
                export(filepath=str(out), frame_source="TIMELINE")
                seconds.append(time.process_time() - start)
            _edited_object(bpy, args.format, source)
            profile = cProfile.Profile()
            profile.runcall(export, filepath=str(out), frame_source="TIMELINE")
    stats = pstats.Stats(profile)
    cumulative = {}
    for (file, _, name), (_, _, _, cum, _) in stats.stats.items():
        for stage, (suffix, function) in {**STAGES, "operator": OPERATOR}.items():
            if name == function and file.replace("\\", "/").endswith(suffix):
                cumulative[stage] = max(cumulative.get(stage, 0.0), cum)
    total = cumulative.get("operator", float("nan"))
    print(f"bpy {bpy.app.version_string}, {args.format.upper()} synthetic (engine limits), scaled by 1.1")
    print("export CPU s without the profiler: " + ", ".join(f"{s:.3f}" for s in seconds))
    print(f"profiled export: {total:.3f} s in the operator call")
    for stage in STAGES:
        if stage in cumulative:
            print(f"  {stage}: {cumulative[stage]:.3f} s ({cumulative[stage] / total:.0%})")
    text = io.StringIO()
    pstats.Stats(profile, stream=text).sort_stats("tottime").print_stats(args.top)
    print(text.getvalue().rstrip())
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(CHECKOUT))
    from tools.benchmark import exit_without_teardown
    exit_without_teardown(main())
