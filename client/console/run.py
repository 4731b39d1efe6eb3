"""Running the console: prompt_toolkit on asyncio, the session on trio, in one thread.

prompt_toolkit needs an asyncio loop and our networking is trio, so trio runs as a
*guest* of the asyncio loop (``trio.lowlevel.start_guest_run``): trio's scheduler does
its work in callbacks of the asyncio loop. Both sides touch the same objects from the
same thread, but never call each other's async functions: the UI reaches trio through
``TrioToken.run_sync_soon`` (which starts a task in the session's nursery), and trio
reaches the UI by changing the model and calling ``Application.invalidate``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

import outcome
import trio
from prompt_toolkit.application import Application
from prompt_toolkit.input import Input
from prompt_toolkit.output import Output

from rummyhall.client.credentials import HallCredential
from rummyhall.client.session import ClientError, Session, open_session
from rummyhall.client.trust import ServerTrust
from rummyhall.protocol.limits import PING_SECONDS

from . import admin
from .app import build_app
from .controller import Controller
from .model import ConsoleModel

log = logging.getLogger("rummyhall.console")


@dataclass
class ConsoleOptions:
    """Where to play and as whom."""

    host: str
    port: int
    name: str
    token: str | None = None
    color: bool = True
    #: the least time to try again after a drop (longer while the server holds our seats)
    reconnect_seconds: float = 60.0
    #: Called with the session's token after the connection and every reconnection.
    on_token: Callable[[str], None] | None = None
    #: Over TLS, how the server is checked (None: plain TCP).
    tls: ServerTrust | None = None
    #: The host's admin credential: the console logs in with it and has the host's
    #: commands (see .admin); None: a player's console.
    admin_credential: str | None = field(default=None, repr=False)
    #: The hall's password (or keys derived from it), for a hall that has one.
    password: HallCredential | None = None


@dataclass
class ConsoleHandle:
    """The running console's parts, for a driver (tests) on the asyncio side."""

    model: ConsoleModel
    controller: Controller
    session: Session
    trio_token: trio.lowlevel.TrioToken
    app: Application[None] | None = field(default=None)

    def in_trio(self, fn: Callable[[], object]) -> None:
        """Run ``fn`` soon inside trio (e.g. to touch the session's socket)."""
        self.trio_token.run_sync_soon(fn)


Driver = Callable[[ConsoleHandle], Awaitable[None]]


async def _pump(session: Session, model: ConsoleModel, options: ConsoleOptions) -> None:
    """Feed the session's updates to the model (which redraws the screen)."""
    async for update in session.updates():
        left: float | None = None
        state = session.tables.get(update.table) if update.table is not None else None
        if update.kind == "your_turn" and state is not None and state.deadline is not None:
            left = state.deadline - trio.current_time()
        elif update.kind == "turn":
            ms = getattr(update.payload, "time_left_ms", None)
            left = ms / 1000 if ms is not None else None
        if update.kind == "connection" and update.payload == "lost":
            # (trio's clock: the screen counts in time.monotonic)
            model.reconnect_until = _monotonic(session.reconnect_until)
            model.seat_held_until = _monotonic(session.seat_held_until)
        model.on_update(update, left)
        if (update.kind == "connection" and update.payload == "resumed"
                and options.on_token and session.token):
            options.on_token(session.token)


def _monotonic(at: float | None) -> float | None:
    """A moment of trio's clock on ``time.monotonic``'s."""
    return None if at is None else time.monotonic() + at - trio.current_time()


async def _keepalive(session: Session) -> None:
    """Ping now and then so that a long think is not taken for an idle client; a ping
    with no answer drops the connection (the server is gone without a word), and the
    session reconnects."""
    while True:
        limits = session.welcome.limits if session.welcome is not None else None
        await trio.sleep(max(1, limits.ping_seconds if limits is not None else PING_SECONDS))
        try:
            await session.ping()
        except trio.TooSlowError:
            session.drop_connection("no answer to a ping")
        except ClientError as exc:
            log.debug("ping: %s", exc)


async def run_console(options: ConsoleOptions, *, input: Input | None = None,
                      output: Output | None = None, driver: Driver | None = None) -> None:
    """Connect and run the console until the player quits (or ``driver`` returns).

    Raises what connecting raises (``OSError``, :class:`~rummyhall.client.ServerClosed`).
    """
    loop = asyncio.get_running_loop()
    ready: asyncio.Future[ConsoleHandle] = loop.create_future()
    done: asyncio.Future[outcome.Outcome[None]] = loop.create_future()
    stop = trio.Event()

    async def trio_main() -> None:
        async with open_session(options.host, options.port, name=options.name,
                                token=options.token, password=options.password,
                                reconnect_seconds=options.reconnect_seconds,
                                tls=options.tls) as session:
            if options.on_token and session.token:
                options.on_token(session.token)
            token = trio.lowlevel.current_trio_token()
            async with trio.open_nursery() as nursery:
                def spawn(fn: Callable[[], Awaitable[None]]) -> None:
                    def start() -> None:
                        with contextlib.suppress(RuntimeError):  # shutting down
                            nursery.start_soon(fn)

                    with contextlib.suppress(trio.RunFinishedError):
                        token.run_sync_soon(start)

                model = ConsoleModel(session, color=options.color)
                controller = Controller(model, session, spawn)
                nursery.start_soon(_pump, session, model, options)
                nursery.start_soon(_keepalive, session)
                controller.refresh()
                if options.admin_credential is not None:
                    admin.login(controller, options.admin_credential)
                ready.set_result(ConsoleHandle(model, controller, session, token))
                await stop.wait()
                nursery.cancel_scope.cancel()

    def finished(result: outcome.Outcome[None]) -> None:
        if not done.done():
            done.set_result(result)

    trio.lowlevel.start_guest_run(
        trio_main, run_sync_soon_threadsafe=loop.call_soon_threadsafe,
        run_sync_soon_not_threadsafe=loop.call_soon, done_callback=finished,
        host_uses_signal_set_wakeup_fd=True)
    await asyncio.wait([ready, done], return_when=asyncio.FIRST_COMPLETED)  # type: ignore[type-var]
    if not ready.done():
        done.result().unwrap()  # connecting failed: raise why
        return
    handle = ready.result()
    app = handle.app = build_app(handle.model, controller=handle.controller, input=input,
                                 output=output)

    def trio_ended(_: object) -> None:
        if app.is_running and not app.future.done():  # type: ignore[union-attr]
            app.exit()

    done.add_done_callback(trio_ended)
    try:
        if driver is None:
            await app.run_async()
        else:
            await _drive(app, handle, driver)
    finally:
        with contextlib.suppress(trio.RunFinishedError):
            handle.trio_token.run_sync_soon(stop.set)
        (await done).unwrap()


async def _drive(app: Application[None], handle: ConsoleHandle, driver: Driver) -> None:
    """Run the app and ``driver`` side by side; the app ends when the driver does."""
    async def drive() -> None:
        try:
            await driver(handle)
        finally:
            if app.is_running and app.future is not None and not app.future.done():
                app.exit()

    app_task = asyncio.ensure_future(app.run_async())
    driver_task = asyncio.ensure_future(drive())
    try:
        await app_task
    finally:
        if not driver_task.done():
            driver_task.cancel()
        try:
            await driver_task
        except asyncio.CancelledError:
            if not app_task.cancelled():
                pass


def main(options: ConsoleOptions) -> None:
    """Run the console in a fresh asyncio loop."""
    asyncio.run(run_console(options))
