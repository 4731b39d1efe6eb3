"""Names belong to tokens: a name is reserved for whoever holds its player's token."""

from __future__ import annotations

import pytest
import trio
import trio.testing
from fast_settings import with_settings
from players import RawClient, wait_for
from sessions import session_of

from rummyhall.client import open_session
from rummyhall.protocol import (
    AddBot,
    CreateTable,
    Error,
    Hello,
    Join,
    Leave,
    Ok,
    Ping,
    Pong,
    Start,
    Watch,
    Welcome,
)
from rummyhall.server import Hall, Settings
from rummyhall.server.players import PlayerRegistry
from rummyhall.server.table import Command


async def welcome_of(port: int, name: str, token: str | None = None) -> tuple[RawClient, object]:
    raw = await RawClient.connect(port)
    await raw.send(Hello(versions=(1,), name=name, kind="person", token=token))
    return raw, await raw.receive()


async def seated(port: int, name: str) -> tuple[RawClient, str, int]:
    """A client that said hello, made a table and sat at it; its token and the table."""
    raw, welcome = await welcome_of(port, name)
    assert isinstance(welcome, Welcome)
    await raw.send(CreateTable(game="gin", players=2, id=1))
    created = await raw.receive()
    assert isinstance(created, Ok) and created.table is not None
    await raw.send(Join(table=created.table, seat=0, id=2))
    while not isinstance(await raw.receive(), Ok):
        pass
    return raw, session_of(welcome).token, created.table


def fatal_code(message: object) -> str | None:
    return message.code if isinstance(message, Error) and message.fatal else None


async def test_a_name_whose_seat_is_held_is_refused_to_anybody_without_its_token(
        hall: Hall) -> None:
    assert hall.port
    ada, token, table = await seated(hall.port, "ada")
    player = hall.lobby.players.holder("ada")
    await ada.aclose()  # her seat waits for her (the grace period)
    await wait_for(lambda: player is not None and not player.connected)
    for name, wrong in (("ada", None), ("ADA", None), ("ada", "ab" * 16)):
        squatter, answer = await welcome_of(hall.port, name, wrong)
        assert fatal_code(answer) == "name_taken", (name, wrong)
        await squatter.aclose()
    back, welcome = await welcome_of(hall.port, "ada", token)
    assert isinstance(welcome, Welcome) and session_of(welcome).resumed
    assert hall.lobby.tables[table].seats[0].player is player
    await back.aclose()


@pytest.mark.parametrize(("held", "lookalike"), [
    ("jos\u00e9", "jose\u0301"),  # one character, or an e and a combining accent
    ("jose\u0301", "JOS\u00c9"),
    ("ada", "\uff41\uff44\uff41"),  # full-width letters
    ("Stra\u00dfe", "STRASSE"),
    ("ada", "ad\u034fa"),  # an invisible combining grapheme joiner
    ("ada", "ada\ufe0f"),  # a variation selector
    ("ada", "ada\u3164"),  # a Hangul filler, shown as nothing
    ("ada", "\u2800ada"),  # the blank Braille pattern, drawn as a space
    ("ada", "ada\U0001d159"),  # the musical null notehead, drawn as nothing
])
async def test_a_name_that_only_looks_different_is_the_same_name(
        hall: Hall, held: str, lookalike: str) -> None:
    """Names are compared in Unicode's compatibility form, case-folded: a client cannot
    take a name in use by spelling it with other code points that look the same."""
    assert hall.port
    holder, welcome = await welcome_of(hall.port, held)
    assert isinstance(welcome, Welcome)
    squatter, answer = await welcome_of(hall.port, lookalike)
    assert fatal_code(answer) == "name_taken", (held, lookalike, answer)
    await squatter.aclose()
    other, fine = await welcome_of(hall.port, "jose")  # (an e without its accent differs)
    assert isinstance(fine, Welcome)
    await other.aclose()
    await holder.aclose()


