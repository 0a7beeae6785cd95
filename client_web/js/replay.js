// The hand replayer's model: a hand record from the server (`hand` request, format "json":
// the player's own copy, others' hidden cards null) turned into frames, one per step, each
// the table as it stood then. Pure: the record's engine events become wire-like events
// that the client's own reducer applies, so a replayed table looks like a live one.

import { initialState, reduce } from "./state.js";

const STREETS = {
  holdem: ["Pre-flop", "Flop", "Turn", "River"],
  draw: ["Before the draw", "After the draw"],
  stud5: ["Second street", "Third street", "Fourth street", "Fifth street"],
  stud7: ["Third street", "Fourth street", "Fifth street", "Sixth street", "Seventh street"],
  caribbean: ["Ante", "Decision"],
};

/** The name of street `i` (0-based) of `variant`. */
export function streetName(variant, i) {
  const names = STREETS[variant];
  if (names && names[i]) return names[i];
  return i === 0 ? "First round" : `Round ${i + 1}`;
}

const split = (e) => {
  const up = Array.isArray(e.up) ? e.up : [];
  const cards = e.cards || [];
  return { cards: cards.filter((_, i) => !up[i]), up: cards.filter((_, i) => up[i]) };
};

const seatPots = (pots) => (pots || []).map((p) => (Array.isArray(p)
  ? { amount: p[0], eligible: p[1] } : p));

/** One engine event as the wire events it stands for (`[]`: nothing to show). */
function wireEvents(e, viewer) {
  const seat = e.seat;
  switch (e.e) {
    case "HandStarted": return [{ type: "hand_started", hand: e.hand, button: e.button }];
    case "Posted": return [{ type: "posted", seat, kind: e.kind, amount: e.amount }];
    case "Dealt": return [{ type: "dealt", seat, ...split(e) }];
    case "BoardDealt": return [{ type: "board", cards: e.board || e.cards, ...(e.run ? { run: 2 } : {}) }];
    case "Acted": case "PlayerDecided": case "AnteAccepted":
      return [{ type: "acted", seat, action: e.action || "ante", amount: e.amount, stack: e.stack,
        timeout: !!e.timeout }];
    case "JackpotWagered":
      return [{ type: "acted", seat, action: "ante", jackpot: true, amount: e.amount, stack: e.stack }];
    case "BetReturned": return [{ type: "acted", seat, action: "returned", amount: e.amount, stack: e.stack }];
    case "Drew": {
      const mine = seat === viewer && (e.received || []).every((c) => c);
      return [{ type: "drew", seat, count: (e.discarded || []).length,
        ...(mine ? { cards: e.received, discarded: e.discarded } : {}) }];
    }
    case "StreetEnded": return [{ type: "pots", pots: seatPots(e.pots) }];
    case "Showdown": return [{ type: "showdown", seat, cards: e.cards, value: e.hand, best: e.best }];
    case "Mucked": return [{ type: "mucked", seat }];
    case "PotAwarded": return [{ type: "pot_awarded", pot: e.pot, amount: e.amount,
      winners: e.winners, odd_chip: e.odd_chip ?? null, ...(e.run ? { run: 2 } : {}) }];
    case "DealerDealt": case "DealerRevealed":
      return [{ type: "dealer", cards: e.cards, hand: e.hand ?? null, qualifies: e.qualifies ?? null }];
    case "Settled": return [{ type: "settled", results: { [seat]: settledResult(e) } }];
    case "HandEnded": case "RoundEnded":
      return [{ type: "hand_ended", hand: e.hand || e.round_id, stacks: e.stacks, voided: !!e.voided }];
    default: return [];
  }
}

/** A record's `Settled` as the live `settled` result reads (server/table/projection.py):
 * a folded seat's play is null, a jackpot only when wagered. */
function settledResult(e) {
  const r = { ante: e.ante, play: e.folded ? null : e.play,
    jackpot: e.jackpot || e.jackpot_hand ? e.jackpot : null, stack: e.stack };
  if (e.hand != null) r.hand = e.hand;
  if (Array.isArray(e.best) && e.best.length && !e.best.includes(null)) r.best = [...e.best];
  return r;
}

