// Tournaments in words (issue 27, docs/protocol.md "Tournaments"; docs/rules.md section 5):
// places, results, the level clock, the seat notices, the tournament routes and the
// create form's request.
//
// Rule of this module: pure functions (no DOM, no socket, no clock): unit-tested with node
// (client_web/tests/tournament.test.js).

import { chips, stakesText, STRUCTURE_NAMES, VARIANT_NAMES } from "./format.js";

/** 1 -> "1st", 2 -> "2nd", 11 -> "11th", 23 -> "23rd". */
export function ordinal(n) {
  const k = Math.trunc(Number(n));
  if (!Number.isFinite(k)) return "?";
  const teen = k % 100 >= 11 && k % 100 <= 13;
  const suffix = teen ? "th" : ({ 1: "st", 2: "nd", 3: "rd" }[k % 10] || "th");
  return `${k}${suffix}`;
}

/** A `tournament_result` in words (TOUR-11/12): "You finished 7th of 27: 1,200 chips",
 * "You finished 3rd of 3: no prize", or, while the prize table is not fixed (prize null),
 * "You finished 5th of 27: your prize is known once the places paid are fixed". */
export function resultText(result) {
  const r = result || {};
  const head = `You finished ${ordinal(r.place)} of ${chips(r.entrants)}`;
  if (r.prize == null) return `${head}: your prize is known once the places paid are fixed`;
  return r.prize > 0 ? `${head}: ${chips(r.prize)} chips` : `${head}: no prize`;
}

/** Seconds left on a level's clock as "m:ss" ("12:05"); "h:mm:ss" past the hour; "" when no
 * clock runs (null, a level by hands: Infinity). */
export function clockText(seconds) {
  if (seconds == null || !Number.isFinite(Number(seconds))) return "";
  const s = Math.max(0, Math.ceil(Number(seconds)));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const ss = String(s % 60).padStart(2, "0");
  return h ? `${h}:${String(m).padStart(2, "0")}:${ss}` : `${m}:${ss}`;
}

/** The seconds left now of a clock that read `left` at `at` (ms), `now` ms later. */
export function clockLeft(left, at, now) {
  if (left == null || !Number.isFinite(Number(left))) return null;
  return Math.max(0, Number(left) - (now - at) / 1000);
}

/** A level as the players read it: "Level 3 · blinds 50/100, ante 10 · 4 min" (a level by hands:
 * "· 12 hands"; a mixed tournament names the game). */
export function levelText(level, mixedFrom) {
  if (!level) return "";
  const parts = [`Level ${level.number}`];
  if (mixedFrom && level.game !== mixedFrom) parts.push(VARIANT_NAMES[level.game] || level.game);
  const blinds = level.stakes && Array.isArray(level.stakes.blinds) && level.stakes.blinds.length;
  parts.push(`${blinds ? "blinds " : ""}${stakesText(level.game, level.stakes)}`);
  if (level.minutes) parts.push(`${level.minutes} min`);
  else if (level.hands) parts.push(`${level.hands} hands`);
  return parts.join(" \u00b7 ");
}

/** The number of a tournament table: its id is `<tournament>.<number>` (the director's
 * tables, server/tournament/director.py); null for any other table. */
export function tableNumber(tableId) {
  const m = typeof tableId === "string" ? tableId.match(/\.(\d+)$/) : null;
  return m ? Number(m[1]) : null;
}

/** The tournament a table belongs to, read from its id (`T<n>-<code>.<number>`), else null. */
export function tournamentOfTable(tableId) {
  const m = typeof tableId === "string" ? tableId.match(/^(T\d+-[A-Za-z0-9]+)\.\d+$/) : null;
  return m ? m[1] : null;
}

const WHY = {
  start: (n) => `The tournament has started: you are at table ${n}.`,
  balance: (n) => `Moved to table ${n} to balance the tables.`,
  break: (n) => `Moved to table ${n}: your table was broken up.`,
  late: (n) => `You are in: seated at table ${n}.`,
  re_entry: (n) => `You are back in: seated at table ${n}.`,
  restore: (n) => `The tournament was restored after a server was lost: you are at table ${n}.`,
  away: (n) => `While you were away your table was broken: you are now at table ${n}.`,
};

