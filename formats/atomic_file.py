"""Replace a file only with a complete, verified write (models, skins, archives).

:func:`replacing` hands out a temporary file beside the target and renames it over the target only
when the block ends without an error (after ``fsync``, with the replaced file's permissions); on any
failure the temporary file is removed and the old file is left as it was. :func:`atomic_write` writes
bytes that way and checks them read back.
"""
from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO


@contextmanager
def replacing(path: Path) -> Iterator[tuple[BinaryIO, Path]]:
    """``(handle, temporary path)`` to write; the temporary file replaces ``path`` when the block ends
    cleanly (the handle is flushed, synced and closed first), and is removed when it raises."""
    path = Path(path)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    tmp = Path(tmp_name)
    handle = os.fdopen(fd, "wb")
    try:
        with handle:
            yield handle, tmp
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, _target_mode(path))
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def atomic_write(path: Path, data: bytes, verify: Callable[[bytes], object] | None = None) -> None:
    """Write ``data`` to a temporary file beside ``path``, check it, then rename it over ``path``.

    ``verify`` is called with the bytes read back from disk and raises if they are wrong.
    On any failure the temporary file is removed and the old ``path`` is left as it was.
    """
    with replacing(path) as (handle, tmp):
        handle.write(data)
        handle.flush()
        written = tmp.read_bytes()
        if written != data:
            raise OSError(f"{path}: the data read back differs from what was written")
        if verify is not None:
            verify(written)


def _target_mode(path: Path) -> int:
    """The replaced file's permissions, else what a plain ``open`` would give (0666 less umask)."""
    try:
        return path.stat().st_mode & 0o7777
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask
