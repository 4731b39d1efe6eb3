"""Every screen of the console fits 80x24, 100x30 and 132x43: drawn by prompt_toolkit
into a screen of that size, no line is wider than its window, no text falls below it,
and no word is broken at a window's edge."""

from __future__ import annotations

import asyncio
import re

import pytest
from prompt_toolkit.data_structures import Size
from prompt_toolkit.formatted_text import fragment_list_to_text
from screens import NAMES, SIZES, app_for, drawn, lobby_model, screens, table_model

from rummyhall.client.console.fitting import Fragments, short_names, wrap
from rummyhall.client.console.layout import main_size, scores_pages
from rummyhall.client.console.model import ConsoleModel, LogEntry
from rummyhall.client.console.snapshot import draw
from rummyhall.protocol.payloads import games_catalogue

SCREENS = dict(screens())


def known_words(model: ConsoleModel, lines: list[str]) -> set[str]:
    """Every word the screen may show whole: the names, the status, the log, and the
    words of its rows that are not at a pane's edge."""
    texts = [*NAMES, model.status, *(e.text for e in model.log)]
    inside = {w for line in lines for segment in line.split("│")
              for w in segment.split()[:-1]}
    return {w for text in texts for w in text.split()} | inside


def broken_words(lines: list[str], words: set[str], columns: int) -> list[str]:
    """Words cut at a pane's edge: a row that runs to the edge ending in a piece that is
    only the start of a word."""
    out = []
    for line in lines:
        segments = line.split("│")
        for i, segment in enumerate(segments):
            at_edge = len(line) == columns if i == len(segments) - 1 else (
                segment != "" and not segment.endswith(" "))
            pieces = segment.split()
            if not at_edge or not pieces:
                continue
            last = pieces[-1]
            if last in words or last.endswith("…") or sum(c.isalpha() for c in last) < 3:
                continue
            if any(w.startswith(last) and w != last for w in words if len(w) > len(last)):
                out.append(f"{last!r} in {line!r}")
    return out


@pytest.mark.parametrize("size", SIZES, ids=[f"{c}x{r}" for c, r in SIZES])
@pytest.mark.parametrize("name", list(SCREENS))
def test_every_screen_fits(name: str, size: tuple[int, int]) -> None:
    model = SCREENS[name]
    columns, rows = size
    screen = drawn(model, columns, rows)
    assert not screen.faults, "\n".join([*screen.faults, screen.text()])
    assert len(screen.lines) == rows and all(len(line) <= columns for line in screen.lines)
    assert not broken_words(screen.lines, known_words(model, screen.lines), columns), screen.text()
    # the title names the server only when it is not the product's own name
    assert screen.lines[0].startswith(" Rummy Hall · ada · ")
    if name.startswith(("table-", "scores-")) and name != "table-waiting":
        assert "later?" in screen.text()  # the log's newest line is in sight
        assert "illegal_discard" in screen.text()  # the whole refusal, wrapped
        assert re.search(r"discard\s+another\s+card", screen.text())


def test_the_log_grows_with_the_terminal_and_wraps_at_words() -> None:
    model = table_model("gin")
    model.log.append(LogEntry("info", "a line of words that is long enough to need a wrap"))
    narrow, wide = drawn(model, 80, 24), drawn(model, 132, 43)
    pane = [line.split("│")[-1] for line in narrow.lines[1:-3] if "│" in line]
    assert max(len(p) for p in pane) <= 24
    assert max(len(line.split("│")[-1]) for line in wide.lines[1:-3] if "│" in line) > 24
    assert "  long enough to need a" in "\n".join(pane) or "a wrap" in "\n".join(pane)


@pytest.mark.parametrize("game", ["chicago", "three_thirteen"])
def test_the_score_chart_shows_every_player(game: str) -> None:
    model = SCREENS[f"scores-{game}"]
    screen = drawn(model, 80, 24)
    players = 8
    chart = [line for line in screen.lines if re.search(r"[▁▂▃▄▅▆▇█]+ \d+", line)]
    assert len(chart) == players, screen.text()


