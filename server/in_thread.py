"""A server in a thread of its own, beside a program that runs another event loop.

The console runs asyncio (with trio as its guest); a program that drives a console
against a real server (the console's tests, tools/screenshot.py) runs the server in its
own ``trio.run`` in another thread, so that neither loop waits on the other.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

import trio

from .config import Settings
from .hall import Hall

START_SECONDS = 20.0
"""The longest the server may take to start listening, or to stop."""


@contextmanager
def serving_in_a_thread(settings: Settings, *, seconds: float = START_SECONDS
                        ) -> Iterator[int]:
    """Run a :class:`Hall` with ``settings`` in a new thread; yield its port once it
    listens; stop it (its nursery cancelled) when the block ends. A server that fails to
    start raises here, with the reason."""
    started = threading.Event()
    box: dict[str, object] = {}

    async def main() -> None:
        try:
            async with trio.open_nursery() as nursery:
                box["port"] = await nursery.start(Hall(settings).serve)
                box["token"] = trio.lowlevel.current_trio_token()
                box["cancel"] = nursery.cancel_scope.cancel
                started.set()
        except Exception as exc:  # (raised in the caller's thread, below)
            while isinstance(exc, ExceptionGroup) and len(exc.exceptions) == 1:
                exc = exc.exceptions[0]  # (the nurseries' groups around the one reason)
            box["error"] = exc
            started.set()

    thread = threading.Thread(target=trio.run, args=(main,), daemon=True,
                              name="rummyhall server")
    thread.start()
    if not started.wait(seconds):
        raise RuntimeError(f"the server did not start within {seconds:g} s")
    error = box.get("error")
    if isinstance(error, Exception):
        thread.join(seconds)
        raise RuntimeError(f"the server did not start: {error}") from error
    port, token, cancel = box["port"], box["token"], box["cancel"]
    assert isinstance(port, int) and isinstance(token, trio.lowlevel.TrioToken)
    assert callable(cancel)
    try:
        yield port
    finally:
        trio.from_thread.run_sync(cancel, trio_token=token)
        thread.join(seconds)
