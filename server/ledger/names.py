"""Display names compared as a reader sees them: the Unicode confusables skeleton (UTS #39).

Rule of this module: two display names are the same name when they *look* the same. A name's
keys (:func:`name_keys`) are computed from its UTS #39 skeleton, as ICU's ``SpoofChecker``
computes it from Unicode's ``confusables.txt`` (PyICU: the reference implementation, kept in
step with Unicode by the ICU project), after

* NFKC (compatibility forms: full-width ``Ａｌｉｃｅ``, ligatures, superscripts),
* NFKD and removing every combining mark (``Alicé`` is ``Alice``: a registry of names
  refuses an accent rather than let one pass for another name), and
* case folding, applied both before and after the skeleton and repeated until nothing
  changes, because a confusable can hide in either case: capital ``I`` looks like small
  ``l`` (``AIice`` / ``Alice``) while small ``m`` looks like ``rn`` (``rnary`` / ``mary``).

A name therefore has up to three keys: the skeleton of the name as typed, then folded
(``AIice`` → ``alice``), of the name folded first (``ALICE`` → ``alice``) and of the name in
capitals (``admin`` → ``ADMIN`` → ``adrnln``, which is also ``ADM1N``'s key). Two names
clash when any key of one is a key of the other; the store keeps every key of a named
account (:meth:`server.ledger.store.Store.add_user`), so the check and the insert are one
atomic step. Reserved names (``Config.reserved_names``) are compared the same way.

A name must *show* something (:func:`invisible_reason`): at least one visible letter or digit,
and no invisible code point at all: no default-ignorable one (ICU's
``Default_Ignorable_Code_Point`` property: the Hangul fillers U+3164, U+115F, U+1160, U+FFA0,
zero-width characters, variation selectors...), no format or control character, no space but
U+0020, and no blank-looking symbol (U+2800 BRAILLE PATTERN BLANK). So "Dana" followed by a
Hangul filler, or a name of Braille blanks, is refused rather than registered beside "Dana".
The keys ignore every invisible code point too (:func:`name_keys`), so a name that slipped in
before this rule still clashes with the name it imitates.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable

import icu

__all__ = ["ReservedNames", "clash", "invisible", "invisible_reason", "name_keys", "skeleton"]

_CHECKER = icu.SpoofChecker()
_IGNORABLE = icu.UProperty.DEFAULT_IGNORABLE_CODE_POINT
_INVISIBLE_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp", "Zs"})
_BLANKS = frozenset("\u2800")
"""Code points that are neither default-ignorable nor spaces but show nothing."""


def invisible(char: str) -> bool:
    """Does this code point show nothing (or change how its neighbours show)? Default-
    ignorable (ICU), a control, format, unassigned, private-use or separator character (but
    the plain space U+0020), or a blank symbol (U+2800)."""
    if char == " ":
        return False
    return (char in _BLANKS or unicodedata.category(char) in _INVISIBLE_CATEGORIES
            or bool(icu.Char.hasBinaryProperty(char, _IGNORABLE)))


def invisible_reason(name: str) -> str | None:
    """Why ``name`` may not be a display name (None: it may): an invisible code point in it,
    or no visible letter or digit at all."""
    for char in name:
        if invisible(char):
            return f"U+{ord(char):04X} is invisible; a name shows only what it is made of"
    if not any(unicodedata.category(c)[0] in "LN" for c in name):
        return "a name must show at least one letter or digit"
    return None


def _visible(text: str) -> str:
    return "".join(c for c in text if not invisible(c))


def skeleton(text: str) -> str:
    """The UTS #39 skeleton of ``text`` (ICU; no case folding, marks kept)."""
    return str(_CHECKER.getSkeleton(0, text))


def _strip_marks(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", unicodedata.normalize("NFKC", text))
    return "".join(c for c in decomposed if not unicodedata.category(c).startswith("M"))


def _settle(text: str) -> str:
    """Skeleton then case fold (marks removed again: a skeleton may bring some), repeated
    until the text no longer changes."""
    for _ in range(8):  # (a fixed point in one or two rounds; the bound is a safety net)
        nxt = _strip_marks(skeleton(text)).casefold()
        if nxt == text:
            break
        text = nxt
    return "".join(text.split())  # spaces do not tell names apart either


def name_keys(name: str) -> tuple[str, ...]:
    """Every key of ``name`` (one to three, the first is the account's primary key); an empty
    tuple for a name with nothing visible in it."""
    base = _strip_marks(_visible(name).strip())
    keys: list[str] = []
    for key in (_settle(base), _settle(base.casefold()), _settle(base.upper())):
        if key and key not in keys:
            keys.append(key)
    return tuple(keys)


def clash(a: Iterable[str], b: Iterable[str]) -> bool:
    """Whether two names' keys meet."""
    return not set(a).isdisjoint(b)


class ReservedNames:
    """The operator's reserved names (``Config.reserved_names``), by skeleton key."""

    def __init__(self, names: Iterable[str]) -> None:
        self._keys = {key for name in names for key in name_keys(name)}

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and clash(name_keys(name), self._keys)
