"""The bot API over the network: run_bot and `rummyhall bot`."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
import trio

from rummyhall.bots import knock_with_melds
from rummyhall.client import Bot, GameResult, Session, run_bot
from rummyhall.client.session import Update
from rummyhall.rules import (
    Card,
    Discard,
    GameOver,
    Knock,
    SeatAction,
    SeatView,
    Showdown,
    best_arrangement,
    best_discard,
    meld_rules_for,
)
from rummyhall.server import Hall

EXAMPLE = '''
from rummyhall.client import Bot


class FirstLegal(Bot):
    name = "first"

    def choose(self, view, legal):
        return legal[0]
'''


class Greedy(Bot):
    """The example bot of docs/bots.md, in essence."""

    name = "greedy"

    def __init__(self) -> None:
        self.events = 0

    def choose(self, view: SeatView, legal: Sequence[SeatAction]) -> SeatAction:
        knocks = [a for a in legal if a.kind in ("knock", "go_out")]
        if knocks:
            return knocks[0]
        discards = [a for a in legal if isinstance(a, Discard)]
        if discards:
            rules = meld_rules_for(view.game, dict(view.options), round=max(view.round, 1))
            card, _ = best_discard(view.hand, rules, forbidden=view.taken)
            return next(a for a in discards if a.card == card)
        return legal[0]

    def on_event(self, table: int, event: object, view: SeatView | None) -> None:
        self.events += 1


async def test_run_bot_creates_a_table_and_plays_games_back_to_back(hall: Hall) -> None:
    assert hall.port
    bot = Greedy()
    heard: list[GameResult] = []
    results = await run_bot(bot, "127.0.0.1", hall.port, game="gin",
                            options={"target_score": 25}, games=2, on_result=heard.append)
    assert len(results) == 2 and all(r.seat == 0 for r in results)
    assert heard == results  # each game's end, as it came
    assert all(max(r.scores) >= 25 and r.winners for r in results)
    assert bot.events > 10


async def test_rummyhall_bot_command_with_a_bot_file(hall: Hall, tmp_path: Path) -> None:
    assert hall.port
    path = tmp_path / "first.py"
    path.write_text(EXAMPLE)
    command = [sys.executable, "-m", "rummyhall", "bot", "--server", f"127.0.0.1:{hall.port}",
               "--bot", f"{path}:FirstLegal", "--game", "three_thirteen", "--players", "3",
               "--games", "1"]
    result = await trio.run_process(command, capture_stdout=True, capture_stderr=True)
    out = result.stdout.decode()
    assert result.returncode == 0, result.stderr.decode()
    lines = out.splitlines()
    # it tells what it does: where it sits and with whom, each hand, the game, a summary
    assert lines[0].startswith("connected to Rummy Hall as first; seat 0 at table ")
    assert "(Three Thirteen, with " in lines[0]
    hands = [line for line in lines if ": hand " in line]
    assert len(hands) == 11 and all("; totals first " in line for line in hands)
    assert any(line.startswith("game 1 over at table ") and "; scores first " in line
               for line in lines)
    assert lines[-1].startswith("first: ") and lines[-1].endswith(" of 1 games won")
    quiet = await trio.run_process([*command[:-6], "--game", "gin", "-o", "target_score=10",
                                    "--quiet"], capture_stdout=True, capture_stderr=True)
    assert quiet.returncode == 0, quiet.stderr.decode()
    assert quiet.stdout == b""


async def test_the_network_bot_of_docs_bots_md_plays_as_written(hall: Hall) -> None:
    assert hall.port
    text = (Path(__file__).resolve().parents[2] / "docs" / "bots.md").read_text()
    code = '"""greedy.py' + text.split('"""greedy.py')[1].split("```")[0]
    namespace: dict[str, object] = {"__name__": "greedy"}
    exec(compile(code, "greedy.py", "exec"), namespace)
    greedy = namespace["Greedy"]
    assert isinstance(greedy, type) and issubclass(greedy, Bot)
    results = await run_bot(greedy(), "127.0.0.1", hall.port, options={"target_score": 20})
    assert len(results) == 1 and results[0].winners


async def test_the_arena_over_a_real_server(hall: Hall, tmp_path: Path) -> None:
    assert hall.port
    out = tmp_path / "arena.json"
    command = [sys.executable, "-m", "rummyhall", "arena", "--server",
               f"127.0.0.1:{hall.port}", "--game", "gin", "--games", "4", "--bots",
               "strong,random", "-o", "target_score=20", "--quiet", "--json", str(out)]
    result = await trio.run_process(command, capture_stdout=True, capture_stderr=True,
                                    check=False)
    assert result.returncode == 0, result.stderr.decode()
    text = result.stdout.decode()
    assert "strong" in text and "random" in text and "4 games" in text
    # the seed it really used: the server's shuffles (this one is seeded), not the arena's
    assert "deals shuffled by the server (seed 0 for the bots' own chance only)" in text
    assert "the server's shuffles were seeded (it runs with --seed)" in text


async def test_rummyhall_bot_reports_a_refusal_in_one_line(hall: Hall) -> None:
    """The server refuses the bot's table (an option out of range): one line naming the
    reason, exit status 1, no traceback."""
    assert hall.port
    command = [sys.executable, "-m", "rummyhall", "bot", "--server", f"127.0.0.1:{hall.port}",
               "--game", "gin", "-o", "knock_limit=99"]
    result = await trio.run_process(command, capture_stdout=True, capture_stderr=True,
                                    check=False)
    err = result.stderr.decode()
    assert result.returncode == 1
    assert "knock_limit" in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1


class OwnMelds(Greedy):
    """Knocks laying its melds itself: the best arrangement's, named explicitly."""

    name = "own_melds"

    def __init__(self) -> None:
        super().__init__()
        self.knocks = 0
        self.shown: list[tuple[tuple[Card, ...], ...]] = []

    def choose(self, view: SeatView, legal: Sequence[SeatAction]) -> SeatAction:
        action = super().choose(view, legal)
        if isinstance(action, Knock) and action.card is not None:
            rules = meld_rules_for(view.game, dict(view.options))
            kept = [c for c in view.hand if c != action.card]
            self.knocks += 1
            return knock_with_melds(action, best_arrangement(kept, rules).melds)
        return action

    def on_event(self, table: int, event: object, view: SeatView | None) -> None:
        if isinstance(event, Showdown) and view is not None and view.seat is not None:
            mine = next(r for r in event.reveals if r.seat == view.seat)
            if mine.melds:
                self.shown.append(mine.melds)