async def test_the_token_holder_wins_its_name_back_from_whoever_took_it(hall: Hall) -> None:
    """A player who holds nothing leaves its name free for a while; when it comes back
    with its token, it gets its name, and whoever took the name meanwhile is closed."""
    assert hall.port
    ada, welcome = await welcome_of(hall.port, "ada")
    assert isinstance(welcome, Welcome)
    await ada.aclose()
    await wait_for(lambda: not any(p.name == "ada" for p in hall.lobby.players.connected()))
    squatter, taken = await welcome_of(hall.port, "ada")
    assert isinstance(taken, Welcome) and not session_of(taken).resumed
    back, again = await welcome_of(hall.port, "ada", session_of(welcome).token)
    assert isinstance(again, Welcome) and session_of(again).resumed
    assert session_of(again).player == session_of(welcome).player
    assert [fatal_code(m) for m in await squatter.receive_until_closed()] == ["name_taken"]
    holder = hall.lobby.players.holder("ada")
    assert holder is not None and holder.id == session_of(welcome).player
    await back.aclose()


async def test_a_wrong_token_resumes_nobody(hall: Hall) -> None:
    assert hall.port
    ada, welcome = await welcome_of(hall.port, "ada")
    assert isinstance(welcome, Welcome)
    token = session_of(welcome).token
    near = token[:-1] + ("0" if token[-1] != "0" else "1")  # one digit off
    other, answer = await welcome_of(hall.port, "bob", near)
    assert isinstance(answer, Welcome) and not session_of(answer).resumed
    assert session_of(answer).player != session_of(welcome).player
    await other.aclose()
    await ada.aclose()


@pytest.mark.parametrize("settings", [with_settings(max_players=100)])
async def test_records_of_players_who_hold_nothing_are_bounded(hall: Hall,
                                                               settings: Settings) -> None:
    """Every hello makes a record; the records of players who hold nothing are forgotten,
    the longest gone first, once the registry reaches max_players; a seated one stays."""
    assert hall.port
    sitter, token, _ = await seated(hall.port, "sitter")
    await sitter.aclose()
    for n in range(250):
        raw, welcome = await welcome_of(hall.port, f"passer{n}")
        assert isinstance(welcome, Welcome)
        await raw.aclose()
        assert len(hall.lobby.players) <= settings.max_players
    await trio.sleep(0)
    assert len(hall.lobby.players) <= settings.max_players
    assert hall.lobby.players.holder("passer0") is None  # the oldest went first
    assert hall.lobby.players.by_token(token) is not None  # the seated one is kept
    back, welcome = await welcome_of(hall.port, "sitter", token)
    assert isinstance(welcome, Welcome) and session_of(welcome).resumed
    await back.aclose()


@pytest.mark.parametrize("settings", [with_settings(max_players=100)])
async def test_a_gone_player_keeps_its_record_while_the_registry_has_room(
        hall: Hall, settings: Settings) -> None:
    """Room is made only once the registry is full: below ``max_players`` a player who
    left (and holds nothing) still resumes with its token, however many came after."""
    assert hall.port
    first, welcome = await welcome_of(hall.port, "first")
    assert isinstance(welcome, Welcome)
    await first.aclose()
    for n in range(settings.max_players - 5):  # past nine tenths, short of the cap
        raw, passer = await welcome_of(hall.port, f"passer{n}")
        assert isinstance(passer, Welcome)
        await raw.aclose()
    assert len(hall.lobby.players) < settings.max_players
    back, again = await welcome_of(hall.port, "first", session_of(welcome).token)
    assert isinstance(again, Welcome) and session_of(again).resumed
    await back.aclose()


@pytest.mark.parametrize("settings", [with_settings(max_players=10)])
async def test_the_registry_shrinks_back_under_its_cap_once_its_players_leave(
        hall: Hall, settings: Settings) -> None:
    """More players connected at once than ``max_players`` are all kept (none holds
    nothing); once they have left, the next hello brings the registry under the cap."""
    assert hall.port
    crowd = []
    for n in range(settings.max_players + 3):
        raw, welcome = await welcome_of(hall.port, f"crowd{n}")
        assert isinstance(welcome, Welcome)
        crowd.append(raw)
    assert len(hall.lobby.players) > settings.max_players
    for raw in crowd:
        await raw.aclose()
    await wait_for(lambda: not any(hall.lobby.players.connected()))
    late, welcome = await welcome_of(hall.port, "late")
    assert isinstance(welcome, Welcome)
    assert len(hall.lobby.players) <= settings.max_players
    await late.aclose()


