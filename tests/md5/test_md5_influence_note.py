"""The export's line about vertices past ironwail's 4 weights: a sentence for people (issue 44)."""
from importlib import import_module

import numpy as np

from formats.md5.records import Md5MeshPart


def _part(counts):
    counts = np.asarray(counts, dtype=np.int64)
    starts = np.concatenate(([0], np.cumsum(counts)[:-1])).astype(np.int64)
    w = int(counts.sum())
    return Md5MeshPart("skin", np.zeros((len(counts), 2)), starts, counts, np.zeros((0, 3), np.int64),
                       np.zeros(w, np.int64), np.full(w, 1.0 / 5), np.zeros((w, 3)))


def test_one_vertex_past_four_is_singular_and_names_no_c_function(extension):
    influence_note = import_module(f"{extension}.exporters.md5.blocks").influence_note
    (line,) = influence_note([_part([5, 1, 2])])
    assert line.startswith("1 vertex has more than 4 bone weights (up to 5): all are written")
    assert "MD5_BakeInfluences" not in line and "(" + "MD5" not in line


def test_several_vertices_past_four_are_counted_in_the_plural(extension):
    influence_note = import_module(f"{extension}.exporters.md5.blocks").influence_note
    (line,) = influence_note([_part([5, 6, 1])])
    assert line.startswith("2 vertices have more than 4 bone weights (up to 6)")
