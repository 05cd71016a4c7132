"""Shared fixtures: the corpus, the extension loaded into bpy, a clean scene per test."""
from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

CHECKOUT = Path(__file__).resolve().parents[1]
CORPUS = Path(os.environ.get("CLASSIC_MODELS_CORPUS") or CHECKOUT.parent / "shared" / "corpus")
sys.path.insert(0, str(CHECKOUT))
# The real-Blender layer (Debian's Blender under Xvfb) runs once, in its own stage of tools/dev.sh test.
collect_ignore = [] if os.environ.get("CLASSIC_MODELS_REAL_BLENDER") == "1" else ["real_blender"]


# pytest-blender runs this suite inside Blender's own program, which has imported bpy before any test
INSIDE_BLENDER = "bpy" in sys.modules


def skip_inside_blender(what: str) -> None:
    """Skip inside Blender's own program a test that starts a Python with bpy as a module."""
    if INSIDE_BLENDER:
        pytest.skip(f"{what}: starts a Python with bpy as a module, which Blender's own program (pytest-blender) "
                    "does not have; the bpy-wheel runs cover it")


def corpus_files(pattern: str) -> list[Path]:
    """Corpus files matching ``pattern`` (e.g. ``md2/*/*.md2``); empty if the corpus is absent."""
    return sorted(CORPUS.glob(pattern)) if CORPUS.is_dir() else []


def corpus_params(pattern: str) -> list:
    """pytest params for each corpus file, or one skipped param saying why there are none."""
    files = corpus_files(pattern)
    if not files:
        return [pytest.param(None, marks=pytest.mark.skip(reason=f"corpus not found at {CORPUS}"))]
    return [pytest.param(f, id=f"{f.parent.name}/{f.name}") for f in files]


@pytest.fixture(scope="session")
def extension():
    """The extension enabled in this bpy (module name); skips if bpy cannot be imported."""
    pytest.importorskip("bpy", reason="bpy is not installed in this Python")
    from tools.load_extension import enable_extension
    return enable_extension()


@pytest.fixture
def bpy_scene(extension):
    """An empty scene with the extension enabled; yields bpy."""
    import bpy
    bpy.ops.wm.read_homefile(use_empty=True)
    yield bpy
