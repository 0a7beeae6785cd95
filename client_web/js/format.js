// Formatting helpers shared by the state reducer (log lines, announcements) and the DOM.
// Pure functions, no DOM: unit-tested with node.

const RANK_NAMES = {
  "2": "two", "3": "three", "4": "four", "5": "five", "6": "six", "7": "seven", "8": "eight",
  "9": "nine", T: "ten", J: "jack", Q: "queen", K: "king", A: "ace",
};
export const SUIT_SYMBOLS = { s: "\u2660", h: "\u2665", d: "\u2666", c: "\u2663" };
const SUIT_NAMES = { s: "spades", h: "hearts", d: "diamonds", c: "clubs" };

export const VARIANT_NAMES = {
  holdem: "Texas Hold'em", manila: "Manila", manila3: "Three Card Manila", draw: "Five Card Draw",
  stud5: "Five Card Stud", stud7: "Seven Card Stud", caribbean: "Caribbean Stud",
};
export const STRUCTURE_NAMES = {
  fixed_limit: "Fixed Limit", spread_limit: "Spread Limit", pot_limit: "Pot Limit",
  half_pot: "Half-Pot Limit", no_limit: "No Limit",
};

/** 1240 -> "1,240" (chips are integers). */
export function chips(n) {
  if (typeof n !== "number" || !Number.isFinite(n)) return "0";
  return Math.trunc(n).toLocaleString("en-US");
}

/** "As" -> "A♠" (the rank "T" reads 10). */
export function cardText(card) {
  if (typeof card !== "string" || card.length !== 2) return "?";
  const rank = card[0] === "T" ? "10" : card[0];
  return rank + (SUIT_SYMBOLS[card[1]] || "?");
}

/** "As" -> "ace of spades" (screen readers; never colour alone). */
export function cardName(card) {
  if (typeof card !== "string" || card.length !== 2) return "unknown card";
  return `${RANK_NAMES[card[0]] || "?"} of ${SUIT_NAMES[card[1]] || "?"}`;
}

export function cardsText(cards) {
  return (cards || []).map((c) => (c ? cardText(c) : "\u{1F0A0}")).join(" ");
}

/** A short "stakes" label for the lobby: "50/100", "ante 10, bring-in 25, 50/100". */
export function stakesText(variant, stakes) {
  const s = stakes || {};
  if (variant === "caribbean") {
    const lo = s.min ?? s.ante_min;
    const hi = s.max ?? s.ante_max;
    const jp = s.jackpot_wager ? `, jackpot ${chips(s.jackpot_wager)}` : "";
    return `ante ${chips(lo)}\u2013${chips(hi)}${jp}`;
  }
  const parts = [];
  if (Array.isArray(s.blinds) && s.blinds.length) parts.push(s.blinds.map(chips).join("/"));
  if (s.ante) parts.push(`ante ${chips(s.ante)}`);
  if (s.bring_in) parts.push(`bring-in ${chips(s.bring_in)}`);
  if (s.small_bet && s.big_bet) parts.push(`bets ${chips(s.small_bet)}/${chips(s.big_bet)}`);
  if (s.min_bet && s.max_bet) parts.push(`spread ${chips(s.min_bet)}\u2013${chips(s.max_bet)}`);
  return parts.join(", ") || "\u2014";
}

/** GEN-10: the house's take at a table, from its lobby entry: "rake 5% (cap 300)", "no rake"
 * or "fee 50 a hand". */
export function rakeText(entry) {
  const e = entry || {};
  if (e.fee) return `fee ${chips(e.fee.amount ?? e.fee)} a hand`;
  const bp = (e.rake && e.rake.bp) || 0;
  if (!bp) return "no rake";
  const cap = e.rake.cap ? ` (cap ${chips(e.rake.cap)})` : "";
  return `rake ${(bp / 100).toLocaleString("en-US")}%${cap}`;
}

/** CSP-13: the house's jackpot terms of a Caribbean lobby entry: "jackpot wager 100 · royal
 * 100% (at least 10,000), straight flush 10%, four 500, full house 100, flush 50 · reset
 * 10,000". The royal flush minimum (CSP-09, `royal_min`) is its own term, not the reset. */
export function jackpotTermsText(terms) {
  if (!terms) return "";
  const p = terms.paytable || {};
  const pct = (bp) => `${((bp || 0) / 100).toLocaleString("en-US")}%`;
  const least = terms.royal_min ? ` (at least ${chips(terms.royal_min)})` : "";
  const pays = [`royal ${pct(p.royal_flush_bp)}${least}`, `straight flush ${pct(p.straight_flush_bp)}`,
    `four ${chips(p.four_of_a_kind)}`, `full house ${chips(p.full_house)}`, `flush ${chips(p.flush)}`];
  return `jackpot wager ${chips(terms.wager)} \u00b7 ${pays.join(", ")} \u00b7 reset ${chips(terms.reset)}`;
}

/** The stake a buy-in is counted in (last blind, small bet, bring-in, minimum ante). */
export function bigBet(variant, stakes) {
  const s = stakes || {};
  if (variant === "caribbean") return s.min ?? s.ante_min ?? 1;
  if (Array.isArray(s.blinds) && s.blinds.length) return s.blinds[s.blinds.length - 1];
  return s.small_bet || s.bring_in || s.min_bet || 1;
}

const ACTION_VERBS = {
  fold: "folds", check: "checks", call: "calls", bet: "bets", raise: "raises to",
  bring_in: "brings in for", complete: "completes to", play: "plays", ante: "antes",
  returned: "takes back", draw: "draws", decline: "declines the over blind",
};

/** A log line for an `acted` event. */
export function actedText(name, action, amount) {
  const verb = ACTION_VERBS[action] || action;
  if (action === "fold" || action === "check" || action === "decline") return `${name} ${verb}`;
  if (action === "call" || action === "play") return `${name} ${verb} ${chips(amount)}`;
  return `${name} ${verb} ${chips(amount)}`;
}

export function potName(pot) {
  return pot === 0 ? "the main pot" : `side pot ${pot}`;
}

/** "Alice wins 1,240 with three of a kind, aces" (the hand name when it was shown). */
export function winText(name, amount, handName, pot, pots) {
  const where = pots > 1 || pot > 0 ? ` from ${potName(pot)}` : "";
  const how = handName ? ` with ${handName}` : "";
  return `${name} wins ${chips(amount)}${where}${how}`;
}

/** The sit-out button's words (issue 24): during a hand the player plays it out and sits out
 * from the next one ("Sit out next hand", then "Sitting out next hand ✓ (undo)"); between
 * hands "Sit out" and "I'm back". */
export function sitOutLabel(seat, playing) {
  if (seat.sittingOut) return playing ? "Sitting out next hand \u2713 (undo)" : "I'm back";
  return playing ? "Sit out next hand" : "Sit out";
}
