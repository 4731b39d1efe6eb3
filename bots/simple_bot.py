"""The simple bot: greedy, legal and quick, using the meld solver for every decision.

It goes out whenever it may (knock, gin, rummy, going out), melds and lays off as soon
as it can in Basic Rummy, takes the discard only when that card lowers its deadwood,
and discards the card that leaves the least deadwood (the dearest among equals).
"""

from __future__ import annotations

from collections.abc import Sequence

from rummyhall.rules import (
    DeclareRummy,
    Discard,
    DrawDiscard,
    DrawStock,
    GoOut,
    Knock,
    LayOff,
    Meld,
    MeldRules,
    PassUpcard,
    SeatAction,
    SeatView,
    deadwood_points,
    discard_deadwoods,
    view_meld_rules,
)


class SimpleBot:
    """A greedy legal-move player (see the module docstring)."""

    name = "simple"
    needs_view = True

    def choose(self, view: SeatView | None, legal: Sequence[SeatAction]) -> SeatAction:
        assert view is not None
        rules = view_meld_rules(view)
        for kind in (DeclareRummy, Meld, LayOff):
            options = [a for a in legal if isinstance(a, kind)]
            if options:
                return max(options, key=lambda a: len(getattr(a, "cards", ())))
        outs: list[Knock | GoOut] = [a for a in legal if isinstance(a, (Knock, GoOut))]
        if outs:
            return self._best_out(view, outs, rules)
        discards = [a for a in legal if isinstance(a, Discard)]
        if discards:
            after = discard_deadwoods(view.hand, rules)
            return min(discards, key=lambda a: (after[a.card], -rules.points(a.card), a.card))
        return self._draw(view, legal, rules)

    def _best_out(self, view: SeatView, outs: list[Knock | GoOut],
                  rules: MeldRules) -> SeatAction:
        after = discard_deadwoods(view.hand, rules)
        return min(outs, key=lambda a: 0 if a.card is None else after[a.card])

    def _draw(self, view: SeatView, legal: Sequence[SeatAction], rules: MeldRules) -> SeatAction:
        take = next((a for a in legal if isinstance(a, DrawDiscard)), None)
        other = next((a for a in legal if isinstance(a, (DrawStock, PassUpcard))), None)
        if take is None or other is None:
            return take or other or legal[0]
        top = view.discard_pile[-1]
        now = deadwood_points(view.hand, rules)
        with_top = discard_deadwoods((*view.hand, top), rules)
        best = min(v for c, v in with_top.items() if c != top)
        return take if best < now else other
