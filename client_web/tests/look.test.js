// Unit tests of issue 24's client parts: the viewer's own hand strength (js/hands.js, every
// variant's rule), the display preferences (js/prefs.js), and the seat labels the felt draws
// ("mucked", "+N next hand", "Sitting out" cleared at once by sat_in), the card index.
import assert from "node:assert/strict";
import { test } from "node:test";

import { liveHandName, scoreCards, scoreName } from "../js/hands.js";
import { defaultPrefs, loadPrefs, prefsHTML, savePref } from "../js/prefs.js";
import { initialState, reduce } from "../js/state.js";
import { cardHTML } from "../js/ui/cards.js";
import { feltHTML } from "../js/ui/table.js";

test("hand strength: partial hands name only pairs, trips, quads or a high card", () => {
  assert.equal(liveHandName("holdem", ["Js", "Jd"], [], []), "pair of jacks");
  assert.equal(liveHandName("holdem", ["As", "Kd"], [], []), "high card, ace");
  assert.equal(liveHandName("stud7", [null, null], ["9s", "9d", "Ks", "Kd"], []), "two pair, kings and nines");
  assert.equal(liveHandName("stud5", [null], ["6s", "6d", "6h"], []), "three of a kind, sixes");
  assert.equal(liveHandName("stud7", ["2c", "2d"], ["2h", "2s"], []), "four of a kind, twos");
  assert.equal(liveHandName("holdem", [null, null], [], ["As", "Ks", "Qs"]), null); // none of mine known
  assert.equal(liveHandName("caribbean", [], [], []), null);
});

test("hand strength: the best five of the cards, with the server's words", () => {
  assert.equal(liveHandName("holdem", ["As", "Kd"], [], ["Qh", "Jc", "Ts"]), "straight, ace high");
  assert.equal(liveHandName("holdem", ["As", "5d"], [], ["2h", "3c", "4s"]), "straight, five high");
  assert.equal(liveHandName("holdem", ["Ah", "Kh"], [], ["Qh", "Jh", "Th", "2c", "2d"]), "royal flush");
  assert.equal(liveHandName("holdem", ["9h", "Kh"], [], ["Qh", "Jh", "Th", "2c", "2d"]), "straight flush, king high");
  assert.equal(liveHandName("holdem", ["Ah", "3h"], [], ["Qh", "Jh", "7h", "2c", "2d"]), "flush, ace high");
  assert.equal(liveHandName("stud7", ["Ah", "Ad"], ["As", "Kd", "Kc"], []), "full house, aces full of kings");
  assert.equal(liveHandName("draw", ["6h", "6d", "6s", "2c", "2d"], [], []), "full house, sixes full of twos");
  assert.equal(liveHandName("caribbean", ["7h", "7d", "Qs", "Qc", "2d"], [], []), "two pair, queens and sevens");
  assert.equal(liveHandName("stud7", ["9c", "4d", "Jh"], ["2s", "7c", "Kd", "3h"], []), "high card, king");
});

test("hand strength: Manila plays exactly two hole cards with three of the board (MAN-03, MAN3-03)", () => {
  // four queens on the board: Manila's hand is the two aces with three queens, not quads
  assert.equal(liveHandName("manila", ["Ah", "Ad"], [], ["Qh", "Qd", "Qs", "Qc", "8d"]), "full house, queens full of aces");
  assert.equal(liveHandName("holdem", ["Ah", "Ad"], [], ["Qh", "Qd", "Qs", "Qc", "8d"]), "four of a kind, queens");
  // one heart in the hand: no flush with four hearts on the board
  assert.equal(liveHandName("manila", ["Ah", "Kc"], [], ["Qh", "Jh", "9h", "8h", "7c"]), "high card, ace");
  // before three board cards: the two hole cards with what the board has
  assert.equal(liveHandName("manila", ["Ah", "Ad"], [], ["Qh"]), "pair of aces");
  // the short deck's ace-low straight (MAN-04) and Three Card Manila's two of three
  assert.equal(liveHandName("manila", ["As", "8d"], [], ["7h", "9c", "Th"]), "straight, ten high");
  assert.equal(liveHandName("manila3", ["As", "6d", "Kc"], [], ["7h", "8c", "9h"]), "straight, nine high");
  assert.equal(liveHandName("manila3", ["As", "Ad", "Ah"], [], ["6h", "7c"]), "pair of aces");
});

test("hand strength: a short deck's flush beats its full house (MAN3-04)", () => {
  // Kh Ks with the board's three queens make a full house; Kh 7h with its three hearts a flush
  const hole = ["Kh", "Ks", "7h"];
  const board = ["Qh", "Qd", "Qc", "8h", "9h"];
  assert.equal(liveHandName("manila3", hole, [], board), "flush, king high");
  assert.equal(liveHandName("stud7", hole, [], board), "full house, queens full of kings");
  assert.equal(liveHandName("manila3", hole, [], board.slice(0, 3)), "full house, queens full of kings");
});

test("scores and names of five cards", () => {
  assert.deepEqual(scoreCards(["As", "Ks", "Qs", "Js", "Ts"]), [8, 14]);
  assert.deepEqual(scoreCards(["7s", "8d", "9c", "Th", "As"], 7), [4, 10]);
  assert.deepEqual(scoreCards(["7s", "8d", "9c", "Th", "As"], 2), [0, 14, 10, 9, 8, 7]);
  assert.equal(scoreName([3, 12, 12, 12]), "three of a kind, queens");
  assert.equal(scoreName([]), "");
});

function store() {
  const data = {};
  return { getItem: (k) => (k in data ? data[k] : null), setItem: (k, v) => { data[k] = String(v); }, data };
}