async def test_a_token_does_not_buy_a_name_another_player_is_using(hall: Hall) -> None:
    """A player resuming with its own token may ask for a new name, but not for one
    whose holder is connected: that is refused as ``name_taken``, and the holder keeps
    it."""
    assert hall.port
    zed = await regular(hall, "zed")
    ann = await regular(hall, "ann")  # (a name before "carol", zed's after)
    carol, hers = await welcome_of(hall.port, "carol")
    assert isinstance(hers, Welcome)
    for name, thief_token in (("carol", zed), ("Carol", zed), ("carol", ann)):
        thief, answer = await welcome_of(hall.port, name, thief_token)
        assert fatal_code(answer) == "name_taken", name
        await thief.aclose()
    holder = hall.lobby.players.holder("carol")
    assert holder is not None and holder.id == session_of(hers).player and holder.connected
    await carol.send(Ping(id=1))
    assert isinstance(await carol.receive(), Pong)  # (her connection is untouched)
    await carol.aclose()


async def test_a_name_taken_on_loan_is_lost_for_good_when_its_owner_returns(
        hall: Hall) -> None:
    """No ping-pong: once the owner has its name back, the one who had taken it cannot
    take it again with its own token while the owner is there."""
    assert hall.port
    ada, welcome = await welcome_of(hall.port, "ada")
    assert isinstance(welcome, Welcome)
    await ada.aclose()
    await wait_for(lambda: not any(p.name == "ada" for p in hall.lobby.players.connected()))
    squatter, taken = await welcome_of(hall.port, "ada")
    assert isinstance(taken, Welcome)
    back, again = await welcome_of(hall.port, "ada", session_of(welcome).token)
    assert isinstance(again, Welcome) and session_of(again).resumed
    await squatter.receive_until_closed()
    for _ in range(3):  # the squatter tries again with its own token: refused each time
        retry, answer = await welcome_of(hall.port, "ada", session_of(taken).token)
        assert fatal_code(answer) == "name_taken"
        await retry.aclose()
    await back.send(Ping(id=1))  # the owner's connection was never touched
    assert isinstance(await back.receive(), Pong)
    await back.aclose()


async def gone(hall: Hall, raw: RawClient, name: str) -> None:
    """Close ``raw`` and wait until the server has seen it go."""
    await raw.aclose()
    await wait_for(lambda: not any(p.name == name for p in hall.lobby.players.connected()))


async def regular(hall: Hall, name: str) -> str:
    """The token of a player who came as ``name`` and left (it holds nothing)."""
    assert hall.port
    raw, welcome = await welcome_of(hall.port, name)
    assert isinstance(welcome, Welcome)
    await gone(hall, raw, name)
    return session_of(welcome).token


async def owner_wins_it_back(hall: Hall, name: str, token: str, taker: RawClient) -> RawClient:
    """The owner of ``name`` comes back with ``token``: it is resumed with its name, and
    ``taker``, who had it, is closed with name_taken. The owner's connection."""
    assert hall.port
    back, again = await welcome_of(hall.port, name, token)
    assert isinstance(again, Welcome) and session_of(again).resumed, again
    assert [fatal_code(m) for m in await taker.receive_until_closed()] == ["name_taken"]
    holder = hall.lobby.players.holder(name)
    assert holder is not None and holder.id == session_of(again).player
    return back


