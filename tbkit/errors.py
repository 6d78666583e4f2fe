"""The tbkit error tree.

Every error tbkit raises on purpose is a :class:`TbkitError`. Errors about a file
carry its ``path`` (and ``offset`` where a byte position applies); errors the server
maps to responses carry an ``http_code``.
"""

from __future__ import annotations

__all__ = [
    "CorruptRecordError",
    "DataError",
    "InvalidArgumentError",
    "MissingDependencyError",
    "NativeUnavailableError",
    "NotFoundError",
    "PathNotFoundError",
    "StorageError",
    "TbkitError",
    "WriterClosedError",
    "WriterError",
]


class TbkitError(Exception):
    """Base class of every error tbkit raises on purpose.

    Attributes:
        http_code: The HTTP status the server answers with for this error.
    """

    http_code: int = 500


class StorageError(TbkitError, OSError):
    """A file or directory could not be created, opened, read or written.

    Attributes:
        path: The file or directory concerned.
    """

    def __init__(self, message: str, *, path: str) -> None:
        super().__init__(f"{message}: {path}")
        self.path = path


class DataError(TbkitError):
    """An event file holds something that cannot be read as it should.

    Attributes:
        path: The file concerned.
        offset: Byte offset of the bad spot in the file, or None when it has none.
    """

    def __init__(self, message: str, *, path: str, offset: int | None = None) -> None:
        where = path if offset is None else f"{path} at byte {offset}"
        super().__init__(f"{message} ({where})")
        self.reason = message
        self.path = path
        self.offset = offset


class CorruptRecordError(DataError):
    """A record's length or data checksum does not match (a corrupt or foreign file)."""


class WriterError(TbkitError):
    """The background writer failed; raised on the next call or on ``close()``.

    Attributes:
        path: The event file the writer was writing.
    """

    def __init__(self, message: str, *, path: str) -> None:
        super().__init__(f"{message} (writing {path})")
        self.path = path


class WriterClosedError(TbkitError, ValueError):
    """A writer was used after ``close()``.

    Attributes:
        path: The event file of the closed writer.
    """

    def __init__(self, *, path: str) -> None:
        super().__init__(f"the writer is closed; open a new SummaryWriter ({path})")
        self.path = path


class InvalidArgumentError(TbkitError, ValueError):
    """A request or call argument has a value tbkit cannot accept."""

    http_code = 400


class NotFoundError(TbkitError, LookupError):
    """A run, tag, blob or file that was asked for does not exist."""

    http_code = 404


class PathNotFoundError(NotFoundError, FileNotFoundError):
    """A log directory or file that was asked for does not exist.

    Attributes:
        path: The missing path or URL.
    """

    def __init__(self, message: str, *, path: str) -> None:
        super().__init__(f"{message}: {path}")
        self.path = path


class MissingDependencyError(TbkitError, ImportError):
    """An optional package is needed for this feature; the message names the install command."""

    def __init__(self, package: str, *, extra: str | None = None, feature: str = "this feature") -> None:
        hint = f'pip install "tbkit[{extra}]"' if extra else f"pip install {package}"
        super().__init__(f"{feature} needs the package {package!r}, which is not installed: {hint}")
        self.package = package


class NativeUnavailableError(TbkitError, ImportError):
    """``TBKIT_NATIVE=1`` asks for the compiled core, but it is not installed or does not import."""
