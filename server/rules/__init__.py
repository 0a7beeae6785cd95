"""The pure rules engine: cards, hand values, betting, pots and every variant.

Rule of this package: standard library only, and nothing that reads a clock, a socket or a
random source.  Every input (the deck in dealing order, the seed of any mid-hand reshuffle,
each action or timeout) comes from the caller, so every hand replays exactly from its inputs.

Hand values
-----------
``server.rules.evaluate(cards, board=(), *, rules=STANDARD, use_exactly=None) -> HandValue``
is the one public evaluator.  ``cards`` are the player's own card strings (``"As"``,
``"Td"``, ``"9c"``), ``board`` the community cards; it returns a :class:`HandValue`, an
``int`` that compares correctly (higher is better) under the :class:`HandRules` used, with
``.category``, ``.cards`` (the five used, best first) and ``.name`` ("full house, kings full
of sevens").  Options the variants need:

- ``rules=HandRules(lowest_rank=7, flush_beats_full_house=True, ace_low_straight=True)``:
  stripped decks, flush over full house, and which straights count (the ace with the four
  lowest ranks of the deck is the lowest straight: A-2-3-4-5, or A-7-8-9-T in Manila);
- ``use_exactly=k``: the hand must use exactly ``k`` of the player's own cards (Manila: 2).

Five, six and seven cards (and more) are accepted.  :func:`rank_showing` ranks partial
hands of 1-4 up cards (and more) for the stud opener, ties broken by the highest card by
suit; :func:`lowest_card` names the bring-in card.

Hands
-----
:class:`~server.rules.hand.Hand` runs one hand of a pot game (``holdem``, ``manila``,
``manila3``, ``draw``, ``stud5``, ``stud7``; see :data:`~server.rules.variants.VARIANTS`)
under :class:`~server.rules.variant.TableRules` (structure, :class:`Stakes`, settings).
It answers each seat's legal :class:`~server.rules.options.Options`, refuses anything else
with :class:`~server.rules.errors.IllegalAction` (a reason code; the state untouched) and
returns :mod:`~server.rules.events`.  Caribbean Stud, played against the house, is
:class:`~server.rules.caribbean.CaribbeanRound`, with the jackpot payout arithmetic of
CSP-07..CSP-11 as pure functions in :mod:`~server.rules.caribbean_payout`.
"""

from __future__ import annotations

from server.rules.evaluate import (
    STANDARD,
    HandRules,
    HandValue,
    evaluate,
    hand_category_name,
    lowest_card,
    rank_showing,
)
from server.rules.structure import Stakes

__all__ = [
    "STANDARD",
    "HandRules",
    "HandValue",
    "Stakes",
    "evaluate",
    "hand_category_name",
    "lowest_card",
    "rank_showing",
]