@pytest.mark.parametrize("renamer", ["aaron", "bob"])  # (one sorts before "ada", one after)
async def test_a_name_taken_by_a_returning_player_is_only_on_loan(hall: Hall,
                                                                 renamer: str) -> None:
    """A player back with its own token may ask for another name that nobody holds just
    now; it gets that name on loan, and the name's owner still wins it back."""
    assert hall.port
    ada = await regular(hall, "ada")
    other = await regular(hall, renamer)
    taker, taken = await welcome_of(hall.port, "ada", other)
    assert isinstance(taken, Welcome) and session_of(taken).resumed
    await (await owner_wins_it_back(hall, "ada", ada, taker)).aclose()


async def test_an_owner_who_won_its_name_back_owns_it_still(hall: Hall) -> None:
    """Each time the owner leaves, another may borrow the name; each time it comes back,
    it wins it back."""
    assert hall.port
    ada = await regular(hall, "ada")
    for _ in range(2):
        taker, taken = await welcome_of(hall.port, "ada")
        assert isinstance(taken, Welcome) and not session_of(taken).resumed
        await gone(hall, await owner_wins_it_back(hall, "ada", ada, taker), "ada")


async def test_an_owner_does_not_break_off_the_game_of_the_one_who_took_its_name(
        hall: Hall) -> None:
    """One who took a name while its owner held nothing, and plays a game with it, keeps
    it while that game is played: the owner's token gets name_taken (a game is never
    broken off for a name). (A client that said hello under many names and left could
    otherwise throw players off those names in the middle of their games.) One that only
    watches a table, or sits at one not started, is no such player: the owner wins its
    name back from it as from anybody."""
    assert hall.port
    ada = await regular(hall, "ada")
    host, _, table = await seated(hall.port, "host")  # (its seat 0; the taker takes 1)
    taker, welcome = await welcome_of(hall.port, "Ada")
    assert isinstance(welcome, Welcome)
    assert isinstance(await taker.request(Join(table=table, seat=1, id=1)), Ok)
    bea = await regular(hall, "bea")
    idler, idle = await welcome_of(hall.port, "Bea")  # watches the table, plays nothing
    assert isinstance(idle, Welcome)
    assert isinstance(await idler.request(Watch(table=table, id=1)), Ok)
    assert isinstance(await host.request(Start(table=table, id=3)), Ok)
    for _ in range(2):
        refused, answer = await welcome_of(hall.port, "ada", ada)
        assert fatal_code(answer) == "name_taken"
        assert isinstance(answer, Error) and "in a game" in answer.message
        await refused.aclose()
    await taker.send(Ping(id=1))  # the taker's connection was never touched
    while not isinstance(got := await taker.receive(), Pong):
        assert not isinstance(got, Error), got  # (lobby updates, the game may come first)
    back, again = await welcome_of(hall.port, "bea", bea)  # the owner of "bea" is back
    assert isinstance(again, Welcome) and session_of(again).resumed, again
    closing = [fatal_code(m) for m in await idler.receive_until_closed()]
    assert [code for code in closing if code] == ["name_taken"]
    await back.aclose()
    await taker.aclose()
    await host.aclose()


async def test_an_owner_wins_its_name_back_once_the_takers_game_is_over(hall: Hall) -> None:
    """The taker's game protects its name only while it is played: the taker leaves its
    seat (a stand-in plays it: still its game), the game ends, and then the owner's
    token wins the name back, the taker's connection closed with name_taken."""
    assert hall.port
    ada = await regular(hall, "ada")
    taker, welcome = await welcome_of(hall.port, "Ada")
    assert isinstance(welcome, Welcome)

    made = await taker.request(CreateTable(game="gin", players=2,
                                           options={"target_score": 1}, id=1))
    assert isinstance(made, Ok) and made.table is not None, made
    table = made.table
    for request in (Join(table=table, seat=0, id=2), AddBot(table=table, seat=1, id=3),
                    Start(table=table, id=4),
                    Leave(table=table, id=5),  # a stand-in plays its seat: still its game
                    Watch(table=table, id=6)):  # (someone is at the table: bots play on)
        assert isinstance(await taker.request(request), Ok)
    refused, answer = await welcome_of(hall.port, "ada", ada)
    assert fatal_code(answer) == "name_taken"
    await refused.aclose()
    await wait_for(lambda: hall.lobby.tables.get(table) is None
                   or hall.lobby.tables[table].state == "finished")
    back, again = await welcome_of(hall.port, "ada", ada)
    assert isinstance(again, Welcome) and session_of(again).resumed, again
    closing = [fatal_code(m) for m in await taker.receive_until_closed()]
    assert [code for code in closing if code] == ["name_taken"]
    await back.aclose()


