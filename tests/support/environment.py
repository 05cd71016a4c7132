"""Where the tests find things and what this Python can do: the checkout, the corpus, Blender's own program."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

from .corpus_manifest import MANIFEST, corpus_dir, read_manifest, size_ok

TESTS = Path(__file__).resolve().parents[1]
CHECKOUT = TESTS.parent
# $CLASSIC_MODELS_CORPUS, else ../shared/corpus beside the checkout when there, else the checkout's ignored
# .venvs/corpus, which `bash tools/dev.sh corpus` fills from tests/support/corpus/MANIFEST.tsv
CORPUS = corpus_dir(CHECKOUT)
GET_CORPUS = "bash tools/dev.sh corpus"


def corpus_problem() -> str | None:
    """What is missing from the corpus (every file of tests/support/corpus/MANIFEST.tsv with its size), or None."""
    rows = read_manifest(MANIFEST)
    absent = [row.path for row in rows if not size_ok(CORPUS, row)]
    if not absent:
        return None
    return (f"the corpus at {CORPUS} lacks {len(absent)} of the {len(rows)} files of "
            f"tests/support/corpus/MANIFEST.tsv (or has them at another size; first: {absent[0]}); "
            f"'{GET_CORPUS}' gets them")

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
    """pytest params for each corpus file, or one skipped param saying why there are none. Each is marked
    ``sweep``: the full run's middle bpy wheel leaves a sweep over the corpus to the newest and oldest
    wheels, between whose Blender APIs it runs no code path of its own (tools/dev.sh, wheel_job)."""
    files = corpus_files(pattern)
    if not files:
        return [pytest.param(None, marks=pytest.mark.skip(reason=f"corpus not found at {CORPUS} ({GET_CORPUS})"))]
    return [pytest.param(f, id=f"{f.parent.name}/{f.name}", marks=pytest.mark.sweep) for f in files]


# ``python -m classic_models`` with bpy blocked (info, check: what runs without Blender)
BLOCK_BPY = ("import runpy, sys; sys.modules['bpy'] = None; sys.argv[0] = 'classic_models'; "
             "runpy.run_module('classic_models', run_name='__main__', alter_sys=True)")


def needs_bpy():
    """Skip unless this Python has bpy (``convert`` runs the operators in the bpy wheel)."""
    pytest.importorskip("bpy", reason="convert runs the operators in the bpy wheel")


def corpus(relative: str) -> Path:
    path = CORPUS / relative
    if not path.is_file():
        pytest.skip(f"corpus file {relative} not found under {CORPUS} ({GET_CORPUS})")
    return path


OPENARENA_PLAYERS = CORPUS / "md3" / "openarena081" / "models" / "players"


def corpus_player(name: str) -> Path:
    """The folder of OpenArena 0.8.1's player ``name`` in the corpus (skips, naming it, when it is not there)."""
    folder = OPENARENA_PLAYERS / name
    if not (folder / "lower.md3").is_file():
        pytest.skip(f"corpus player {name} not found under {OPENARENA_PLAYERS}")
    return folder
