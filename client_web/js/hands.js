// The best five cards of a shown hand (for highlighting the winning cards): a standard
// high-hand ranking. Pure, no DOM. Used only where any five of the cards may play
// (Hold'em, Five/Seven Card Stud, Five Card Draw); the server's `value` stays the hand's name.

const RANKS = "23456789TJQKA";

/** A comparable score of exactly five cards: [category, ...tie-breakers]. */
export function score5(cards) {
  const ranks = cards.map((c) => RANKS.indexOf(c[0]) + 2).sort((a, b) => b - a);
  const flush = cards.every((c) => c[1] === cards[0][1]);
  const uniq = [...new Set(ranks)];
  let straightHigh = 0;
  if (uniq.length === 5 && ranks[0] - ranks[4] === 4) straightHigh = ranks[0];
  if (uniq.length === 5 && ranks[0] === 14 && ranks[1] === 5) straightHigh = 5; // the wheel
  const counts = new Map();
  for (const r of ranks) counts.set(r, (counts.get(r) || 0) + 1);
  const groups = [...counts.entries()].sort((a, b) => b[1] - a[1] || b[0] - a[0]);
  const byGroup = groups.map(([r]) => r);
  const shape = groups.map(([, n]) => n).join("");
  if (straightHigh && flush) return [8, straightHigh];
  if (shape === "41") return [7, ...byGroup];
  if (shape === "32") return [6, ...byGroup];
  if (flush) return [5, ...ranks];
  if (straightHigh) return [4, straightHigh];
  if (shape === "311") return [3, ...byGroup];
  if (shape === "221") return [2, ...byGroup];
  if (shape === "2111") return [1, ...byGroup];
  return [0, ...ranks];
}

function better(a, b) {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    if ((a[i] || 0) !== (b[i] || 0)) return (a[i] || 0) > (b[i] || 0);
  }
  return false;
}

/** The best five of `cards` (5 to 7 known cards), or null. */
export function best5(cards) {
  const known = (cards || []).filter((c) => typeof c === "string" && c.length === 2);
  if (known.length < 5 || known.length > 7) return null;
  let best = null;
  let bestScore = null;
  const pick = (start, hand) => {
    if (hand.length === 5) {
      const sc = score5(hand);
      if (!bestScore || better(sc, bestScore)) {
        best = [...hand];
        bestScore = sc;
      }
      return;
    }
    for (let i = start; i <= known.length - (5 - hand.length); i++) pick(i + 1, [...hand, known[i]]);
  };
  pick(0, []);
  return best;
}

/** Variants where any five cards may play (so the highlight is exact). */
export const ANY_FIVE = new Set(["holdem", "stud5", "stud7", "draw"]);
