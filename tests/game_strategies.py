"""Hypothesis strategies shared by the test folders: games, options, illegal moves.

On the path of every test folder (pyproject.toml's ``pythonpath``); the protocol folder's
message strategies stay in tests/protocol/protocol_strategies.py, the only place using them.
"""

from __future__ import annotations

from hypothesis import strategies as st

from rummyhall.rules import (
    GAMES,
    Card,
    DeclareRummy,
    Discard,
    DrawDiscard,
    DrawStock,
    Game,
    GoOut,
    Knock,
    LayOff,
    Meld,
    PassUpcard,
    Phase,
    SeatAction,
    Shuffle,
    new_game,
    option_specs,
)

#: A game's name, its options, its number of seats and a seed.
Setup = tuple[str, dict[str, object], int, int]


def option_sets(game: str) -> st.SearchStrategy[dict[str, object]]:
    """Random valid options of ``game``: any subset, each a legal value (small integers
    keep the games short)."""
    fields: dict[str, st.SearchStrategy[object]] = {}
    for spec in option_specs(game):
        if spec.type == "bool":
            fields[spec.name] = st.booleans()
        elif spec.type == "enum":
            fields[spec.name] = st.sampled_from(spec.choices)
        elif spec.values is not None:
            fields[spec.name] = st.sampled_from(spec.values)
        elif spec.type == "int_or_auto":
            fields[spec.name] = st.just("auto")
        else:
            low = spec.low or 0
            fields[spec.name] = st.integers(low, min(spec.high or 0, low + 30))
    return st.fixed_dictionaries({}, optional=fields)


@st.composite
def game_setups(draw: st.DrawFn) -> Setup:
    """Any of the four games, random valid options, a seat count they allow, a seed."""
    game = draw(st.sampled_from(sorted(GAMES)))
    options = draw(option_sets(game))
    cls = GAMES[game]
    # Three Thirteen without wild deuces deals from one deck: three seats at most
    high = 3 if options.get("deuces_arent_wild") else min(cls.max_players, 5)
    players = draw(st.integers(cls.min_players, high))
    return game, options, players, draw(st.integers(0, 2**32))


def short_game(setup: Setup) -> Game:
    """A new game of ``setup``, its length capped so that examples stay quick: Basic Rummy
    plays at most three hands, Gin to 30 points, Chicago to 40 (unless the options say)."""
    game, options, players, seed = setup
    options = dict(options)
    if game == "basic":
        options["max_hands"] = options.get("max_hands") or 3
    if game == "gin":
        options.setdefault("target_score", 30)
    if game == "chicago":
        options.setdefault("elimination_score", 40)
    return new_game(game, options, players=players, first_dealer=seed % players)


# --- moves that must be refused whole ---------------------------------------------------


def single_card_actions(game: Game, seat: int) -> list[SeatAction]:
    """Every action of ``seat`` that names at most one card of its hand (draws, passes,
    rummy, every discard, knock, going out and one-card layoff): a legal list's reference
    universe, melds aside."""
    hand = game.hands[seat]
    universe: list[SeatAction] = [DrawStock(seat), DrawDiscard(seat), PassUpcard(seat),
                                  DeclareRummy(seat), Knock(seat, None)]
    for card in hand:
        universe += [Discard(seat, card), Knock(seat, card), GoOut(seat, card)]
        universe += [LayOff(seat, (card,), i) for i in range(len(game.melds))]
    return universe


def stray_cards(game: Game) -> list[Card]:
    """Cards worth trying in an action: the mover's, the other seats', the piles' tops,
    a table meld's, and cards this game's deck does not have."""
    pool: list[Card] = []
    for hand in game.hands:
        pool.extend(hand[:4])
        pool.extend(hand[-2:])
    pool.extend(game.stock[-2:])
    pool.extend(game.discard[-2:])
    for meld in game.melds[:3]:
        pool.extend(meld.cards[:2])
    pool += [Card.make(1, 0, copy=3), Card.make(13, 3, copy=3)]  # a fourth deck's
    return pool


@st.composite
def wrong_moves(draw: st.DrawFn, game: Game) -> SeatAction | Shuffle:
    """An action that is probably illegal now, or legal only in part: any kind, by the
    seat to move or another, with cards held, not held or not in the game, or a legal
    action's cards with one card changed, added or removed."""
    seat = game.to_move if game.to_move is not None else 0
    seat = draw(st.sampled_from([seat, (seat + 1) % game.players, seat]))
    pool = stray_cards(game)
    card = draw(st.sampled_from(pool))
    cards = tuple(draw(st.lists(st.sampled_from(pool), min_size=1, max_size=5)))
    meld = draw(st.integers(-1, len(game.melds)))
    legal = game.legal_actions()
    with_cards = [a for a in legal if isinstance(a, Meld | LayOff)]
    if game.phase in (Phase.DEAL, Phase.REBUILD):
        order = list(game.shuffle_cards())
        how = draw(st.sampled_from(["drop", "double", "stray"]))
        if how == "drop" and order:
            order.pop(draw(st.integers(0, len(order) - 1)))
        elif how == "double" and order:
            order[-1] = order[0]
        else:
            order.append(card)
        return Shuffle(tuple(order))
    change_one = draw(st.booleans())
    if with_cards and change_one:  # half-legal: a legal meld or layoff, changed
        base = draw(st.sampled_from(with_cards))
        base_cards = list(base.cards)
        how = draw(st.sampled_from(["add", "swap", "drop", "repeat"]))
        if how == "add":
            base_cards.append(card)
        elif how == "swap":
            base_cards[-1] = card
        elif how == "drop" and len(base_cards) > 1:
            base_cards.pop(0)
        else:
            base_cards.append(base_cards[0])
        if isinstance(base, LayOff):
            return LayOff(base.seat, tuple(base_cards), draw(st.sampled_from([base.meld, meld])))
        return Meld(base.seat, tuple(base_cards))
    with_card = [a for a in legal if isinstance(a, Discard | Knock | GoOut)]
    if with_card and change_one:  # a legal discard, knock or going out, another card
        base_action = draw(st.sampled_from(with_card))
        return type(base_action)(base_action.seat, card)
    anything: list[SeatAction | Shuffle] = [
        DrawStock(seat), DrawDiscard(seat), PassUpcard(seat), DeclareRummy(seat),
        Discard(seat, card), Knock(seat, card), Knock(seat, None), GoOut(seat, card),
        Meld(seat, cards), LayOff(seat, cards, meld), LayOff(seat, (card,), meld),
    ]
    return draw(st.sampled_from(anything))
