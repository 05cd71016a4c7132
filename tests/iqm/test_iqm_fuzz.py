"""Seeded mutations of IQM files (the small corpus files, else the file built in the tests): the reader
either refuses one with a FormatError naming a field, with no Python repr in its message, or reads it,
and then decodes its frames and vertex arrays, writes it back byte for byte and packs it anew."""
from __future__ import annotations

import random
import struct

import pytest
from support.environment import corpus_files
from support.iqm_files import build

from formats import FormatError
from formats.iqm.animation import frame_channels, vertex_values
from formats.iqm.codec import read_iqm
from formats.iqm.records import BLENDWEIGHTS, POSITION
from formats.iqm.write import write_iqm

CASES_PER_SEED = 400
SEEDS = range(5)


def seed_files() -> list[bytes]:
    files = [p.read_bytes() for p in corpus_files("iqm/**/*.iqm")]
    return [d for d in files if len(d) < 40_000] or [build()[0], build(trailing=b"tag", gap=b"GAP!")[0]]


def mutate(rng: random.Random, data: bytes) -> bytearray:
    out = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        pos = rng.randrange(124) if rng.random() < 0.5 else rng.randrange(len(out))
        if rng.random() < 0.5 and pos + 4 <= len(out):
            value = rng.choice([0, 1, 0xFFFFFFFF, 0x7FFFFFFF, 1 << 31, rng.randrange(1 << 32),
                                rng.randrange(len(out) + 16), 0x7FC00000])     # the last: a float NaN
            struct.pack_into("<I", out, pos, value)
        else:
            out[pos] = rng.randrange(256)
    if rng.random() < 0.1:
        del out[rng.randrange(len(out)):]
    return out


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