function snapshotOf(record, id) {
  const seats = [];
  for (let i = 0; i < (record.num_seats || 0); i++) {
    const p = record.players && record.players[String(i)];
    seats.push(p ? { seat: i, name: p.name, stack: p.stack, bet: 0, state: "waiting", cards: [], up: [] } : null);
  }
  return { type: "snapshot", table: id, seq: 0, name: record.table, variant: record.variant,
    structure: record.structure ?? null, stakes: record.stakes || {}, settings: record.settings || {},
    seats, board: [], pots: [], button: record.button ?? null, hand: null,
    you: record.viewer ?? null };
}

/** The frames of a record: `[{table, label, street, streetLabel}]`, the first before any card. */
export function replayFrames(record) {
  const id = `replay:${record.hand}`;
  let state = reduce({ ...initialState(), opening: id }, snapshotOf(record, id));
  let seq = 0;
  let street = 0;
  let showdown = false;
  const frames = [{ table: state.table, label: `Hand ${record.hand}: the players sit down`, street: 0,
    streetLabel: streetName(record.variant, 0) }];
  for (const e of record.events || []) {
    if (e.e === "StreetEnded" && e.street != null) street = Math.max(street, Number(e.street) + 1);
    for (const msg of wireEvents(e, record.viewer)) {
      if (msg.type === "drew" && msg.discarded) {
        state = reduce(state, { type: "local:discard", table: id, cards: msg.discarded });
      }
      if (msg.type === "showdown") showdown = true;
      state = reduce(state, { ...msg, table: id, seq: ++seq });
    }
    if (!["Dealt", "Posted", "BoardDealt", "Acted", "Drew", "Showdown", "Mucked", "PotAwarded",
      "HandEnded", "RoundEnded", "PlayerDecided", "AnteAccepted", "JackpotWagered", "DealerRevealed",
      "Settled"].includes(e.e)) continue;
    const t = state.table;
    const last = frames[frames.length - 1];
    // a deal of several seats, one after the other, is one step
    if (e.e === "Dealt" && last.kind === "Dealt" && last.street === street) {
      frames[frames.length - 1] = { ...last, table: t };
      continue;
    }
    const result = ["PotAwarded", "HandEnded", "RoundEnded", "Settled"].includes(e.e);
    if (result && last.result) { // the awards and the end are one last step
      frames[frames.length - 1] = { ...last, table: t };
      continue;
    }
    const label = e.e === "Dealt" ? "The cards are dealt" : t.log[t.log.length - 1] || e.e;
    const end = showdown || result;
    const streetLabel = showdown ? "Showdown" : result ? "Result" : streetName(record.variant, street);
    frames.push({ table: t, label, street: end ? 99 : street, streetLabel, kind: e.e, result });
  }
  const end = frames[frames.length - 1];
  if (end.table.ended) end.label = end.table.announcements.join(" \u00b7 ") || end.label;
  return frames;
}

/** The index to go to from `i` by `step`: "next"/"prev" one step, "next_street"/"prev_street"
 * to the first step of the next street or of this (then the previous) one, "first"/"last". */
export function stepTo(frames, i, step) {
  const n = frames.length;
  if (step === "first") return 0;
  if (step === "last") return n - 1;
  if (step === "next") return Math.min(n - 1, i + 1);
  if (step === "prev") return Math.max(0, i - 1);
  if (step === "next_street") {
    const s = frames[i].street;
    const j = frames.findIndex((f, k) => k > i && f.street > s);
    return j < 0 ? n - 1 : j;
  }
  if (step === "prev_street") {
    let j = i;
    while (j > 0 && frames[j - 1].street === frames[i].street) j -= 1;
    if (j < i) return j;
    const before = j > 0 ? frames[j - 1].street : 0;
    while (j > 0 && frames[j - 1].street === before) j -= 1;
    return j;
  }
  return i;
}
