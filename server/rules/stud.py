"""Five Card Stud and Seven Card Stud (STUD-01..07).

Antes and no blinds; the lowest up card brings in (or completes); in later
rounds the highest hand showing opens.  Seven Card Stud seats eight, who
must be able to play to the end: on seventh street the burns are shuffled
when the deck runs short, and if even that is not enough one community
card is turned for everyone (STUD-05).
"""

from __future__ import annotations

from server.rules.variant import BRING_IN, DOWN, SHOWING, UP, Street, Variant

STUD5 = Variant(
    name="stud5",
    streets=(
        Street(deal=((DOWN, 1), (UP, 1)), opener=BRING_IN),
        Street(deal=((UP, 1),), burn=True, opener=SHOWING),
        Street(deal=((UP, 1),), burn=True, opener=SHOWING, big=True),
        Street(deal=((UP, 1),), burn=True, opener=SHOWING, big=True),
    ),
    forced="antes",
    max_seats=10,  # 5n + 3 burns: 53 at ten seats, served by shuffling the burns (STUD-05)
    reshuffle_burns=True,
)

STUD7 = Variant(
    name="stud7",
    streets=(
        Street(deal=((DOWN, 2), (UP, 1)), opener=BRING_IN),
        Street(deal=((UP, 1),), burn=True, opener=SHOWING),
        Street(deal=((UP, 1),), burn=True, opener=SHOWING, big=True),
        Street(deal=((UP, 1),), burn=True, opener=SHOWING, big=True),
        Street(deal=((DOWN, 1),), burn=True, opener=SHOWING, big=True),
    ),
    forced="antes",
    max_seats=8,
    reshuffle_burns=True,
    community_fallback=True,
)
