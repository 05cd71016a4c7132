"""Seeded mutations of IQM files (the files built in the tests and the small corpus files): the reader
either refuses one with a FormatError naming a field, with no Python repr in its message, or reads it,
and then decodes its frames and vertex arrays, writes it back byte for byte and packs it anew."""
from __future__ import annotations

import random

import pytest
from support.iqm_files import mutate, seed_files

from formats import FormatError
from formats.iqm.animation import frame_channels, vertex_values
from formats.iqm.codec import read_iqm
from formats.iqm.records import BLENDWEIGHTS, POSITION
from formats.iqm.write import write_iqm

CASES_PER_SEED = 400
SEEDS = range(5)


@pytest.mark.parametrize("seed", SEEDS)
def test_mutated_files_are_refused_cleanly_or_read_whole(seed):
    rng = random.Random(seed)
    files = seed_files()
    read = 0
    for case in range(CASES_PER_SEED):
        data = bytes(mutate(rng, rng.choice(files)))
        try:
            model = read_iqm(data)
        except FormatError as error:
            assert error.field and "b'" not in str(error), f"seed {seed} case {case}: {error}"
            continue
        frame_channels(model)
        vertex_values(model, POSITION)
        vertex_values(model, BLENDWEIGHTS)
        assert write_iqm(model) == data, f"seed {seed} case {case}"
        model.layout = None
        read_iqm(write_iqm(model))
        read += 1
    assert 0 < read < CASES_PER_SEED          # both outcomes were exercised
