"""Questions asked on the terminal that Ctrl-C always interrupts.

Python's ``input()`` (and ``getpass``) can miss a Ctrl-C: a SIGINT that arrives after
the prompt is written and before the read() blocks only raises Python's flag (its
handler runs between bytecodes, and none run in a blocked read), so the command waits
for a whole line as if Ctrl-C were ignored. :func:`ask` waits in select() on standard
input *and* on a signal wakeup pipe (:func:`signal.set_wakeup_fd`): a signal at any
moment, even before the wait, wakes it, and Python then raises KeyboardInterrupt.
"""

from __future__ import annotations

import contextlib
import getpass
import os
import select
import signal
import sys
import threading
from collections.abc import Iterator

MAX_LINE = 4096  # bytes of one answer; the rest of a longer line is read and dropped


def ask(prompt: str, *, secret: bool = False) -> str:
    """The line typed after ``prompt``, without its line end. ``secret``: not echoed
    (a password). Raises EOFError at the end of input and KeyboardInterrupt at Ctrl-C."""
    try:
        fd = sys.stdin.fileno()
    except (AttributeError, ValueError, OSError):  # (no real standard input)
        fd = -1
    if fd < 0 or os.name != "posix" or threading.current_thread() is not threading.main_thread():
        return getpass.getpass(prompt) if secret else input(prompt)  # (the plain way)
    wake_read, wake_write = os.pipe()
    try:
        os.set_blocking(wake_read, False)
        os.set_blocking(wake_write, False)
        previous = signal.set_wakeup_fd(wake_write, warn_on_full_buffer=False)
        try:
            with _echo_off(fd) if secret else contextlib.nullcontext():
                sys.stdout.write(prompt)
                sys.stdout.flush()
                line = _read_line(fd, wake_read)
            if secret and os.isatty(fd):
                sys.stdout.write("\n")  # (the Enter typed was not echoed)
                sys.stdout.flush()
        finally:
            signal.set_wakeup_fd(previous)
    finally:
        os.close(wake_read)
        os.close(wake_write)
    return line.decode(sys.stdin.encoding or "utf-8", errors="replace").rstrip("\r")


def _read_line(fd: int, wake: int) -> bytes:
    """One line from ``fd``, a byte at a time (nothing past the line is taken from the
    input); raises EOFError at the end of input before any byte."""
    line = bytearray()
    while True:
        ready, _, _ = select.select([fd, wake], [], [])
        if wake in ready:  # a signal: its handler runs as this returns to Python code
            with contextlib.suppress(BlockingIOError):
                while os.read(wake, 512):
                    pass
        if fd not in ready:
            continue
        byte = os.read(fd, 1)
        if not byte:
            if not line:
                raise EOFError
            return bytes(line)
        if byte == b"\n":
            return bytes(line)
        if len(line) < MAX_LINE:
            line += byte


@contextlib.contextmanager
def _echo_off(fd: int) -> Iterator[None]:
    """The terminal on ``fd`` does not echo what is typed, until the block ends."""
    if not os.isatty(fd):
        yield
        return
    import termios  # noqa: PLC0415 (POSIX only: imported where it is used)

    before = termios.tcgetattr(fd)
    quiet = list(before)
    quiet[3] = before[3] & ~termios.ECHO
    termios.tcsetattr(fd, termios.TCSAFLUSH, quiet)
    try:
        yield
    finally:
        termios.tcsetattr(fd, termios.TCSAFLUSH, before)