async def test_a_borrower_owns_the_fresh_name_it_takes_next(hall: Hall) -> None:
    """A borrower that comes back under a name nobody ever had owns that one: it wins it
    back from whoever takes it while it is away."""
    assert hall.port
    await regular(hall, "ada")
    borrower, borrowed = await welcome_of(hall.port, "ada")
    assert isinstance(borrowed, Welcome)
    await gone(hall, borrower, "ada")
    token = session_of(borrowed).token
    renamed, welcome = await welcome_of(hall.port, "bea", token)
    assert isinstance(welcome, Welcome) and session_of(welcome).resumed
    await gone(hall, renamed, "bea")
    taker, taken = await welcome_of(hall.port, "bea")
    assert isinstance(taken, Welcome) and not session_of(taken).resumed
    await (await owner_wins_it_back(hall, "bea", token, taker)).aclose()


async def test_a_borrower_cannot_win_a_name_back_from_the_next_borrower(hall: Hall) -> None:
    """Only the owner's token wins a name back: one who had it on loan and left finds it
    taken by the next borrower, and is refused while that one is connected."""
    assert hall.port
    await regular(hall, "ada")
    first, lent = await welcome_of(hall.port, "ada")
    assert isinstance(lent, Welcome)
    await gone(hall, first, "ada")
    second, lent_again = await welcome_of(hall.port, "ada")
    assert isinstance(lent_again, Welcome)
    retry, answer = await welcome_of(hall.port, "ada", session_of(lent).token)
    assert fatal_code(answer) == "name_taken"
    await retry.aclose()
    await second.send(Ping(id=1))  # (the second borrower's connection is untouched)
    assert isinstance(await second.receive(), Pong)
    await second.aclose()


async def test_a_borrower_connecting_again_replaces_its_own_connection(hall: Hall) -> None:
    """A name on loan is still its holder's: the holder's token, on a second connection,
    resumes it there and closes the first with session_replaced (not name_taken)."""
    assert hall.port
    await regular(hall, "ada")
    first, lent = await welcome_of(hall.port, "ada")
    assert isinstance(lent, Welcome)
    again, welcome = await welcome_of(hall.port, "ada", session_of(lent).token)
    assert isinstance(welcome, Welcome) and session_of(welcome).resumed
    assert [fatal_code(m) for m in await first.receive_until_closed()] == ["session_replaced"]
    await again.aclose()


@pytest.mark.parametrize("settings", [with_settings(player_expiry_seconds=1)])
async def test_a_spectator_that_dropped_holds_nothing(hall: Hall, settings: Settings) -> None:
    """A watcher that drops without leave keeps no record, and no name, past the expiry."""
    assert hall.port
    maker, _, table = await seated(hall.port, "maker")
    for n in range(5):
        raw, welcome = await welcome_of(hall.port, f"spec{n}")
        assert isinstance(welcome, Welcome)
        await raw.send(Watch(table=table, id=1))
        while not isinstance(await raw.receive(), Ok):
            pass
        await raw.aclose()
    await wait_for(lambda: not hall.lobby.tables[table].spectators)
    assert hall.lobby.forget_stale(trio.current_time() + 2) == 5
    again, welcome = await welcome_of(hall.port, "spec0")
    assert isinstance(welcome, Welcome)  # the name is free
    await again.aclose()
    await maker.aclose()


