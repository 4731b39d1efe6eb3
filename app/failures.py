"""What a command reports when its trio run fails: the error inside the exception groups."""

from __future__ import annotations

from typing import TypeVar

E = TypeVar("E", bound=BaseException)


def find_error(exc: BaseException, kind: type[E] | tuple[type[E], ...]) -> E | None:
    """``exc`` itself or the first exception of ``kind`` inside its exception groups (a
    nursery wraps what its tasks raise)."""
    if isinstance(exc, kind):
        return exc
    if isinstance(exc, BaseExceptionGroup):
        for inner in exc.exceptions:
            found = find_error(inner, kind)
            if found is not None:
                return found
    return None


def reported_error(exc: BaseException, kind: type[E] | tuple[type[E], ...]) -> E | None:
    """The error of ``kind`` that a command reports for ``exc`` (see :func:`find_error`),
    or None when ``exc`` holds a KeyboardInterrupt: a command stopped by Ctrl-C says that
    it was interrupted (with status 130), not how a connection failed as it stopped.

    >>> reported_error(ExceptionGroup("", [OSError("reset")]), OSError)
    OSError('reset')
    >>> print(reported_error(BaseExceptionGroup("", [OSError(), KeyboardInterrupt()]), OSError))
    None
    """
    if find_error(exc, KeyboardInterrupt) is not None:
        return None
    return find_error(exc, kind)
