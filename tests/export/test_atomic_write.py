"""Atomic writes: the target changes only through a complete, verified file."""
from __future__ import annotations

import os
import stat

import pytest

from formats.atomic_file import atomic_write


def test_replaces_and_keeps_permissions(tmp_path):
    target = tmp_path / "m.md2"
    target.write_bytes(b"old")
    os.chmod(target, 0o640)
    atomic_write(target, b"new data")
    assert target.read_bytes() == b"new data"
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert [p.name for p in tmp_path.iterdir()] == ["m.md2"]


def test_new_file_is_readable_by_others(tmp_path):
    old = os.umask(0o022)
    try:
        atomic_write(tmp_path / "n.md2", b"x")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "n.md2").stat().st_mode) == 0o644


def test_failed_verification_leaves_old_file_and_no_temporary(tmp_path):
    target = tmp_path / "m.md2"
    target.write_bytes(b"old")

    def reject(data):
        raise ValueError("bad")
    with pytest.raises(ValueError):
        atomic_write(target, b"new", verify=reject)
    assert target.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["m.md2"]


def test_missing_folder_raises_oserror(tmp_path):
    with pytest.raises(OSError):
        atomic_write(tmp_path / "missing" / "m.md2", b"x")
