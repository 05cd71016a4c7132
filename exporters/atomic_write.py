"""Replace a file only with a complete, verified write."""
from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Callable


def atomic_write(path: Path, data: bytes, verify: Callable[[bytes], object] | None = None) -> None:
    """Write ``data`` to a temporary file beside ``path``, check it, then rename it over ``path``.

    ``verify`` is called with the bytes read back from disk and raises if they are wrong.
    On any failure the temporary file is removed and the old ``path`` is left as it was.
    """
    path = Path(path)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, _target_mode(path))
        written = tmp.read_bytes()
        if written != data:
            raise OSError(f"{path}: the data read back differs from what was written")
        if verify is not None:
            verify(written)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def _target_mode(path: Path) -> int:
    """The replaced file's permissions, else what a plain ``open`` would give (0666 less umask)."""
    try:
        return path.stat().st_mode & 0o7777
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask
