"""How much work a call does, counted instead of timed, so that no test depends on the machine's speed or load.

:func:`measure` runs ``fn(*args)`` under a profile hook that counts every Python and C function call (the
``call`` and ``c_call`` events of :func:`sys.setprofile`) and under :mod:`tracemalloc` for the peak memory it
holds. A loop per record, per byte or per pair of records shows up in ``calls`` exactly, the same count run after
run; a count in a header that drives an allocation shows up in ``peak``. With ``budget`` the hook stops the call
with :class:`WorkExceeded` once that many calls are made, so a parse that would loop for ever fails instead of
hanging the test. Wall-clock timings belong to the benchmarks (``tools/benchmark*.py``).
"""
from __future__ import annotations

import sys
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass


class WorkExceeded(Exception):
    """Raised inside the measured call when it makes more calls than its budget."""


@dataclass
class Work:
    calls: int          # Python and C function calls made
    peak: int           # most bytes held at once above what was held before the call
    result: object = None
    error: BaseException | None = None


def measure(fn: Callable, *args, budget: int | None = None, catch: tuple = (), memory: bool = True) -> Work:
    """Count the calls and (``memory``) the peak memory of ``fn(*args)``; an exception of a type in ``catch`` is
    kept in :attr:`Work.error`, others (and :class:`WorkExceeded`) propagate."""
    calls = 0

    def hook(frame, event, arg):
        nonlocal calls
        if event == "call" or event == "c_call":
            calls += 1
            if budget is not None and calls > budget:
                sys.setprofile(None)
                raise WorkExceeded(f"more than {budget} calls")

    started_tracing = memory and not tracemalloc.is_tracing()
    if started_tracing:
        tracemalloc.start()
    tracemalloc.reset_peak()
    base = tracemalloc.get_traced_memory()[0]          # (0, 0) while not tracing
    previous = sys.getprofile()
    work = Work(0, 0)
    sys.setprofile(hook)
    try:
        work.result = fn(*args)
    except catch as exc:
        work.error = exc
    finally:
        sys.setprofile(previous)
        work.calls = calls
        work.peak = tracemalloc.get_traced_memory()[1] - base if tracemalloc.is_tracing() else 0
        if started_tracing:
            tracemalloc.stop()
    return work


def assert_linear(works: list[Work], sizes: list[int], what: str, call_slack: int = 200,
                  byte_slack: int = 1 << 16) -> None:
    """Work per input byte may not grow: the larger inputs cost at most twice the smallest one's calls and peak
    memory per byte (plus a constant for fixed costs). A quadratic loop makes 8x the input cost 64x the work."""
    calls_rate = works[0].calls / sizes[0]
    peak_rate = max(works[0].peak, 1) / sizes[0]
    for work, size in zip(works[1:], sizes[1:]):
        assert work.calls <= 2 * calls_rate * size + call_slack, \
            f"{what}: {work.calls} calls for {size} bytes, {works[0].calls} for {sizes[0]}"
        assert work.peak <= 2 * peak_rate * size + byte_slack, \
            f"{what}: {work.peak} bytes held for {size} bytes of input, {works[0].peak} for {sizes[0]}"
