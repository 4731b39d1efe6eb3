"""The rules layer's errors: one root, precise children.

Every error a caller can cause by asking for something the rules forbid is a
:class:`RulesError`; each carries a stable ``code`` (used on the wire) and a message
written for a player. Anything else escaping ``rummyhall.rules`` is a bug.
"""

from __future__ import annotations


class RulesError(ValueError):
    """Something the rules of the game do not allow."""

    code = "rules_error"


class CardError(RulesError):
    """A text or number that is not a card, or a card that is not in play."""

    code = "bad_card"


class OptionError(RulesError):
    """An unknown table option, a wrong type or an out-of-range value."""

    code = "bad_option"


class IllegalAction(RulesError):
    """An action the rules do not allow in the current state."""

    code = "illegal_action"


class NotYourTurn(IllegalAction):
    """The action comes from a seat that is not the one to move."""

    code = "not_your_turn"


class WrongPhase(IllegalAction):
    """The action does not belong to the current phase of the hand."""

    code = "wrong_phase"


class CardNotHeld(IllegalAction):
    """The action names a card that is not in the seat's hand."""

    code = "card_not_held"


class InvalidMeld(IllegalAction):
    """The cards do not form a valid meld, or the meld cannot take the cards laid off."""

    code = "invalid_meld"


class IllegalDiscard(IllegalAction):
    """The discard is forbidden (for example the card just taken from the discard pile)."""

    code = "illegal_discard"


class CannotGoOut(IllegalAction):
    """Knocking, going gin or going out is not allowed with this hand."""

    code = "cannot_go_out"


class IllegalDraw(IllegalAction):
    """The draw is not allowed (empty pile, the Gin upcard rules...)."""

    code = "illegal_draw"


class BadShuffle(IllegalAction):
    """A shuffle that is not a permutation of the cards it must order."""

    code = "bad_shuffle"
