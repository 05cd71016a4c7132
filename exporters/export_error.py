"""The error an exporter raises for input it cannot write."""


class ExportError(Exception):
    """Input that cannot be exported; the message names the object and the problem."""