async def test_a_network_bot_knocks_with_its_own_melds(hall: Hall) -> None:
    assert hall.port
    bot = OwnMelds()
    # (three games: in one the house bot may win every hand before the bot can knock)
    results = await run_bot(bot, "127.0.0.1", hall.port, game="gin",
                            options={"target_score": 100}, games=3)
    assert results and all(r.winners for r in results)
    assert bot.knocks >= 1  # every knock it sent was accepted (a refusal would be logged
    assert bot.shown  # and the game would stall): the showdowns show its melds


class Listener(Greedy):
    """Remembers every event it hears, and what it had heard last at each game's end."""

    name = "listener"

    def __init__(self) -> None:
        super().__init__()
        self.heard: list[object] = []
        self.last_at_end: list[object] = []

    def on_event(self, table: int, event: object, view: SeatView | None) -> None:
        self.heard.append(event)

    def on_game_over(self, table: int, view: SeatView) -> None:
        self.last_at_end.append(self.heard[-1] if self.heard else None)


async def test_a_bot_hears_every_event_before_its_next_decision_and_the_end(
        hall: Hall) -> None:
    """A reply brings the ok, the events and the next prompt at once: the runner passes
    the bot every event already received before it decides again, so the game's end is
    reported after its last event (the GameOver), not before it."""
    assert hall.port
    bot = Listener()
    results = await run_bot(bot, "127.0.0.1", hall.port, game="gin",
                            options={"target_score": 25}, games=2)
    assert len(results) == 2
    assert len(bot.last_at_end) == 2 and all(isinstance(e, GameOver)
                                             for e in bot.last_at_end), bot.last_at_end


class ProtectionProbe(Greedy):
    """Notes, in each of its hooks, whether a Ctrl-C would raise there and then."""

    name = "probe"

    def __init__(self) -> None:
        super().__init__()
        self.protected: dict[str, set[bool]] = {}

    def note(self, hook: str) -> None:
        self.protected.setdefault(hook, set()).add(trio.lowlevel.currently_ki_protected())

    def choose(self, view: SeatView, legal: Sequence[SeatAction]) -> SeatAction:
        self.note("choose")
        return super().choose(view, legal)

    def on_event(self, table: int, event: object, view: SeatView | None) -> None:
        self.note("on_event")

    def on_game_over(self, table: int, view: SeatView) -> None:
        self.note("on_game_over")


async def test_ctrl_c_lands_in_the_bot_never_inside_the_runner_or_the_session(
        hall: Hall, monkeypatch: pytest.MonkeyPatch) -> None:
    """The runner's own steps and the session's tasks defer a KeyboardInterrupt to the
    main task's next checkpoint (so it never leaves a cancel scope half entered); the
    bot's hooks, and the caller's, stay open to it (a bot that loops forever stops)."""
    assert hall.port
    bot = ProtectionProbe()
    inside: dict[str, set[bool]] = {}
    act, push = Session.act, Session._push

    async def noted_act(self: Session, *args: Any, **kwargs: Any) -> Any:
        inside.setdefault("act (the runner)", set()).add(
            trio.lowlevel.currently_ki_protected())
        return await act(self, *args, **kwargs)

    async def noted_push(self: Session, update: Update) -> None:
        inside.setdefault("push (the reader)", set()).add(
            trio.lowlevel.currently_ki_protected())
        await push(self, update)

    monkeypatch.setattr(Session, "act", noted_act)
    monkeypatch.setattr(Session, "_push", noted_push)
    await run_bot(bot, "127.0.0.1", hall.port, game="gin", options={"target_score": 10},
                  on_result=lambda _: bot.note("on_result"),
                  on_seated=lambda *_: bot.note("on_seated"))
    assert inside == {"act (the runner)": {True}, "push (the reader)": {True}}
    assert bot.protected == {hook: {False} for hook in
                             ("choose", "on_event", "on_game_over", "on_result", "on_seated")}
