"""A stand-in for the convert worker process (``cli/worker.py``'s ``worker_main``), for the parent's
side of a batch without Blender: it answers each job at once, saying whether the parent had already
sent the next job when it started this one; a job named ``crash.*`` ends the process (exit code 3).

It runs in a spawned process: the package is imported as ``classic_models`` from the parent's path.
"""
from __future__ import annotations

import os

READY = "ready"          # cli/worker.py's READY
WAIT = 1.0               # seconds to wait for the next job before answering


def fake_worker_main(conn, work_dir: str) -> None:
    from classic_models.cli.convert import ConvertResult
    conn.send(READY)
    while True:
        job = conn.recv()
        if job is None:
            return
        if os.path.basename(job.source).startswith("crash."):
            os._exit(3)
        waiting = conn.poll(WAIT)
        conn.send(ConvertResult(job.source, job.output, ok=True, warnings=[f"next job waiting: {waiting}"]))