def test_the_scores_turn_their_pages_where_the_terminal_is_small() -> None:
    model = SCREENS["scores-chicago"]
    small = main_size(model, Size(rows=24, columns=80))
    large = main_size(model, Size(rows=43, columns=132))
    assert len(scores_pages(model, small.columns, small.rows - 1)) == 2
    gin = SCREENS["scores-gin"]
    assert len(scores_pages(gin, large.columns, large.rows - 1)) == 1
    model.scores_page = 1
    assert "Last hand" in drawn(model, 80, 24).text()
    model.scores_page = 0


def test_names_are_shortened_visibly_and_never_alike() -> None:
    names = ["Bartholomew-Fitzgerald-Montague", "Bartholomew-Fitzgerald-Monroe",
             "strong bot", "strong bot 2", "ada"]
    for width in (4, 6, 8, 12, 16):
        short = short_names(names, width)
        assert len(set(short)) == len(names), short
        assert all(len(s) <= width for s in short)
        assert all(s == n or s.find("…") > 0 for s, n in zip(short, names, strict=True))
    assert short_names(names, 16)[-1] == "ada"


def test_wrap_breaks_at_words() -> None:
    text: Fragments = [("", " one two three four five six seven")]
    rows = fragment_list_to_text(wrap(text, 12)).split("\n")
    assert rows == [" one two", "   three", "   four five", "   six seven"]
    assert all(len(r) <= 12 for r in rows)


def test_the_lobby_shows_the_tables_around_the_selected_one() -> None:
    model = lobby_model()
    model.lobby_row = 3
    text = drawn(model, 80, 24).text()
    assert "▶ #4" in text and "more above" in text
    assert len(games_catalogue()) == 4


def test_the_history_shows_the_newest_first_and_how_many_more() -> None:
    model = SCREENS["history"]
    text = drawn(model, 80, 24).text()
    assert text.index("▶ #30") < text.index("#29") < text.index("#28")
    assert re.search(r"↓ 27 more below", text) and "more above" not in text
    assert "you 130" in text and "Bartholomew-F…oe won" in text  # a name kept with its words
    model.history_row = 29  # the oldest, under the pointer: the newest are above
    text = drawn(model, 80, 24).text()
    assert "▶ #1 " in text and re.search(r"↑ \d+ more above", text) and "#30" not in text
    model.history_row = 0


def test_the_history_says_when_older_games_are_on_the_server() -> None:
    model = SCREENS["history"]
    model.history_more = True
    try:
        text = " ".join(drawn(model, 80, 24).text().split())
    finally:
        model.history_more = False
    assert "more below, and older ones on the server" in text
    assert "Enter: the game, hand by hand" in text


def test_a_record_scrolls_to_its_end_and_no_further() -> None:
    model = SCREENS["record"]
    assert model.record is not None
    first = drawn(model, 80, 24).text()
    assert "Game #30: three_thirteen at table 4" in first and "rows 1–" in first
    model.record_top = 10 ** 6  # (End: the layout keeps the last page in sight)
    last = drawn(model, 80, 24).text()
    total = int(re.findall(r"rows \d+–(\d+) of (\d+)", last)[0][1])
    assert re.search(rf"rows \d+–{total} of {total}", last), last
    assert model.record[-1].split()[-1] in last  # (the record's last line, wrapped or not)
    model.record_top = 0


def test_a_drawing_shows_the_model_now_not_the_last_drawing() -> None:
    """(The controls keep their text per render: a capture of a running app taken
    before it redrew must not show the screen before.)"""
    model = lobby_model()

    async def run() -> tuple[str, str]:
        app = app_for(model, 80, 24)
        before = draw(app, 80, 24).text()  # type: ignore[arg-type]
        model.show_help = True
        return before, draw(app, 80, 24).text()  # type: ignore[arg-type]

    before, after = asyncio.run(run())
    assert "Tables" in before and "Keys" in after and "Tables" not in after
