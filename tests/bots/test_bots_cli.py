"""``rummyhall arena``: loading bots from files and modules, the table and the files."""

from __future__ import annotations

import csv
import io
import json
import random
import socket
import textwrap
from pathlib import Path

import pytest

from rummyhall.arena import (
    CSV_COLUMNS,
    BotLoadError,
    Progress,
    entrant_for,
    load_strategy_class,
    run_parallel,
    unique_labels,
)
from rummyhall.botcmd import make_bot
from rummyhall.bots import ExpertBot
from rummyhall.bots.arena import ArenaConfig, GameOutcome, run_arena
from rummyhall.cli import build_parser, main

FIRST_LEGAL = """
class FirstLegal:
    name = "first"
    needs_view = False

    def choose(self, view, legal):
        return legal[0]
"""


def bot_file(tmp_path: Path, body: str, name: str = "mybot.py") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(body))
    return path


# ---------------------------------------------------------------------------- loader


def test_load_a_class_from_a_file(tmp_path: Path) -> None:
    path = bot_file(tmp_path, FIRST_LEGAL)
    cls = load_strategy_class(f"{path}:FirstLegal")
    assert cls().name == "first"
    entrant = entrant_for(f"{path}:FirstLegal")
    assert entrant.label == "first"


def test_load_a_class_from_a_module() -> None:
    cls = load_strategy_class("rummyhall.bots.strong_bot:StrongBot")
    assert cls.__name__ == "StrongBot"
    assert entrant_for("rummyhall.bots:SimpleBot").label == "simple"


@pytest.mark.parametrize(("spec", "message"), [
    ("strongish", "unknown strategy 'strongish'"),
    ("nocolon.py", "unknown strategy"),
    (":Cls", "expected FILE.py:ClassName"),
    ("rummyhall.bots:", "expected FILE.py:ClassName"),
    ("no/such/file.py:Bot", "no such file"),
    ("rummyhall.no_such_module:Bot", "cannot import module"),
    ("rummyhall.bots:NoSuchBot", "has no 'NoSuchBot'"),
    ("rummyhall.bots:STRATEGIES", "is not a class"),
    ("rummyhall.bots.arena:ArenaConfig", "failed"),
])
def test_loader_errors_say_what_is_wrong(spec: str, message: str) -> None:
    with pytest.raises(BotLoadError, match=message):
        entrant_for(spec)


def test_a_class_that_is_not_a_strategy_is_refused(tmp_path: Path) -> None:
    path = bot_file(tmp_path, """
        class Half:
            name = 3
            def choose(self, view, legal):
                return legal[0]
    """)
    with pytest.raises(BotLoadError, match=r"lacks a 'name' string, a 'needs_view' bool"):
        load_strategy_class(f"{path}:Half")


def test_a_file_that_fails_to_import_is_reported(tmp_path: Path) -> None:
    path = bot_file(tmp_path, "import no_such_package_here\n")
    with pytest.raises(BotLoadError, match="failed to load: ModuleNotFoundError"):
        load_strategy_class(f"{path}:Bot")
    broken = bot_file(tmp_path, "class Bot(:\n", "broken.py")
    with pytest.raises(BotLoadError, match="SyntaxError"):
        load_strategy_class(f"{broken}:Bot")


def test_repeated_labels_are_numbered() -> None:
    entrants = unique_labels([entrant_for("strong"), entrant_for("random"),
                              entrant_for("strong")])
    assert [e.label for e in entrants] == ["strong#1", "random", "strong#2"]


# ---------------------------------------------------------------------------- the command


