"""Hand values for high poker: the best five cards, stripped decks, exact-use hands.

Everything that decides which poker hand beats which lives here (docs/rules.md section 2, CSP-06,
MAN-04, MAN3-04) together with the stud "hand showing" order (STUD-02, STUD-03).

:func:`evaluate` returns a :class:`HandValue`, an ``int`` that compares higher-is-better under
the :class:`HandRules` it was computed with; compare values only from the same rules.

How it is fast: every card is encoded once as an int whose sum over a set of distinct cards
carries, in separate bit fields, the count of each suit, a bit per card, and a base-5 digit per
rank (the rank multiset).  A set's non-flush value is one dict lookup on the rank-multiset
field (tables built at import for the standard deck, lazily for other rules); a flush is
spotted by adding a constant to the suit counters and is valued by a lookup on that suit's
13-bit rank mask.  No five-card subsets are formed unless the caller asks for ``use_exactly``.

Layout of a value (bits): ``order:4 | r1:4 r2:4 r3:4 r4:4 r5:4 | category:4`` where ``order``
is the category's place under the rules (flush and full house swap when
``flush_beats_full_house``) and r1..r5 are the ranks of the five cards used, best first
(a wheel is 5-4-3-2-A, so A-low straights sort below every other straight).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations, combinations_with_replacement

from server.rules.cards import RANK_NAMES, RANK_PLURALS, RANK_VALUE, SUIT_VALUE, card_key

__all__ = [
    "HIGH_CARD", "PAIR", "TWO_PAIR", "TRIPS", "STRAIGHT", "FLUSH", "FULL_HOUSE", "QUADS",
    "STRAIGHT_FLUSH", "HandRules", "STANDARD", "HandValue", "evaluate", "hand_category_name",
    "rank_showing", "lowest_card", "encode", "value_of", "name_against", "evaluate_each",
]

HIGH_CARD = 0
PAIR = 1
TWO_PAIR = 2
TRIPS = 3
STRAIGHT = 4
FLUSH = 5
FULL_HOUSE = 6
QUADS = 7
STRAIGHT_FLUSH = 8

_CATEGORY_NAMES = (
    "high card", "pair", "two pair", "three of a kind", "straight", "flush", "full house",
    "four of a kind", "straight flush",
)


@dataclass(frozen=True, slots=True)
class HandRules:
    """How hands rank in a variant (table settings; MAN-04, MAN3-04).

    ``lowest_rank``: the deck's lowest rank (7 for Manila's 32 cards, 6 for Three Card
    Manila's 36); cards below it are rejected.  ``ace_low_straight``: the ace with the four
    lowest ranks is the lowest straight (A-2-3-4-5, or A-7-8-9-T when ``lowest_rank`` is 7).
    """

    lowest_rank: int = 2
    flush_beats_full_house: bool = False
    ace_low_straight: bool = True

    def __post_init__(self) -> None:
        if not isinstance(self.lowest_rank, int) or not 2 <= self.lowest_rank <= 10:
            raise ValueError(f"lowest_rank must be 2..10, not {self.lowest_rank!r}")


STANDARD = HandRules()

# --- card encoding --------------------------------------------------------------------------
# bits 0..31: four 8-bit suit counters (clubs lowest); bits 32..83: one bit per card
# (13 per suit, rank 2 at the bottom); bits 84..: base-5 digit per rank (rank 2 lowest).
_PRESENCE_SHIFT = 32
_RANKKEY_SHIFT = 84
_M52 = (1 << 52) - 1
_FLUSH_ADD = 0x7B7B7B7B  # a counter >= 5 gets its top bit set
_FLUSH_TEST = 0x80808080
_SUIT_SHIFTS: dict[int, tuple[int, ...]] = {
    0x80 << (8 * s): (_PRESENCE_SHIFT + 13 * s,) for s in range(4)
}
_CARD_CODES = {
    r + s: (5 ** (rv - 2)) << _RANKKEY_SHIFT
    | 1 << (_PRESENCE_SHIFT + 13 * sv + rv - 2)
    | 1 << (8 * sv)
    for r, rv in RANK_VALUE.items()
    for s, sv in SUIT_VALUE.items()
}
_POW5 = [0, 0] + [5 ** (r - 2) for r in range(2, 15)]


def _pack(order: int, category: int, ranks: Sequence[int]) -> int:
    r1, r2, r3, r4, r5 = ranks
    return (order << 24 | r1 << 20 | r2 << 16 | r3 << 12 | r4 << 8 | r5 << 4) | category


class _Tables:
    """Lookup tables for one :class:`HandRules`."""

    __slots__ = ("code_of", "codes", "flush", "order", "rank", "runs", "rules")

    def __init__(self, rules: HandRules) -> None:
        low = rules.lowest_rank
        self.rules = rules
        order = list(range(9))
        if rules.flush_beats_full_house:
            order[FLUSH], order[FULL_HOUSE] = FULL_HOUSE, FLUSH
        self.order: tuple[int, ...] = tuple(order)
        runs: list[tuple[int, tuple[int, ...]]] = []
        for high in range(14, low + 3, -1):
            ranks = tuple(range(high, high - 5, -1))
            runs.append((sum(1 << (r - 2) for r in ranks), ranks))
        if rules.ace_low_straight:
            ranks = (low + 3, low + 2, low + 1, low, 14)
            runs.append((sum(1 << (r - 2) for r in ranks), ranks))
        self.runs: tuple[tuple[int, tuple[int, ...]], ...] = tuple(runs)
        self.codes: dict[str, int] = {
            c: code for c, code in _CARD_CODES.items() if RANK_VALUE[c[0]] >= low
        }
        self.code_of: Callable[[str], int] = self.codes.__getitem__
        self.flush: list[int] = self._flush_table()
        self.rank: dict[int, int] = {}
        self._fill_ranks(7)

    def _flush_table(self) -> list[int]:
        table = [0] * 8192
        sf, fl = self.order[STRAIGHT_FLUSH], self.order[FLUSH]
        all_ranks = range(14, 1, -1)
        for mask in range(8192):
            if mask.bit_count() < 5:
                continue
            for run, ranks in self.runs:
                if mask & run == run:
                    table[mask] = _pack(sf, STRAIGHT_FLUSH, ranks)
                    break
            else:
                top = [r for r in all_ranks if mask >> (r - 2) & 1][:5]
                table[mask] = _pack(fl, FLUSH, top)
        return table

    def _fill_ranks(self, max_cards: int) -> None:
        """Value every rank multiset of 5..``max_cards`` cards from this deck.

        Five-card multisets are valued directly; a bigger multiset's best five leave out at
        least one card, so its value is the max over the multisets one card smaller.
        """
        ranks = list(range(14, self.rules.lowest_rank - 1, -1))
        five: dict[int, int] = {}
        value = self.value_of_counts
        for hand in combinations_with_replacement(ranks, 5):
            if hand[0] == hand[4]:
                continue  # five of a kind
            counts = [0] * 15
            for r in hand:
                counts[r] += 1
            five[sum(_POW5[r] for r in hand)] = value(counts)
        table = self.rank
        table.update(five)
        steps = [(_POW5[r], 5 * _POW5[r]) for r in ranks]
        smaller = five
        for _ in range(5, max_cards):
            bigger: dict[int, int] = {}
            get = bigger.get
            for key, v in smaller.items():
                for p, p5 in steps:
                    if key % p5 < 4 * p:  # this rank has fewer than four cards
                        k = key + p
                        if get(k, -1) < v:
                            bigger[k] = v
            table.update(bigger)
            smaller = bigger

    def value_of_counts(self, counts: Sequence[int]) -> int:
        """The best non-flush value of a rank multiset (``counts[rank]``, 5+ cards)."""
        order = self.order
        present = [r for r in range(14, 1, -1) if counts[r]]
        quads = [r for r in present if counts[r] == 4]
        trips = [r for r in present if counts[r] == 3]
        pairs = [r for r in present if counts[r] == 2]
        if quads:
            q = quads[0]
            k = next(r for r in present if r != q)
            return _pack(order[QUADS], QUADS, (q, q, q, q, k))
        if trips and (len(trips) > 1 or pairs):
            t = trips[0]
            p = max(trips[1] if len(trips) > 1 else 0, pairs[0] if pairs else 0)
            return _pack(order[FULL_HOUSE], FULL_HOUSE, (t, t, t, p, p))
        if len(present) >= 5:
            mask = 0
            for r in present:
                mask |= 1 << (r - 2)
            for run, ranks in self.runs:
                if mask & run == run:
                    return _pack(order[STRAIGHT], STRAIGHT, ranks)
        if trips:
            t = trips[0]
            k1, k2 = [r for r in present if r != t][:2]
            return _pack(order[TRIPS], TRIPS, (t, t, t, k1, k2))
        if len(pairs) >= 2:
            p1, p2 = pairs[:2]
            k = next(r for r in present if r != p1 and r != p2)
            return _pack(order[TWO_PAIR], TWO_PAIR, (p1, p1, p2, p2, k))
        if pairs:
            p = pairs[0]
            k1, k2, k3 = [r for r in present if r != p][:3]
            return _pack(order[PAIR], PAIR, (p, p, k1, k2, k3))
        return _pack(order[HIGH_CARD], HIGH_CARD, present[:5])

    def rank_miss(self, key: int) -> int:
        """Value a rank multiset not in the table (8+ cards), and remember it."""
        counts = [0] * 15
        n = 0
        rest = key
        for r in range(2, 15):
            rest, c = divmod(rest, 5)
            counts[r] = c
            n += c
        if n < 5:
            raise ValueError(f"a hand needs at least 5 cards, got {n}")
        v = self.rank[key] = self.value_of_counts(counts)
        return v


_STANDARD_TABLES = _Tables(STANDARD)
_TABLES: dict[HandRules, _Tables] = {STANDARD: _STANDARD_TABLES}


def _tables(rules: HandRules) -> _Tables:
    t = _TABLES.get(rules)
    if t is None:
        if not isinstance(rules, HandRules):
            raise TypeError(f"rules must be HandRules, not {type(rules).__name__}")
        t = _TABLES[rules] = _Tables(rules)
    return t


def _flush_value(code: int, f: int, t: _Tables) -> int:
    shifts = _SUIT_SHIFTS.get(f)
    if shifts is None:  # two flush suits: ten or more cards
        shifts = tuple(_PRESENCE_SHIFT + 13 * s for s in range(4) if f >> (8 * s + 7) & 1)
    flush = t.flush
    return max(flush[(code >> sh) & 0x1FFF] for sh in shifts)


def _bad_cards(cards: Iterable[object], t: _Tables) -> ValueError:
    for c in cards:
        if not isinstance(c, str) or c not in _CARD_CODES:
            return ValueError(f"not a card: {c!r}")
        if c not in t.codes:
            return ValueError(f"card {c} is not in a deck from rank {t.rules.lowest_rank}")
    # unreachable: called only after looking up one of ``cards`` failed, so one is named above
    return ValueError("malformed cards")  # pragma: no cover


# --- values -------------------------------------------------------------------------------
class HandValue(int):
    """A hand's value: an int, higher is better under the rules it was evaluated with.

    ``category`` is the hand category (a flush stays FLUSH even when it outranks a full
    house); ``cards`` the five cards used, best first; ``name`` reads it out.
    """

    _src: tuple[str, ...]

    @property
    def category(self) -> int:
        return self & 15  # (an int operator on the subclass gives a plain int)

    @property
    def ranks(self) -> tuple[int, ...]:
        """The ranks of the five cards used, best first (2..14; a wheel ends with 14)."""
        return (self >> 20 & 15, self >> 16 & 15, self >> 12 & 15, self >> 8 & 15, self >> 4 & 15)

    @property
    def cards(self) -> tuple[str, ...]:
        cached: tuple[str, ...] | None = self.__dict__.get("_cards")
        if cached is None:
            cached = self.__dict__["_cards"] = _cards_for(self, self._src)
        return cached

    @property
    def is_royal(self) -> bool:
        return self.category == STRAIGHT_FLUSH and (int(self) >> 20 & 15) == 14

    @property
    def name(self) -> str:
        cat = self & 15
        top = self >> 20 & 15  # the first of the five ranks
        if cat == STRAIGHT_FLUSH:
            return "royal flush" if top == 14 else f"straight flush, {RANK_NAMES[top]} high"
        if cat == QUADS:
            return f"four of a kind, {RANK_PLURALS[top]}"
        if cat == FULL_HOUSE:  # the pair is the fourth rank
            return f"full house, {RANK_PLURALS[top]} full of {RANK_PLURALS[self >> 8 & 15]}"
        if cat == FLUSH:
            return f"flush, {RANK_NAMES[top]} high"
        if cat == STRAIGHT:
            return f"straight, {RANK_NAMES[top]} high"
        if cat == TRIPS:
            return f"three of a kind, {RANK_PLURALS[top]}"
        if cat == TWO_PAIR:  # the second pair is the third rank
            return f"two pair, {RANK_PLURALS[top]} and {RANK_PLURALS[self >> 12 & 15]}"
        if cat == PAIR:
            return f"pair of {RANK_PLURALS[top]}"
        return f"high card, {RANK_NAMES[top]}"

    def __repr__(self) -> str:
        return f"HandValue({int(self)}, {self.name!r}, {self.cards!r})"

    def __reduce__(self) -> tuple[object, ...]:
        return (_rebuild, (int(self), self._src))


# SHOW-04: where a category's kickers sit among the five ranks (the ranks before them are
# its main ranks); a category missing here (straight, full house, straight flush) has none.
_KICKERS = {QUADS: (4,), TRIPS: (3, 4), TWO_PAIR: (4,), PAIR: (2, 3, 4),
            FLUSH: (1, 2, 3, 4), HIGH_CARD: (1, 2, 3, 4)}


def name_against(value: HandValue, rivals: Iterable[HandValue]) -> str:
    """SHOW-04: ``value``'s name, with the kicker that tells it from ``rivals`` where one
    shares its category and main ranks but not its value ("pair of aces, king kicker",
    "two pair, aces and kings, queen kicker", "flush, ace-king high", "high card, ace-king"):
    the kicker named is the first rank that differs from the closest such rival (a high
    card or a flush reads its ranks down to it). Otherwise (no rival that close, or only
    exact ties) its plain :attr:`HandValue.name`.

    The ranks are compared in place in the values' bits (r1..r5, four bits each, from bit 20
    down to bit 4): the first rank two values differ in is the highest bit of their xor."""
    cat = value & 15
    places = _KICKERS.get(cat)
    if places is None:
        return value.name
    main = 20 - 4 * places[0]  # the xor's bits below ``main`` hold the kickers
    closest = 0  # the smallest such xor: the closest rival's, whose first difference is lowest
    for rival in rivals:
        if rival & 15 != cat:  # another category
            continue
        differ = (value ^ rival) >> 4 & 0xFFFFF  # the five ranks' bits that differ
        if differ and not differ >> main and (not closest or differ < closest):
            closest = differ  # the same main ranks, another kicker
    if not closest:
        return value.name
    first = (20 - closest.bit_length()) // 4  # the index (0..4) of the kicker named
    mine = value.ranks
    if cat in (HIGH_CARD, FLUSH):
        high = "-".join(RANK_NAMES[r] for r in mine[:first + 1])
        return f"flush, {high} high" if cat == FLUSH else f"high card, {high}"
    return f"{value.name}, {RANK_NAMES[mine[first]]} kicker"


def _rebuild(value: int, src: tuple[str, ...]) -> HandValue:
    hv = HandValue(value)
    hv._src = src
    return hv


# the presence field of each card's code (see "card encoding"; bit 13 * suit + rank - 2), the
# card of each of its bits (by bit index), and each rank's four bits
_CARD_BITS = {c: code >> _PRESENCE_SHIFT & _M52 for c, code in _CARD_CODES.items()}
_BIT_CARD = [c for _, c in sorted((bits.bit_length() - 1, c) for c, bits in _CARD_BITS.items())]
_RANK_BITS = [0, 0] + [sum(1 << (13 * s + rv - 2) for s in range(4)) for rv in range(2, 15)]
_RANK_SHIFTS = (20, 16, 12, 8, 4)  # r1..r5 in a value
_SUIT_FIELDS = (39, 26, 13, 0)  # each suit's 13 bits, spades first


def _cards_for(value: int, src: Sequence[str]) -> tuple[str, ...]:
    """The cards of ``src`` that make ``value``'s five ranks: for each rank the highest card
    (by suit) of that rank not taken yet; for a flush, within the first suit (spades first)
    holding five or more cards of ``src`` including all five ranks.  Read off the presence
    bits of ``src`` (a card's bit is higher the higher its suit)."""
    code = sum(map(_CARD_BITS.__getitem__, src))
    if (value & 15) in (FLUSH, STRAIGHT_FLUSH):
        need = 0
        for shift in _RANK_SHIFTS:
            need |= 1 << ((value >> shift & 15) - 2)
        for field in _SUIT_FIELDS:
            suited = code >> field & 0x1FFF
            if suited.bit_count() >= 5 and not need & ~suited:
                code = suited << field  # only that suit's cards
                break
    ranks = _RANK_BITS  # r1..r5 (unrolled): each rank's highest bit (suit) left, then taken
    b1 = (code & ranks[value >> 20 & 15]).bit_length() - 1
    code ^= 1 << b1
    b2 = (code & ranks[value >> 16 & 15]).bit_length() - 1
    code ^= 1 << b2
    b3 = (code & ranks[value >> 12 & 15]).bit_length() - 1
    code ^= 1 << b3
    b4 = (code & ranks[value >> 8 & 15]).bit_length() - 1
    code ^= 1 << b4
    b5 = (code & ranks[value >> 4 & 15]).bit_length() - 1
    card = _BIT_CARD
    return card[b1], card[b2], card[b3], card[b4], card[b5]


def hand_category_name(category: int) -> str:
    """``"full house"`` for FULL_HOUSE, and so on (CSP-06 names)."""
    if not isinstance(category, int) or not 0 <= category <= 8:
        raise ValueError(f"no hand category {category!r}")
    return _CATEGORY_NAMES[category]


def encode(cards: Iterable[str], *, rules: HandRules = STANDARD) -> int:
    """Encode a set of distinct cards for :func:`value_of`.

    Codes of disjoint sets add: ``encode(hole) + encode(board) == encode(hole + board)``, so a
    caller can encode the board once and each player's hole cards once.
    """
    t = _tables(rules)
    cards = tuple(cards)
    try:
        code = sum(map(t.codes.__getitem__, cards))
    except (KeyError, TypeError):
        raise _bad_cards(cards, t) from None
    if ((code >> _PRESENCE_SHIFT) & _M52).bit_count() != len(cards):
        raise ValueError(f"duplicate cards in {cards!r}")
    return code


def value_of(code: int, *, rules: HandRules = STANDARD) -> int:
    """The plain-int value of the best five cards of an :func:`encode`-d set (5+ cards).

    Equal to ``int(evaluate(cards, rules=rules))``; no checks beyond the card count.
    """
    t = _STANDARD_TABLES if rules is STANDARD else _tables(rules)
    try:
        v = t.rank[code >> _RANKKEY_SHIFT]
    except KeyError:
        v = t.rank_miss(code >> _RANKKEY_SHIFT)
    f = (code + _FLUSH_ADD) & _FLUSH_TEST
    if f:
        fv = _flush_value(code, f, t)
        if fv > v:
            return fv
    return v


def evaluate(
    cards: Iterable[str],
    board: Iterable[str] = (),
    *,
    rules: HandRules = STANDARD,
    use_exactly: int | None = None,
) -> HandValue:
    """The value of a player's best five-card hand.

    ``cards`` are the player's own cards, ``board`` the community cards.  With
    ``use_exactly=None`` the hand is the best five of all of them (HOLD-03, STUD-07, DRAW-04,
    CSP-06).  With ``use_exactly=k`` it must use exactly ``k`` of ``cards`` and ``5 - k`` of
    ``board`` (MAN-03: k=2 of 2; MAN3-03: k=2 of 3).  Raises ValueError on malformed input:
    bad strings, cards outside the rules' deck, duplicates, too few cards.
    """
    t = _STANDARD_TABLES if rules is STANDARD else _tables(rules)
    if use_exactly is not None:
        return _evaluate_exactly(tuple(cards), tuple(board), use_exactly, t)
    allc = (*cards, *board)
    try:
        code = sum(map(t.code_of, allc))
    except (KeyError, TypeError):
        raise _bad_cards(allc, t) from None
    return _valued(code, allc, t)


def evaluate_each(hands: Mapping[int, Sequence[str]], seats: Iterable[int],
                  board: Sequence[str] = (), *,
                  rules: HandRules = STANDARD) -> dict[int, HandValue]:
    """``{seat: evaluate(hands[seat], board, rules=rules)}`` for each of ``seats`` (the same
    values, the same errors), the board's cards encoded once for all of them."""
    t = _STANDARD_TABLES if rules is STANDARD else _tables(rules)
    board = tuple(board)
    code_of = t.code_of
    try:
        shared = sum(map(code_of, board))
    except (KeyError, TypeError):  # a bad board card: evaluate names it (or the seat's)
        return {s: evaluate(hands[s], board, rules=rules) for s in seats}
    out: dict[int, HandValue] = {}
    for s in seats:
        own = tuple(hands[s])
        allc = own + board
        try:
            code = shared + sum(map(code_of, own))
        except (KeyError, TypeError):
            raise _bad_cards(allc, t) from None
        out[s] = _valued(code, allc, t)
    return out


def _valued(code: int, allc: tuple[str, ...], t: _Tables) -> HandValue:
    """The value of the cards ``allc`` whose codes sum to ``code`` (5+ distinct cards)."""
    n = len(allc)
    if n < 5 or ((code >> _PRESENCE_SHIFT) & _M52).bit_count() != n:
        if n < 5:
            raise ValueError(f"a hand needs at least 5 cards, got {n}")
        raise ValueError(f"duplicate cards in {allc!r}")
    try:
        v = t.rank[code >> _RANKKEY_SHIFT]
    except KeyError:
        v = t.rank_miss(code >> _RANKKEY_SHIFT)
    f = (code + _FLUSH_ADD) & _FLUSH_TEST
    if f:
        fv = _flush_value(code, f, t)
        if fv > v:
            v = fv
    hv = HandValue(v)
    hv._src = allc
    return hv


def _evaluate_exactly(
    hole: tuple[str, ...], board: tuple[str, ...], k: object, t: _Tables
) -> HandValue:
    if not isinstance(k, int) or isinstance(k, bool) or not 0 <= k <= 5:
        raise ValueError(f"use_exactly must be 0..5, not {k!r}")
    if len(hole) < k or len(board) < 5 - k:
        raise ValueError(
            f"use_exactly={k} needs {k} own and {5 - k} board cards, "
            f"got {len(hole)} and {len(board)}"
        )
    codes = t.codes
    try:
        hole_codes = [codes[c] for c in hole]
        board_codes = [codes[c] for c in board]
    except (KeyError, TypeError):
        raise _bad_cards((*hole, *board), t) from None
    total = sum(hole_codes) + sum(board_codes)
    if ((total >> _PRESENCE_SHIFT) & _M52).bit_count() != len(hole) + len(board):
        raise ValueError(f"duplicate cards in {(*hole, *board)!r}")
    hole_sets = [
        (sum(hole_codes[i] for i in idx), idx) for idx in combinations(range(len(hole)), k)
    ]
    board_sets = [
        (sum(board_codes[i] for i in idx), idx)
        for idx in combinations(range(len(board)), 5 - k)
    ]
    rank, flush = t.rank, t.flush
    best = -1
    best_sets: tuple[tuple[int, ...], tuple[int, ...]] = ((), ())
    for hcode, hidx in hole_sets:
        for bcode, bidx in board_sets:
            code = hcode + bcode
            f = (code + _FLUSH_ADD) & _FLUSH_TEST
            # five suited cards: the flush value is the value
            v = flush[(code >> _SUIT_SHIFTS[f][0]) & 0x1FFF] if f else rank[code >> _RANKKEY_SHIFT]
            if v > best:
                best = v
                best_sets = (hidx, bidx)
    hv = HandValue(best)
    hv._src = (*(hole[i] for i in best_sets[0]), *(board[i] for i in best_sets[1]))
    return hv


# --- stud: hands showing ------------------------------------------------------------------
def _check_up_cards(up_cards: Iterable[str]) -> tuple[str, ...]:
    cards = tuple(up_cards)
    if not cards:
        raise ValueError("no up cards")
    for c in cards:
        if not isinstance(c, str) or c not in _CARD_CODES:
            raise ValueError(f"not a card: {c!r}")
    if len(set(cards)) != len(cards):
        raise ValueError(f"duplicate cards in {cards!r}")
    return cards


def rank_showing(up_cards: Iterable[str]) -> tuple[int, tuple[int, ...], tuple[int, ...]]:
    """A sort key for a stud hand showing; higher is the better hand showing (STUD-03).

    Only pairs, two pair, trips, full house and quads count (no straights or flushes from
    partial hands), then the ranks (groups first, then kickers, high to low), then the cards
    by suit in the same order, so the tie between equal ranks goes to the highest card by suit
    and no two different sets of up cards tie.
    """
    cards = _check_up_cards(up_cards)
    by_rank: dict[int, list[str]] = {}
    for c in sorted(cards, key=card_key, reverse=True):
        by_rank.setdefault(RANK_VALUE[c[0]], []).append(c)
    groups = sorted(by_rank.items(), key=lambda item: (len(item[1]), item[0]), reverse=True)
    sizes = [len(g) for _, g in groups]
    if sizes[0] >= 4:
        category = QUADS
    elif sizes[0] == 3:
        category = FULL_HOUSE if len(sizes) > 1 and sizes[1] >= 2 else TRIPS
    elif sizes[0] == 2:
        category = TWO_PAIR if len(sizes) > 1 and sizes[1] == 2 else PAIR
    else:
        category = HIGH_CARD
    ordered = [c for _, g in groups for c in g]
    return (
        category,
        tuple(RANK_VALUE[c[0]] for c in ordered),
        tuple(card_key(c) for c in ordered),
    )


def lowest_card(up_cards: Iterable[str]) -> str:
    """The lowest card by rank, then suit, clubs lowest: the stud bring-in card (STUD-02)."""
    return min(_check_up_cards(up_cards), key=card_key)
