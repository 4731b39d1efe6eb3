"""Gin: the knocker's arrangements and the undercut risk each one leaves.

Theory of operation
-------------------
A Gin knocker lays any melds of his kept cards whose deadwood stays within the knock
limit; a plain knock lets the server lay, among his arrangements of *least* deadwood,
the one leaving the defender the fewest layoffs (it knows the defender's hand). So a
knocker's own choice can only pay when it lays *more* deadwood: breaking a meld (or
laying a shorter one) costs points but can close the ends the defender would lay off on.

The defender's count after layoffs is modelled as normal (``mean``, ``spread``: the
strong bot's table, measured with the server's default arrangement). An arrangement
``a`` moves that count by the layoffs it takes compared with the default:
``E[L(a)]``, the expected layoff points, counts each card that fits one of its melds
(:func:`~rummyhall.rules.can_lay_off`, as :func:`~rummyhall.rules.layoff_cards` lists
them) at its points times the chance the defender holds it (a card he took from the
pile: 1; an unseen copy: ``q``, his share of the unseen cards). The default's ``E[L]``
is the least over the arrangements of least deadwood (the server picks the best with
the hand in view, so this is if anything generous to it). The risk of ``a`` with
deadwood ``k`` is then ``P(D <= k + E[L(a)] - E[L(default)])`` (an undercut ties with
``undercut_on_tie``, the default).
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass
from itertools import combinations

from rummyhall.rules import Card, MeldRules, layoff_cards, meld_kind

Melds = tuple[tuple[Card, ...], ...]

# At most this many arrangements are compared (ten cards rarely have more than a few).
ARRANGEMENT_LIMIT = 500


@dataclass(frozen=True, slots=True)
class Laid:
    """One arrangement a knocker may lay: its melds and its deadwood."""

    melds: Melds
    deadwood: int


def melds_among(cards: Sequence[Card], rules: MeldRules) -> list[tuple[Card, ...]]:
    """Every valid meld of ``cards`` (sets and runs of three or more, sub-runs included)."""
    groups: dict[tuple[str, int], list[Card]] = {}
    for c in cards:
        groups.setdefault(("rank", c.rank), []).append(c)
        groups.setdefault(("suit", c.suit), []).append(c)
    found: set[tuple[Card, ...]] = set()
    for members in groups.values():
        for k in range(3, len(members) + 1):
            for combo in combinations(sorted(members), k):
                if combo not in found and meld_kind(list(combo), rules) is not None:
                    found.add(combo)
    return sorted(found)


def arrangements_within(cards: Sequence[Card], rules: MeldRules, limit: int) -> list[Laid]:
    """Every arrangement of ``cards`` with at most ``limit`` points of deadwood (at most
    :data:`ARRANGEMENT_LIMIT`), in a fixed order."""
    hand = tuple(sorted(cards))
    melds = melds_among(hand, rules)
    by_low: dict[Card, list[tuple[Card, ...]]] = {}
    for meld in melds:
        by_low.setdefault(min(meld), []).append(meld)
    out: list[Laid] = []

    def walk(rest: tuple[Card, ...], spent: int, chosen: Melds) -> Iterator[Laid]:
        if not rest:
            yield Laid(chosen, spent)
            return
        low, left = rest[0], set(rest)
        for meld in by_low.get(low, ()):
            if left.issuperset(meld):
                yield from walk(tuple(c for c in rest if c not in meld), spent, (*chosen, meld))
        cost = spent + rules.points(low)
        if cost <= limit:
            yield from walk(rest[1:], cost, chosen)

    for laid in walk(hand, 0, ()):
        out.append(laid)
        if len(out) >= ARRANGEMENT_LIMIT:
            break
    return out


def expected_layoffs(melds: Melds, rules: MeldRules, unseen: Sequence[int], share: float,
                     known: Collection[Card]) -> float:
    """``E[L]``: the layoff points the defender is expected to find on ``melds``.

    ``unseen`` counts the unseen copies of each face, ``share`` is the chance the defender
    holds one of them, ``known`` the cards he is known to hold.
    """
    faces = [Card(face) for face, n in enumerate(unseen) if n]
    candidates = [*faces, *known]
    fits: set[int] = set()
    for meld in melds:  # (each card alone on one meld: can_lay_off, without the validator)
        fits.update(layoff_cards(meld, candidates, rules))
    total = 0.0
    for card in faces:
        if card in fits:
            total += share * unseen[card] * rules.points(card)
    for card in known:
        if card in fits:
            total += rules.points(card)
    return total
