"""The one error type the codecs raise for bad input."""
from __future__ import annotations


class FormatError(ValueError):
    """A file that cannot be decoded: names the file, the field and the byte offset."""

    def __init__(self, message: str, *, filename: str | None = None,
                 field: str | None = None, offset: int | None = None) -> None:
        self.message = message
        self.filename = filename
        self.field = field
        self.offset = offset
        super().__init__(message)

    def with_filename(self, filename: str) -> FormatError:
        self.filename = filename
        return self

    def __str__(self) -> str:
        where = []
        if self.filename:
            where.append(self.filename)
        if self.field:
            where.append(self.field)
        if self.offset is not None:
            where.append(f"offset {self.offset}")
        prefix = ": ".join(where)
        return f"{prefix}: {self.message}" if prefix else self.message
