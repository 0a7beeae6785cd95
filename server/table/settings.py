"""A table's fixed description, validated from a ``create_table`` request.

Rule of this module: everything the lobby lets a creator choose is checked here, once, and
turned into a frozen :class:`TableSpec`; a refusal raises :class:`protocol.ProtocolError` with
its specific code (``bad_variant``, ``bad_structure``, ``bad_stakes``, ``bad_settings``,
``test_mode_only``, ``bad_deck``, ``house_policy``, ``limit_exceeded``).

House policy (GEN-09, GEN-10, CSP-13; :mod:`server.table.house`): the jackpot terms (wager,
paytable, reset amounts, pool shares, split) are the operator's ``Config`` and the same at
every Caribbean table; a request that names one is refused (``house_policy``). The rake of a
pot table is ``Config.rake_bp`` / ``rake_cap`` unless its creator picks another within
``Config.max_rake_bp`` / ``max_rake_cap`` (above: ``house_policy``). Every stakes amount is at
most ``Config.max_stake`` and every buy-in limit at most ``Config.max_buy_in``
(``limit_exceeded``; the default maximum buy-in is clamped to it).

Stakes keys (chips): pot games take ``blinds`` (list, first to last), ``ante``, ``bring_in``,
``small_bet``, ``big_bet``, ``min_bet``, ``max_bet``, ``chip``; hold'em/manila/draw need
``blinds``, stud needs ``bring_in``. Caribbean Stud takes ``min``/``ante_min``,
``max``/``ante_max`` (the ante range); its jackpot wager is the house's
(``Config.jackpot_wager``).

Table settings (``settings``, all optional):

- ``min_buy_in`` / ``max_buy_in``: default 20 / 100 "big bets" (the last blind; for stud the
  small bet, else the bring-in; for Caribbean the minimum ante).
- ``spectator_delay``: seconds the spectators' stream lags (default ``Config.spectator_delay``).
- ``spectator_chat`` (default true), ``chat`` (default true).
- ``post_to_enter`` (default false): GEN-05, a player who sits down where the big blind has
  not reached posts a big blind to play at once instead of waiting for it.
- ``pause``: seconds between hands (default ``Config.hand_pause``, at least
  ``Config.min_hand_pause``). ``ante_time``: Caribbean ante phase seconds (default
  ``Config.action_clock``). ``action_clock``: seconds a player has to act (default
  ``Config.action_clock``; 1..3600).
- a home game (``create_table`` with ``private: true``; docs/protocol.md "Private games"):
  ``approve_seats`` (default true at a private table, false elsewhere): the host approves
  each request to sit; ``rebuys`` (default true): players may add chips between hands;
  ``starting_stack``: every buy-in is exactly this many chips (sets both buy-in limits).
- ``over_blind_clock``: seconds the player asked about the Draw over blind has to answer
  (default ``Config.over_blind_clock``, 1..60; BLIND-04).
- ``bank_when_disconnected`` (default false): whether a disconnected player's turn runs on
  into their time bank; by default it times out at the action clock (the table waits no
  longer for a phone that went to sleep).
- engine settings: ``raise_cap``, ``max_discard``, ``over_blind`` (Draw only: the player
  left of the last blind is asked before each deal whether to post it, BLIND-04),
  ``heads_up_button_first_blind``, ``rake_bp``, ``rake_cap`` (when the engine has them);
  Caribbean: ``dealing_mode`` (CSP-10).
- house rules (docs/rules.md section 4; default false; Hold'em and Manila; a home game's
  only: a public table asking for one gets ``bad_settings``, "a house rule: home games
  only"; the host may turn them on or off between hands): ``straddle`` (STRAD-01: the player
  left of the big blind is asked before each deal, on ``over_blind_clock``) and
  ``run_twice`` (RIT-01..04: the players still in are asked, on the same short clock);
  ``show_uncontested`` (SHOWWIN-01, every pot game: the player who wins without a showdown is
  asked whether to show their cards, on the same short clock).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from protocol.errors import ProtocolError
from protocol.requests import CreateTable
from server.config import Config
from server.rules.cards import DeckError, check_deck, make_deck
from server.rules.caribbean import MAX_PLAYERS, CaribbeanSettings
from server.rules.structure import STRUCTURES, Stakes, check_stakes
from server.rules.variant import TableRules, Variant
from server.rules.variants import VARIANTS
from server.table.house import jackpot_terms

__all__ = ["HouseSpec", "PotSpec", "SpecBase", "TableSpec", "build_spec"]

_POT_STAKES = {"blinds", "ante", "bring_in", "small_bet", "big_bet", "min_bet", "max_bet",
               "chip"}
_CSP_STAKES = {"min", "max", "ante_min", "ante_max"}
_ENGINE_BOOL = {"over_blind", "heads_up_button_first_blind", "straddle", "run_twice",
                "show_uncontested"}
#: The house rules of home games (docs/rules.md section 4); the first two are Hold'em's and
#: Manila's only (``_HOUSE_RULE_GAMES``), ``show_uncontested`` every pot game's.
HOUSE_RULES = ("straddle", "run_twice", "show_uncontested")
_HOUSE_RULE_GAMES = ("holdem", "manila", "manila3")
_ENGINE_INT = {"raise_cap", "max_discard", "rake_bp", "rake_cap"}
_CSP_SETTINGS = {"dealing_mode"}
#: The house's terms (GEN-10, CSP-13): named in a request's stakes or settings -> house_policy.
_HOUSE_KEYS = {"jackpot_wager", "jackpot", "paytable", "jackpot_paytable", "pays",
               "pool_share_bp", "reset_amount", "minor_reset_amount", "split_pools", "split",
               "minor_share_bp", "major_share_bp", "max_pool", "jackpot_reset", "fee",
               "royal_minimum", "jackpot_royal_minimum"}
_TABLE_SETTINGS = {"min_buy_in", "max_buy_in", "spectator_delay", "spectator_chat", "chat",
                   "pause", "ante_time", "post_to_enter", "action_clock", "approve_seats",
                   "rebuys", "starting_stack", "over_blind_clock", "bank_when_disconnected"}
#: What a private table's host may change between hands (``host`` ``change``).
HOST_SETTINGS = frozenset({"pause", "action_clock", "ante_time", "starting_stack", "rebuys",
                           "approve_seats", "min_buy_in", "max_buy_in",
                           "bank_when_disconnected", *HOUSE_RULES})


@dataclass(frozen=True, slots=True, kw_only=True)
class SpecBase:
    """What every table has, whatever its game (see :data:`TableSpec`)."""

    variant_name: str
    structure: str | None
    stakes_wire: dict[str, Any]
    seats: int
    name: str
    settings_wire: dict[str, Any]
    min_buy_in: int
    max_buy_in: int
    spectator_delay: float
    spectator_chat: bool
    chat: bool
    pause: float
    ante_time: float
    action_clock: float
    over_blind_clock: float = 5.0  # BLIND-04: the Draw over blind's question before the deal
    post_to_enter: bool = False
    bank_when_disconnected: bool = False  # a disconnected player's turn uses their bank
    private: bool = False  # a home game: unlisted, joined by invite, run by its host
    approve_seats: bool = False
    rebuys: bool = True
    decks: tuple[tuple[str, ...], ...] = field(default=())


@dataclass(frozen=True, slots=True, kw_only=True)
class PotSpec(SpecBase):
    """A pot game (hold'em, Manila, draw, stud): players play against each other."""

    variant: Variant
    rules: TableRules
    kind: Literal["pot"] = "pot"
    min_players: ClassVar[int] = 2

    @property
    def card_set(self) -> tuple[str, ...]:
        return self.variant.card_set

    @property
    def uses_blinds(self) -> bool:
        return bool(self.rules.stakes.blinds)

    @property
    def asks_over_blind(self) -> bool:
        """Whether the seat left of the last blind is asked before each deal: Draw's over
        blind (BLIND-04) or a home game's straddle (STRAD-01)."""
        return self.variant_name == "draw" or self.rules.straddle

    @property
    def rake(self) -> tuple[int, int]:
        """GEN-09: the rake in basis points and its cap."""
        return self.rules.rake_bp, self.rules.rake_cap


@dataclass(frozen=True, slots=True, kw_only=True)
class HouseSpec(SpecBase):
    """A house-banked game (Caribbean Stud): every player plays against the dealer."""

    caribbean: CaribbeanSettings
    kind: Literal["house"] = "house"
    min_players: ClassVar[int] = 1

    @property
    def card_set(self) -> tuple[str, ...]:
        return make_deck()

    @property
    def uses_blinds(self) -> bool:
        return False

    @property
    def rake(self) -> tuple[int, int]:
        """No rake: the house's revenue is its edge (GEN-10)."""
        return 0, 0


TableSpec = PotSpec | HouseSpec
"""A validated table, tagged by ``kind``: a pot game or a house game."""


def _err(code: str, message: str) -> ProtocolError:
    return ProtocolError(code, message)


def _int(settings: dict[str, Any], key: str, default: int) -> int:
    value = settings.get(key, default)
    if type(value) is not int or value < 0:
        raise _err("bad_settings", f"`{key}` must be a non-negative integer")
    return value


def _float(settings: dict[str, Any], key: str, default: float) -> float:
    value = settings.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 3600:
        raise _err("bad_settings", f"`{key}` must be a number of seconds (0..3600)")
    return float(value)


def _bool(settings: dict[str, Any], key: str, default: bool) -> bool:
    value = settings.get(key, default)
    if not isinstance(value, bool):
        raise _err("bad_settings", f"`{key}` must be true or false")
    return value


def _check_rake(rake_bp: int, rake_cap: int, config: Config) -> None:
    """GEN-09/GEN-10: a table's rake within the operator's bounds (else ``house_policy``)."""
    if rake_bp > config.max_rake_bp:
        raise _err("house_policy", f"`rake_bp` {rake_bp} above the house's maximum of "
                   f"{config.max_rake_bp} basis points")
    if rake_bp and config.max_rake_cap and not 0 < rake_cap <= config.max_rake_cap:
        raise _err("house_policy", f"`rake_cap` must be 1..{config.max_rake_cap} chips "
                   "(the house's maximum)")


def build_spec(req: CreateTable, config: Config, *, name: str) -> TableSpec:
    """Validate ``req`` against ``config`` (test mode for ``decks``); raise ProtocolError."""
    settings = dict(req.settings or {})
    stakes = dict(req.stakes)
    house_game = req.variant == "caribbean"
    _check_request(req, config, settings, stakes, house_game=house_game)
    if house_game:
        terms = _house_terms(req, config, settings, stakes)
        common = _common(req, config, settings, stakes, unit=terms.ante_min,
                         card_set=make_deck(), name=name)
        return HouseSpec(caribbean=terms, **common)
    variant, rules, unit = _pot_rules(req, config, settings, stakes)
    common = _common(req, config, settings, stakes, unit=unit, card_set=variant.card_set,
                     name=name)
    return PotSpec(variant=variant, rules=rules, **common)


def _check_request(req: CreateTable, config: Config, settings: dict[str, Any],
                   stakes: dict[str, Any], *, house_game: bool) -> None:
    """What every table is checked for: a known game, no house term, stakes within the
    house's limit, no unknown setting."""
    if not house_game and req.variant not in VARIANTS:
        raise _err("bad_variant", f"unknown variant {req.variant!r}")
    if not house_game and req.structure not in STRUCTURES:
        raise _err("bad_structure", f"unknown structure {req.structure!r}")
    house = sorted(_HOUSE_KEYS & (set(settings) | set(stakes)))
    if house:
        raise _err("house_policy", f"the house sets {', '.join(house)} (GEN-10, CSP-13): a "
                   "table's creator chooses only the stakes"
                   + (" (the ante limits)" if house_game else ""))
    for key, amount in stakes.items():
        amounts = amount if isinstance(amount, tuple) else (amount,)
        if any(a > config.max_stake for a in amounts):
            raise _err("limit_exceeded",
                       f"`{key}` above the house's stake limit of {config.max_stake}")
    allowed = _TABLE_SETTINGS | (_CSP_SETTINGS if house_game else _ENGINE_BOOL | _ENGINE_INT)
    unknown = set(settings) - allowed
    if unknown:
        raise _err("bad_settings", f"unknown settings: {sorted(unknown)}")


def _house_terms(req: CreateTable, config: Config, settings: dict[str, Any],
                 stakes: dict[str, Any]) -> CaribbeanSettings:
    """Caribbean Stud: the creator's ante range on the house's jackpot terms (CSP-13)."""
    unknown = set(stakes) - _CSP_STAKES
    if unknown:
        raise _err("bad_stakes", f"unknown stakes for caribbean: {sorted(unknown)}")
    if any(isinstance(v, tuple) for v in stakes.values()):
        raise _err("bad_stakes", "caribbean stakes are single amounts")
    kw: dict[str, Any] = {}
    lo = stakes.get("ante_min", stakes.get("min"))
    hi = stakes.get("ante_max", stakes.get("max"))
    if lo is not None:
        kw["ante_min"] = lo
    if hi is not None:
        kw["ante_max"] = hi
    for key in _CSP_SETTINGS & set(settings):
        kw[key] = settings[key]
    try:
        terms = jackpot_terms(config, **kw)
    except (ValueError, TypeError) as exc:
        raise _err("bad_stakes", _plain_terms_error(str(exc))) from None
    if req.seats > MAX_PLAYERS:
        raise _err("bad_settings", f"caribbean seats at most {MAX_PLAYERS} (GEN-07)")
    return terms


def _plain_terms_error(text: str) -> str:
    """The ante range's refusal in a player's words (the engine's is a developer's)."""
    if "ante_min" in text or "ante_max" in text:
        return "the minimum ante must be at least 1 and at most the maximum ante"
    return text


def _pot_stakes(req: CreateTable, stakes: dict[str, Any]) -> Stakes:
    unknown = set(stakes) - _POT_STAKES
    if unknown:
        raise _err("bad_stakes", f"unknown stakes keys: {sorted(unknown)}")
    skw: dict[str, Any] = {}
    for key, value in stakes.items():
        if key == "blinds":
            skw[key] = tuple(value) if isinstance(value, tuple) else (value,)
        elif isinstance(value, tuple):
            raise _err("bad_stakes", f"`{key}` must be a single amount")
        else:
            skw[key] = value
    skw.setdefault("chip", 1)
    st = Stakes(**skw)
    assert req.structure is not None
    problem = check_stakes(req.structure, st)
    if problem:
        raise _err("bad_stakes", problem)
    return st


def _pot_rules(req: CreateTable, config: Config, settings: dict[str, Any],
               stakes: dict[str, Any]) -> tuple[Variant, TableRules, int]:
    """A pot game's variant, rules and its buy-in unit (the last blind, else the small bet,
    minimum bet or bring-in)."""
    variant = VARIANTS[req.variant]
    st = _pot_stakes(req, stakes)
    if variant.is_stud:
        if st.bring_in <= 0:
            raise _err("bad_stakes", "stud needs a bring_in")
        if st.blinds:
            raise _err("bad_stakes", "stud has antes and a bring-in, not blinds")
    elif not st.blinds or st.blinds[-1] <= 0:
        raise _err("bad_stakes", f"{req.variant} needs blinds")
    if req.seats > variant.max_seats:
        raise _err("bad_settings", f"{req.variant} seats at most {variant.max_seats} (GEN-07)")
    rkw: dict[str, Any] = {"rake_bp": config.rake_bp, "rake_cap": config.rake_cap}
    names = {f.name for f in dataclasses.fields(TableRules)}
    for key in _ENGINE_BOOL & set(settings):
        rkw[key] = _bool(settings, key, False)
    if rkw.get("over_blind") and req.variant != "draw":
        raise _err("bad_settings", "the over blind is a Draw rule (BLIND-04)")
    for key in HOUSE_RULES:  # docs/rules.md section 4
        if rkw.get(key) and not req.private:
            raise _err("bad_settings", f"`{key}` is a house rule: home games only")
        if rkw.get(key) and key != "show_uncontested" and req.variant not in _HOUSE_RULE_GAMES:
            raise _err("bad_settings", f"`{key}` is a house rule of Hold'em and Manila only"
                       + (" (Draw has the over blind, BLIND-04)" if req.variant == "draw"
                          else ""))
    for key in _ENGINE_INT & set(settings):
        if key not in names:
            raise _err("bad_settings", f"`{key}` is not supported by this server")
        rkw[key] = _int(settings, key, 0)
    _check_rake(rkw["rake_bp"], rkw["rake_cap"], config)
    assert req.structure is not None
    rules = TableRules(structure=req.structure, stakes=st, **rkw)
    stud_unit = st.small_bet or st.min_bet or st.bring_in
    return variant, rules, stud_unit if variant.is_stud else st.blinds[-1]


def _test_decks(req: CreateTable, config: Config,
                card_set: tuple[str, ...]) -> tuple[tuple[str, ...], ...]:
    if req.decks is None:
        return ()
    if not config.test_mode:
        raise _err("test_mode_only", "`decks` needs a server in test mode")
    for i, deck in enumerate(req.decks):
        try:
            check_deck(deck, card_set)
        except DeckError as exc:
            raise _err("bad_deck", f"deck {i}: {exc}") from None
    return tuple(tuple(d) for d in req.decks)


def _common(req: CreateTable, config: Config, settings: dict[str, Any],
            stakes: dict[str, Any], *, unit: int, card_set: tuple[str, ...],
            name: str) -> dict[str, Any]:
    """The fields of :class:`SpecBase`: buy-in limits, table settings, test decks."""
    min_buy = _int(settings, "min_buy_in", min(20 * unit, config.max_buy_in))
    max_buy = _int(settings, "max_buy_in", min(100 * unit, config.max_buy_in))
    if "starting_stack" in settings:  # a home game's one buy-in
        min_buy = max_buy = _int(settings, "starting_stack", 0)
    if max(min_buy, max_buy) > config.max_buy_in:
        raise _err("limit_exceeded",
                   f"buy-in limits above the house's limit of {config.max_buy_in}")
    if not 0 < min_buy <= max_buy:
        raise _err("bad_settings", "the minimum buy-in must be at least 1 and at most "
                   "the maximum buy-in")
    return {
        "variant_name": req.variant,
        "structure": req.structure,
        "stakes_wire": {k: list(v) if isinstance(v, tuple) else v for k, v in stakes.items()},
        "seats": req.seats,
        "name": req.name or name,
        "settings_wire": settings,
        "min_buy_in": min_buy,
        "max_buy_in": max_buy,
        "spectator_delay": _float(settings, "spectator_delay", config.spectator_delay),
        "spectator_chat": _bool(settings, "spectator_chat", True),
        "chat": _bool(settings, "chat", True),
        "pause": _pause(settings, config),
        "ante_time": _float(settings, "ante_time", config.action_clock),
        "post_to_enter": _bool(settings, "post_to_enter", False),
        "action_clock": _action_clock(settings, config),
        "over_blind_clock": _over_blind_clock(settings, config),
        "bank_when_disconnected": _bool(settings, "bank_when_disconnected", False),
        "private": req.private,
        "approve_seats": _bool(settings, "approve_seats", req.private),
        "rebuys": _bool(settings, "rebuys", True),
        "decks": _test_decks(req, config, card_set),
    }


def _pause(settings: dict[str, Any], config: Config) -> float:
    """The pause between hands: at least ``Config.min_hand_pause`` (the last hand's result
    stays on screen that long), at most an hour."""
    pause = _float(settings, "pause", config.hand_pause)
    if pause < config.min_hand_pause:
        raise _err("bad_settings", f"`pause` must be at least {config.min_hand_pause:g} seconds "
                   "(players need time to see the result)")
    return pause


def _over_blind_clock(settings: dict[str, Any], config: Config) -> float:
    clock = _float(settings, "over_blind_clock", config.over_blind_clock)
    if not 1 <= clock <= 60:
        raise _err("bad_settings", "`over_blind_clock` must be 1 to 60 seconds")
    return clock


def _action_clock(settings: dict[str, Any], config: Config) -> float:
    clock = _float(settings, "action_clock", config.action_clock)
    if clock < 1:
        raise _err("bad_settings", "`action_clock` must be at least 1 second")
    return clock
