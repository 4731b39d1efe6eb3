"""Cards, their text notation and decks.

A :class:`Card` is an ``int`` with a fixed layout, so that cards are immutable,
hashable, cheap to compare and usable directly as bit positions by the meld solver::

    code = copy * 64 + suit * 16 + rank

``rank`` is 1 (ace) to 13 (king) and ``suit`` 0..3 for ``c d h s``. A joker has rank 0
and suit 0. ``copy`` tells identical cards apart in multi-deck games: the ``9c`` of the
second deck is copy 1; jokers are numbered 0, 1, 2, ... across all decks. ``code & 63``
is the card's *face* (what it is, whichever deck it came from).

Text notation (one printed form, two accepted input forms for ten)::

    >>> Card.parse("Td"), Card.parse("10d"), Card.parse("9c#1"), Card.parse("JK")
    (Card('Td'), Card('Td'), Card('9c#1'), Card('JK'))
    >>> str(Card.make(1, 3))
    'As'
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from typing import Final

from .errors import CardError

SUITS: Final = "cdhs"
RANK_CHARS: Final = "?A23456789TJQK"
JOKER_TEXT: Final = "JK"
JOKER_RANK: Final = 0
FACE_MASK: Final = 63
MAX_COPIES: Final = 16


class Card(int):
    """One physical card. Prints as ``Ts`` (ten of spades), ``9c#1`` (a second ``9c``), ``JK``."""

    __slots__ = ()

    @classmethod
    def make(cls, rank: int, suit: int, copy: int = 0) -> Card:
        """Build a natural card; raises :class:`CardError` on a bad rank, suit or copy."""
        if not 1 <= rank <= 13:
            raise CardError(f"rank must be 1..13, got {rank}")
        if not 0 <= suit <= 3:
            raise CardError(f"suit must be 0..3, got {suit}")
        if not 0 <= copy < MAX_COPIES:
            raise CardError(f"copy must be 0..{MAX_COPIES - 1}, got {copy}")
        return cls(copy * 64 + suit * 16 + rank)

    @classmethod
    def joker(cls, copy: int = 0) -> Card:
        """The joker numbered ``copy`` (0, 1, ... across all decks)."""
        if not 0 <= copy < MAX_COPIES:
            raise CardError(f"copy must be 0..{MAX_COPIES - 1}, got {copy}")
        return cls(copy * 64)

    @classmethod
    def parse(cls, text: str) -> Card:
        """Parse ``Ah``, ``Th``/``10h``, ``9c#1``, ``JK``, ``JK#1`` (case of the suit ignored).

        Raises :class:`CardError` naming the text when it is not a card.
        """
        body, sep, copy_text = text.strip().partition("#")
        copy = 0
        if sep:
            if not copy_text.isdigit():
                raise CardError(f"bad copy number in card {text!r}")
            copy = int(copy_text)
            if copy >= MAX_COPIES:
                raise CardError(f"copy number too large in card {text!r}")
        if body.upper() == JOKER_TEXT:
            return cls.joker(copy)
        if len(body) == 3 and body[:2] == "10":
            body = "T" + body[2]
        if len(body) != 2:
            raise CardError(f"not a card: {text!r} (expected e.g. 'Ah', 'Td', '10d', '9c#1', 'JK')")
        rank = RANK_CHARS.find(body[0].upper())
        suit = SUITS.find(body[1].lower())
        if rank < 1 or suit < 0:
            raise CardError(f"not a card: {text!r} (expected e.g. 'Ah', 'Td', '10d', '9c#1', 'JK')")
        return cls.make(rank, suit, copy)

    @property
    def rank(self) -> int:
        """1 (ace) .. 13 (king); 0 for a joker."""
        return int(self) & 15

    @property
    def suit(self) -> int:
        """0..3 for clubs, diamonds, hearts, spades (0 for a joker, which has no suit)."""
        return (int(self) >> 4) & 3

    @property
    def copy(self) -> int:
        """Which of several identical cards this is (the deck index; jokers count across decks)."""
        return int(self) >> 6

    @property
    def face(self) -> int:
        """The card without its copy number: equal for identical cards of different decks."""
        return int(self) & FACE_MASK

    @property
    def is_joker(self) -> bool:
        return int(self) & 15 == JOKER_RANK

    def __str__(self) -> str:
        return _TEXT[self]

    def __repr__(self) -> str:
        return f"Card({str(self)!r})"


def _text(code: int) -> str:
    rank, suit, copy = code & 15, (code >> 4) & 3, code >> 6
    if rank == JOKER_RANK:
        base = JOKER_TEXT
    elif rank <= 13:
        base = RANK_CHARS[rank] + SUITS[suit]
    else:
        return f"?{code}"  # not a card: only reachable through Card(int) misuse
    return base if copy == 0 else f"{base}#{copy}"


# The printed form of every code, computed once: cards are printed on every message.
_TEXT: Final = tuple(_text(code) for code in range(MAX_COPIES * 64))


def parse_cards(text: str | Iterable[str], *, distinct: bool = True) -> tuple[Card, ...]:
    """Parse a whitespace-separated list of cards (or an iterable of card texts).

    With ``distinct`` (the default), a repeated card without a copy number gets the
    next free copy: ``"5d 5d"`` is two different physical five of diamonds, as in a
    two-deck game. Raises :class:`CardError`.
    """
    words = text.split() if isinstance(text, str) else list(text)
    cards: list[Card] = []
    seen: set[int] = set()
    for word in words:
        card = Card.parse(word)
        if distinct and "#" not in word:
            while card in seen:
                card = Card(card + 64)
                if card.copy >= MAX_COPIES:
                    raise CardError(f"too many copies of {word!r}")
        elif distinct and card in seen:
            raise CardError(f"card {word!r} appears twice")
        seen.add(card)
        cards.append(card)
    return tuple(cards)


def format_cards(cards: Iterable[int]) -> str:
    """Print cards in the one printed form, separated by spaces."""
    return " ".join(str(Card(c)) for c in cards)


@functools.lru_cache(maxsize=64)  # a deal asks for its deck: the same tuple each time
def make_deck(decks: int = 1, jokers_per_deck: int = 0) -> tuple[Card, ...]:
    """Every card of ``decks`` standard decks plus their jokers, in a fixed canonical order."""
    if not 1 <= decks <= MAX_COPIES // 2:
        raise CardError(f"decks must be 1..{MAX_COPIES // 2}, got {decks}")
    cards = [Card.make(rank, suit, copy) for copy in range(decks) for suit in range(4)
             for rank in range(1, 14)]
    cards.extend(Card.joker(j) for j in range(decks * jokers_per_deck))
    return tuple(cards)


def _sort_key(card: int) -> tuple[int, int, int]:
    c = Card(card)
    if c.is_joker:
        return (4, 0, c.copy)
    return (c.suit, c.rank, c.copy)


# The display order of every code, computed once: hands, melds and showdowns are sorted
# on every turn.
_SORT_KEYS: Final = tuple(_sort_key(code) for code in range(MAX_COPIES * 64))


def sort_key(card: int) -> tuple[int, int, int]:
    """Display order: suit, then rank, then copy; jokers last."""
    if 0 <= card < MAX_COPIES * 64:
        return _SORT_KEYS[card]
    return _sort_key(card)