test("display preferences: off by default, saved per browser, only known keys as booleans", () => {
  assert.deepEqual(defaultPrefs(), { handStrength: false, fourColor: false });
  const s = store();
  assert.deepEqual(loadPrefs(s), defaultPrefs());
  const on = savePref(loadPrefs(s), "fourColor", true, s);
  assert.equal(on.fourColor, true);
  assert.deepEqual(loadPrefs(s), { handStrength: false, fourColor: true });
  s.setItem("poker.prefs", JSON.stringify({ handStrength: "yes", evil: true, fourColor: true }));
  assert.deepEqual(loadPrefs(s), { handStrength: false, fourColor: true });
  s.setItem("poker.prefs", "{not json");
  assert.deepEqual(loadPrefs(s), defaultPrefs());
  assert.deepEqual(loadPrefs(null), defaultPrefs());
  assert.deepEqual(savePref(defaultPrefs(), "unknown", true, s), defaultPrefs());
  const html = prefsHTML({ handStrength: true, fourColor: false });
  assert.match(html, /data-pref="handStrength" checked/);
  assert.match(html, /data-pref="fourColor">/);
});

const T = "t1";
function snap(seats, extra = {}) {
  return { type: "snapshot", table: T, seq: 3, variant: "stud7", structure: "fixed_limit",
    stakes: { ante: 10, bring_in: 25, small_bet: 50, big_bet: 100 }, name: "Stud", board: [],
    pots: [], button: null, turn: null, hand: "t1.4", you: 0, seats, ...extra };
}
function seat(i, name, extra = {}) {
  return { seat: i, name, stack: 5000, bet: 0, state: "active", cards: [], up: [], ...extra };
}
function run(start, events) {
  let s = reduce({ ...initialState(), opening: T }, start);
  let seq = s.table.seq;
  for (const e of events) s = reduce(s, { table: T, seq: ++seq, ...e });
  return s;
}

test("a hand mucked unseen says 'mucked' where a shown hand's name goes; a shown one its name", () => {
  const s = run(snap([seat(0, "Ann", { cards: ["As", "Ad"], up: ["Ah"] }), seat(1, "Bob", { cards: [null, null], up: ["2c"] })]), [
    { type: "showdown", seat: 0, cards: ["As", "Ad", "Ah"], hand: "t1.4", value: "three of a kind, aces", best: [] },
    { type: "mucked", seat: 1 },
  ]);
  const html = feltHTML(s.table, {});
  assert.match(html, /data-seat="1"[^]*class="hand-name mucked"[^>]*>mucked</);
  assert.match(html, /three of a kind, aces/);
  assert.equal((html.match(/hand-name mucked/g) || []).length, 1);
});

test("'I'm back': sat_in clears 'Sitting out' at once, whatever the snapshot said", () => {
  let s = run(snap([seat(0, "Ann", { state: "sitting_out" }), seat(1, "Bob")]), []);
  assert.match(feltHTML(s.table, {}), /Sitting out/);
  s = reduce(s, { type: "sat_in", table: T, seq: 10, seat: 0 });
  assert.equal(s.table.seats[0].sittingOut, false);
  assert.doesNotMatch(feltHTML(s.table, {}), /Sitting out/);
  s = reduce(s, { type: "sat_out", table: T, seq: 11, seat: 0 });
  assert.match(feltHTML(s.table, {}), /Sitting out/);
});

test("chips added during a hand show as '+N next hand' until the rebuy is applied", () => {
  let s = run(snap([seat(0, "Ann"), seat(1, "Bob")]), []);
  s = reduce(s, { type: "acted", table: T, seq: 18, seat: 0, action: "bet", amount: 50, stack: 4950 });
  s = reduce(s, { type: "seated", table: T, seq: 19, seat: 0, name: "Ann", stack: 5000, topup: 2000 });
  assert.equal(s.table.seats[0].stack, 4950); // the stack in play is the page's own count
  assert.match(feltHTML(s.table, {}), /\+2,000 next hand/);
  assert.match(s.table.log.join("\n"), /Ann adds 2,000 for the next hand/);
  s = reduce(s, { type: "seated", table: T, seq: 20, seat: 0, name: "Ann", stack: 7000 });
  assert.equal(s.table.seats[0].stack, 7000);
  assert.doesNotMatch(feltHTML(s.table, {}), /next hand/);
});

test("my hand's strength shows under my own cards only when asked, never for another seat", () => {
  const s = run(snap([seat(0, "Ann", { cards: ["Js", "Jd"], up: ["4c"] }), seat(1, "Bob", { cards: [null, null], up: ["Jh"] })]), []);
  assert.doesNotMatch(feltHTML(s.table, {}), /data-strength/);
  const html = feltHTML(s.table, { handStrength: true });
  assert.equal((html.match(/data-strength/g) || []).length, 1);
  assert.match(html, /class="hand-name mine" data-strength>pair of jacks</);
  const watching = { ...s.table, you: null };
  assert.doesNotMatch(feltHTML(watching, { handStrength: true }), /data-strength/);
});

test("overlapping cards: the row says how many; a ten's index is marked for its narrow corner", () => {
  const s = run(snap([seat(0, "Ann", { cards: ["Ts", "2d", "3c"], up: ["4c", "5d", "6h", "7s"] }), seat(1, "Bob")]), []);
  assert.match(feltHTML(s.table, {}), /class="cards many n7"/);
  assert.match(cardHTML("Th"), /class="rank ten">10</);
  assert.match(cardHTML("9h"), /class="rank">9</);
});
