"""The registry of pot-game variants by protocol name."""

from __future__ import annotations

from server.rules.draw import DRAW
from server.rules.holdem import HOLDEM
from server.rules.manila import MANILA, MANILA3
from server.rules.stud import STUD5, STUD7
from server.rules.variant import Variant

VARIANTS: dict[str, Variant] = {v.name: v for v in (HOLDEM, MANILA, MANILA3, DRAW, STUD5, STUD7)}
