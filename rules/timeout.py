"""The timeout policy: what is played for a seat whose time to act ran out.

The server plays it when a seat's clock runs out (docs/protocol.md, section 7); it is a
rule of the game, not of the server, so that every table, replay and test plays the
same. It is cautious: it never changes the hand's course for the absent player beyond
what a turn requires.

- Gin's upcard offer: pass.
- A draw: from the stock; from the discard pile when the stock is empty.
- Then the discard that leaves the least deadwood, never the card just taken from the
  discard pile while the hand holds another (whether or not the rules would allow it).
- Never a meld, a layoff, a knock or going out.
"""

from __future__ import annotations

from .actions import Discard, DrawDiscard, DrawStock, PassUpcard, SeatAction
from .game import Game
from .solver import best_discard


def timeout_action(game: Game, seat: int) -> SeatAction:
    """The action played for ``seat``, whose time ran out, in ``game`` as it is now.

    ``seat`` must be the seat to move; the action returned is legal for it.
    """
    legal = game.legal_actions()
    for kind in (PassUpcard, DrawStock, DrawDiscard):
        for action in legal:
            if isinstance(action, kind):
                return action
    hand = game.hands[seat]
    taken = game.taken if len(hand) > 1 else None  # (unless it is all that is left)
    card, _ = best_discard(hand, game.meld_rules, forbidden=taken)
    return Discard(seat, card)
