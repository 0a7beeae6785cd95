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

// ---- the viewer's own hand as it is dealt (a display preference, off by default) ---------
// `liveHandName(variant, own, up, board)` names the best hand the viewer's cards make so far,
// with the server's words (server/rules/evaluate.py `HandValue.name`): "pair of jacks",
// "full house, aces full of kings". Fewer than five cards make only pairs, trips, quads or a
// high card. Manila plays exactly its two hole cards with three of the board (MAN-03), Three
// Card Manila exactly two of its three (MAN3-03); their short decks make the ace-low straight
// A-7-8-9-10 (A-6-7-8-9) and let a flush beat a full house (MAN-04, MAN3-04).

const WORDS = { 2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight",
  9: "nine", 10: "ten", 11: "jack", 12: "queen", 13: "king", 14: "ace" };
const plural = (r) => (r === 6 ? "sixes" : `${WORDS[r]}s`);
const LOWEST = { manila: 7, manila3: 6 };
const SHORT_DECK = new Set(["manila", "manila3"]);
const HOLE_CARDS = { manila: 2, manila3: 2 }; // exactly this many of the hole cards play

/** [category, ...ranks best first] of 1 to 5 cards; `lowest`: the deck's lowest rank. */
export function scoreCards(cards, lowest = 2) {
  const ranks = cards.map((c) => RANKS.indexOf(c[0]) + 2).sort((a, b) => b - a);
  const counts = new Map();
  for (const r of ranks) counts.set(r, (counts.get(r) || 0) + 1);
  const groups = [...counts.entries()].sort((a, b) => b[1] - a[1] || b[0] - a[0]);
  const byGroup = groups.flatMap(([r, n]) => Array(n).fill(r));
  const shape = groups.map(([, n]) => n).join("");
  if (cards.length === 5) {
    const flush = cards.every((c) => c[1] === cards[0][1]);
    const uniq = counts.size === 5;
    let high = 0;
    if (uniq && ranks[0] - ranks[4] === 4) high = ranks[0];
    if (uniq && ranks[0] === 14 && ranks[1] === lowest + 3 && ranks[4] === lowest) high = lowest + 3;
    if (high && flush) return [8, high];
    if (shape === "41") return [7, ...byGroup];
    if (shape === "32") return [6, ...byGroup];
    if (flush) return [5, ...ranks];
    if (high) return [4, high];
  }
  if (shape.startsWith("4")) return [7, ...byGroup];
  if (shape.startsWith("3")) return [3, ...byGroup];
  if (shape.startsWith("22")) return [2, ...byGroup];
  if (shape.startsWith("2")) return [1, ...byGroup];
  return [0, ...ranks];
}

/** The hand's name for a score of `scoreCards`. */
export function scoreName(sc) {
  const [cat, a, , , b] = sc;
  switch (cat) {
    case 8: return a === 14 ? "royal flush" : `straight flush, ${WORDS[a]} high`;
    case 7: return `four of a kind, ${plural(a)}`;
    case 6: return `full house, ${plural(a)} full of ${plural(sc[4])}`;
    case 5: return `flush, ${WORDS[a]} high`;
    case 4: return `straight, ${WORDS[a]} high`;
    case 3: return `three of a kind, ${plural(a)}`;
    case 2: return `two pair, ${plural(a)} and ${plural(sc[3])}`;
    case 1: return `pair of ${plural(a)}`;
    default: return b === undefined && a === undefined ? "" : `high card, ${WORDS[a]}`;
  }
}

/** Whether score `a` beats `b` (a short deck's flush beats its full house). */
function beats(a, b, shortDeck) {
  const order = (c) => (shortDeck && c === 5 ? 6.5 : c);
  if (order(a[0]) !== order(b[0])) return order(a[0]) > order(b[0]);
  for (let i = 1; i < Math.max(a.length, b.length); i++) {
    if ((a[i] || 0) !== (b[i] || 0)) return (a[i] || 0) > (b[i] || 0);
  }
  return false;
}

function combos(list, k) {
  if (k >= list.length) return [list];
  const out = [];
  const walk = (start, pick) => {
    if (pick.length === k) { out.push(pick); return; }
    for (let i = start; i <= list.length - (k - pick.length); i++) walk(i + 1, [...pick, list[i]]);
  };
  walk(0, []);
  return out;
}

const known = (cards) => (cards || []).filter((c) => typeof c === "string" && c.length === 2);

/** The name of the best hand `own` (hole cards), `up` (stud's up cards) and `board` make so
 * far in `variant`, or null when no card is known. */
export function liveHandName(variant, own, up, board) {
  const hole = known([...(own || []), ...(up || [])]);
  const common = known(board);
  if (!hole.length) return null;
  const lowest = LOWEST[variant] || 2;
  const shortDeck = SHORT_DECK.has(variant);
  let candidates;
  if (HOLE_CARDS[variant]) { // exactly two hole cards, with up to three of the board
    const twos = combos(hole, HOLE_CARDS[variant]);
    const threes = combos(common, 3);
    candidates = twos.flatMap((h) => threes.map((b) => [...h, ...b]));
  } else {
    const all = [...hole, ...common];
    candidates = combos(all, 5);
  }
  let best = null;
  for (const hand of candidates) {
    const sc = scoreCards(hand, lowest);
    if (!best || beats(sc, best, shortDeck)) best = sc;
  }
  return best ? scoreName(best) : null;
}