/** The notice of a `tournament_seat` (TOUR-04, 06, 08, 14). */
export function seatNotice(seat) {
  const n = tableNumber(seat && seat.table) ?? "?";
  const say = WHY[seat && seat.why] || ((k) => `Seated at table ${k}.`);
  return say(n);
}

/** The tournament route of a page address: `#/tournament/<id>[?invite=<code>]`, or an invite
 * link's query `?tournament=<id>&invite=<code>` (with no hash yet); else null.
 * `#/tournaments` is the lobby's Tournaments tab: `{view: "lobby", tab: "tournaments"}`. */
export function tournamentRoute(hash, search) {
  const h = typeof hash === "string" ? hash : "";
  if (/^#\/tournaments\/?$/.test(h)) return { view: "lobby", tab: "tournaments" };
  const m = h.match(/^#\/tournament\/([A-Za-z0-9_-]{1,64})(?:\?(.*))?$/);
  if (m) {
    const invite = new URLSearchParams(m[2] || "").get("invite");
    return { view: "tournament", id: m[1], invite: invite || null };
  }
  if (h !== "" && h !== "#") return null; // the link's query counts until the page moves on
  const q = new URLSearchParams(typeof search === "string" ? search : "");
  const id = q.get("tournament");
  if (id && /^[A-Za-z0-9_-]{1,64}$/.test(id)) {
    return { view: "tournament", id, invite: q.get("invite") || null };
  }
  return null;
}

/** A private tournament's invite link: `<base>?tournament=<id>&invite=<code>`. */
export function inviteLink(base, id, code) {
  const q = new URLSearchParams({ tournament: id, invite: code });
  return `${base}?${q.toString()}`;
}

export const PRESETS = { regular: "Regular (15-min levels)", turbo: "Turbo (8-min levels)",
  hyper: "Hyper (4-min levels)" };

/** The create form's values (strings, as FormData gives them) -> the `create_tournament`
 * fields of a sit-and-go, and the problems to fix first ({field: words}). */
export function sitAndGoRequest(values) {
  const v = values || {};
  const int = (x) => (String(x ?? "").trim() === "" ? NaN : Number(x));
  const problems = {};
  const name = String(v.name || "").trim();
  if (!name) problems.name = "Give it a name.";
  const buyIn = int(v.buy_in);
  const fee = int(v.fee);
  const capacity = int(v.capacity);
  const stack = int(v.starting_stack);
  if (!Number.isInteger(buyIn) || buyIn < 0) problems.buy_in = "A whole number of chips, 0 or more.";
  if (!Number.isInteger(fee) || fee < 0) problems.fee = "A whole number of chips, 0 or more.";
  if (!Number.isInteger(capacity) || capacity < 2 || capacity > 10) {
    problems.capacity = "From 2 to 10 players.";
  }
  if (!Number.isInteger(stack) || stack < 1) problems.starting_stack = "A whole number of chips.";
  const request = {
    name, game: v.game || "holdem", structure: v.structure || "no_limit", kind: "sng",
    buy_in: buyIn, fee, capacity,
    settings: { starting_stack: stack, seats: capacity, preset: PRESETS[v.preset] ? v.preset : "regular" },
  };
  if (v.private) request.private = true;
  return { request, problems };
}

/** A `tournaments` entry's one-line money: "100 + 10" (buy-in + fee), "Free". */
export function buyInText(t) {
  if (!t.buy_in && !t.fee) return "Free";
  return `${chips(t.buy_in)} + ${chips(t.fee)}`;
}

export const STATE_NAMES = { registering: "Registering", running: "Running", finished: "Finished",
  cancelled: "Cancelled" };

/** "Texas Hold'em · No Limit". */
export function gameText(t) {
  const game = VARIANT_NAMES[t.game] || t.game || "";
  const structure = STRUCTURE_NAMES[t.structure] || t.structure || "";
  return structure ? `${game} \u00b7 ${structure}` : game;
}