def test_arena_prints_a_table_and_writes_csv_and_json(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out_csv, out_json = tmp_path / "r.csv", tmp_path / "r.json"
    code = main(["arena", "--game", "gin", "--games", "4", "--bots", "strong,random",
                 "--seed", "3", "--csv", str(out_csv), "--json", str(out_json)])
    assert code == 0
    text = capsys.readouterr().out
    assert "4 games (2 deal sets x 2 seatings), seed 3" in text
    assert "win rate [95% CI]" in text and "points/hand [95% CI]" in text
    with out_csv.open(newline="") as f:
        rows = list(csv.DictReader(f))
    assert [r["strategy"] for r in rows] == ["strong", "random"]
    assert tuple(rows[0]) == CSV_COLUMNS
    assert float(rows[0]["wins"]) + float(rows[1]["wins"]) == 4
    data = json.loads(out_json.read_text())
    assert data["game"] == "gin" and data["games"] == 4 and data["seed"] == 3
    assert [s["strategy"] for s in data["strategies"]] == ["strong", "random"]
    assert len(data["results"]) == 4
    assert data["results"][1]["seats"] == ["random", "strong"]


def test_arena_runs_a_bot_from_a_file_with_options(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = bot_file(tmp_path, FIRST_LEGAL)
    code = main(["arena", "--game", "chicago", "--games", "3", "--bots", "simple,strong",
                 "--bot", f"{path}:FirstLegal", "-o", "elimination_score=30", "-q"])
    assert code == 0
    text = capsys.readouterr().out
    assert "chicago, 3 players, elimination_score=30" in text
    assert "first" in text and "fewer is better" in text


def test_arena_reports_a_bad_bot_and_bad_options(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["arena", "--bots", "strong,nobody"]) == 2
    assert "unknown strategy 'nobody'" in capsys.readouterr().err
    assert main(["arena", "--bots", "strong,random", "-o", "knock_limit=99"]) == 2
    assert "knock_limit" in capsys.readouterr().err


def test_arena_reports_games_past_the_move_cap(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["arena", "--games", "2", "--bots", "random,random", "--max-moves", "20"])
    assert code == 1
    out = capsys.readouterr().out
    assert "error in deal set 0, rotation 0" in out and "no end after 20 moves" in out


def test_arena_refuses_more_strategies_than_seats(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["arena", "--bots", "strong,random,simple", "--players", "2"]) == 2
    assert "3 strategies for 2 seats" in capsys.readouterr().err


def test_the_progress_bar_is_one_line_rewritten() -> None:
    stream = io.StringIO()
    bar = Progress(4, stream, enabled=True)
    for i in range(4):
        bar.update(GameOutcome(i // 2, i % 2, (0, 1), 0, error="x" if i == 3 else None))
    bar.close()
    text = stream.getvalue()
    assert text.startswith("\r[") and text.endswith("\n") and "\n" not in text[:-1]
    assert "4/4 games" in text and "1 errors" in text
    quiet = io.StringIO()
    Progress(4, quiet, enabled=False).update(GameOutcome(0, 0, (0, 1), 0))
    assert quiet.getvalue() == ""


@pytest.mark.parametrize("command", ["selfplay", "bot"])
@pytest.mark.parametrize("count", ["0", "-3"])
def test_a_count_of_games_below_one_is_refused(command: str, count: str) -> None:
    with pytest.raises(SystemExit) as info:
        main([command, "--games", count])
    assert info.value.code == 2


def test_arena_over_a_server_that_is_not_there_says_so_once(
        capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    assert main(["arena", "--games", "2", "--bots", "strong,random", "-q",
                 "--server", f"127.0.0.1:{port}"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and f"cannot reach 127.0.0.1:{port}" in err[0]


def test_a_game_of_one_seat_count_says_so(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules", "gin"]) == 0
    assert capsys.readouterr().out.startswith("gin: Gin Rummy, 2 players\n")


def test_every_level_is_offered_by_the_commands(capsys: pytest.CaptureFixture[str]) -> None:
    for level in ("random", "simple", "strong", "expert"):
        args = build_parser().parse_args(["bot", "--strategy", level])
        assert make_bot(args).name == level
        assert entrant_for(level).label == level
    expert = entrant_for("expert", 7.5).factory(random.Random(1))
    assert isinstance(expert, ExpertBot) and expert.params.budget_ms == 7.5
    code = main(["arena", "--game", "gin", "--games", "2", "--bots", "expert,strong",
                 "--think-ms", "2", "--quiet", "--seed", "3"])
    out = capsys.readouterr().out
    assert code == 0 and "expert" in out
    assert main(["arena", "--bots", "expert,strong", "--think-ms", "0"]) == 2
    assert "--think-ms must be a positive number" in capsys.readouterr().err


def test_games_spread_over_processes_give_the_same_results() -> None:
    config = ArenaConfig("gin", (entrant_for("strong"), entrant_for("simple")), games=6,
                         seed=11)
    heard: list[GameOutcome] = []
    assert run_parallel(config, 2, heard.append) == run_arena(config)
    assert len(heard) == 6


def test_an_expert_bounded_by_worlds_gives_the_same_games_over_processes() -> None:
    # No clock is read: the same seed gives the same games, one process or two.
    config = ArenaConfig("gin", (entrant_for("expert", worlds=2), entrant_for("strong")),
                         games=2, seed=5, options={"target_score": 10})
    assert run_parallel(config, 2, lambda _: None) == run_arena(config)
    args = build_parser().parse_args(["arena", "--bots", "expert,strong", "--think-worlds", "3",
                                      "--think-clock", "wall"])
    assert args.think_worlds == 3 and args.think_clock == "wall"