@pytest.mark.parametrize("settings", [with_settings(grace_seconds=1)])
async def test_a_seat_at_a_waiting_table_is_freed_after_the_grace_period(
        hall: Hall, settings: Settings, autojump_clock: trio.testing.MockClock) -> None:
    """A player who sat at a table that has not started and went away does not hold the
    seat (nor the table, nor its name) for ever: after the grace period the seat is
    empty, and the table, with its creator gone too, is removed."""
    assert hall.port
    ada, _, table = await seated(hall.port, "ada")
    await ada.aclose()
    await wait_for(lambda: table not in hall.lobby.tables, timeout=30)
    holder = hall.lobby.players.holder("ada")
    assert holder is not None and not hall.lobby.holds_seat_or_table(holder)


async def test_a_reply_goes_to_the_connection_that_asked_not_to_a_newer_one(
        hall: Hall) -> None:
    """A request still in a table's queue when its connection is replaced (the same
    player resumed elsewhere) is carried out, but its reply is not sent to the new
    connection, which never asked."""
    assert hall.port
    ada, welcome = await welcome_of(hall.port, "ada")
    assert isinstance(welcome, Welcome)
    await ada.send(CreateTable(game="gin", players=2, id=1))
    created = await ada.receive()
    assert isinstance(created, Ok) and created.table is not None
    player = hall.lobby.players.holder("ada")
    assert player is not None and player.outbox is not None
    old = player.outbox
    again, resumed = await welcome_of(hall.port, "ada", session_of(welcome).token)
    assert isinstance(resumed, Welcome) and session_of(resumed).resumed
    await wait_for(lambda: player.outbox is not None and player.outbox is not old)
    table = hall.lobby.tables[created.table]
    command = Command(player, Join(table=created.table, seat=0, id=99), trio.Event(), old)
    await table.inbox.send(command)
    assert command.done is not None
    await command.done.wait()
    assert table.seats[0].player is player  # it was carried out
    await again.send(Ping(id="after"))
    while not isinstance(message := await again.receive(), Pong):
        assert getattr(message, "id", None) != 99, message  # its reply did not come here
    await again.aclose()
    await ada.aclose()


async def test_house_bots_of_one_strategy_get_distinct_names(hall: Hall) -> None:
    """Two strong bots at one table are "strong bot" and "strong bot 2": each has its own
    name, so each its own rating."""
    assert hall.port
    async with open_session("127.0.0.1", hall.port, name="host") as host:
        table = await host.create_table("basic", 4)
        for seat in range(3):
            await host.add_bot(table, seat, "strong")
        await host.add_bot(table, 3, "simple")
        (info,) = [t for t in await host.list_tables() if t.table == table]
        assert [s.name for s in info.seats] == [
            "strong bot", "strong bot 2", "strong bot 3", "simple bot"]
        await host.remove_bot(table, 0)
        (info,) = [t for t in await host.list_tables() if t.table == table]
        assert [s.name for s in info.seats][1:] == ["strong bot", "strong bot 2", "simple bot"]


def test_a_restored_player_never_shares_its_id_with_a_new_one() -> None:
    """After a restart the registry hands out ids above every restored one, whatever the
    order the players come back in (the mutation pass found nothing checking it)."""
    registry = PlayerRegistry()
    registry.restore(7, "ada", "person", "a" * 64)
    registry.restore(3, "bob", "person", "b" * 64)
    first, _ = registry.new("cy", "person")
    second, _ = registry.new("dee", "person")
    assert (first.id, second.id) == (8, 9)
    assert registry.get(7) is not None and registry.get(7) is not first


def test_the_borrower_of_a_forgotten_owners_name_owns_it() -> None:
    """A name on loan while its owner may come back is its borrower's own once the owner
    is forgotten: taken again by a third player, the borrower wins it back with its token."""
    registry = PlayerRegistry()
    owner, _ = registry.new("ada", "person")
    owner.owns_name = True
    borrower, token = registry.new("ada2", "person")
    assert registry.claim(borrower, "ada") is owner
    borrower.owns_name = False  # (the hall's rule: taken from a holder that holds nothing)
    registry.forget(owner)
    assert registry.holder("ada") is borrower and borrower.owns_name
    assert registry.by_token(token) is borrower
