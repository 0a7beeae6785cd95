// Unit tests of the pure reducer js/state.js: a snapshot, then events, give the table shown.
import assert from "node:assert/strict";
import { test } from "node:test";

import { initialState, maxBet, potTotal, reduce, shownPots } from "../js/state.js";

const T = "t1";

function snapshot(extra = {}) {
  return {
    type: "snapshot", table: T, seq: 3, variant: "holdem", structure: "no_limit",
    stakes: { blinds: [50, 100] }, name: "Main", board: [], pots: [], button: null, turn: null,
    hand: null, you: 0,
    seats: [
      { seat: 0, name: "Alice", stack: 5000, bet: 0, state: "waiting", cards: [], up: [] },
      { seat: 1, name: "Bob", stack: 5000, bet: 0, state: "waiting", cards: [], up: [] },
      null,
    ],
    ...extra,
  };
}

function run(events, state = null) {
  let s = state || reduce({ ...initialState(), opening: T }, snapshot());
  let seq = s.table.seq;
  for (const e of events) {
    seq += 1;
    s = reduce(s, { table: T, seq, ...e });
  }
  return s;
}

const HAND = [
  { type: "hand_started", hand: "t1.1", button: 1, commitment: "x" },
  { type: "posted", seat: 0, kind: "blind", amount: 50 },
  { type: "posted", seat: 1, kind: "blind", amount: 100 },
  { type: "dealt", seat: 0, cards: ["As", "Ad"], up: [] },
  { type: "dealt", seat: 1, cards: [null, null], up: [] },
  { type: "turn", seat: 0, deadline: 1e10, options: { fold: true, call: 100, to_call: 50 } },
  { type: "acted", seat: 0, action: "call", amount: 100, stack: 4900 },
  { type: "acted", seat: 1, action: "check", amount: 0, stack: 4900 },
  { type: "board", cards: ["Ah", "7s", "8d"] },
  { type: "acted", seat: 0, action: "bet", amount: 200, stack: 4700 },
];

test("a snapshot opens the table it was waiting for, and no other", () => {
  const s0 = { ...initialState(), opening: T };
  assert.equal(reduce(s0, { ...snapshot(), table: "other" }), s0);
  const s = reduce(s0, snapshot());
  assert.equal(s.table.id, T);
  assert.equal(s.table.seats[1].name, "Bob");
  assert.equal(s.table.seats[2], null);
  assert.equal(s0.table, null, "the previous state is not mutated");
});

test("bets, the pot and stacks follow the events; bets are gathered at a new street", () => {
  const s = run(HAND.slice(0, 8));
  const t = s.table;
  assert.deepEqual(t.seats[0].cards, ["As", "Ad"]);
  assert.deepEqual(t.seats[1].cards, [null, null]);
  assert.equal(t.seats[0].bet, 100);
  assert.equal(potTotal(t), 200);
  assert.equal(t.turn, null, "the turn ends when its seat acted");
  const s2 = run(HAND.slice(8), s);
  assert.equal(s2.table.collected, 200);
  assert.equal(s2.table.seats[1].bet, 0);
  assert.equal(s2.table.seats[0].bet, 200);
  assert.equal(maxBet(s2.table), 200);
  assert.equal(potTotal(s2.table), 400);
  assert.deepEqual(s2.table.board, ["Ah", "7s", "8d"]);
});

test("showdown, awards with the hand name and the odd chip, hand end into the history", () => {
  const s = run([
    ...HAND,
    { type: "acted", seat: 1, action: "call", amount: 200, stack: 4700 },
    { type: "showdown", seat: 0, cards: ["As", "Ad"], hand: "t1.1", value: "three of a kind, aces" },
    { type: "mucked", seat: 1 },
    { type: "pot_awarded", pot: 0, amount: 600, winners: { 0: 600 }, odd_chip: null },
    { type: "hand_ended", hand: "t1.1", stacks: { 0: 5300, 1: 4700 }, reveal: [] },
  ]);
  const t = s.table;
  assert.equal(t.seats[0].stack, 5300);
  assert.equal(t.seats[1].stack, 4700);
  assert.deepEqual(t.announcements, ["Alice wins 600 with three of a kind, aces"]);
  assert.equal(potTotal(t), 0);
  assert.equal(t.history.length, 1);
  assert.equal(t.history[0].hand, "t1.1");
  assert.ok(t.history[0].log.includes("Alice bets 200"));
  const split = run([
    { type: "hand_started", hand: "t1.2", button: 0, commitment: "x" },
    { type: "pot_awarded", pot: 0, amount: 301, winners: { 0: 151, 1: 150 }, odd_chip: 0 },
  ]);
  assert.equal(split.table.oddChip, 0);
  assert.deepEqual(split.table.announcements, ["The pot is split: Alice 151 (odd chip), Bob 150"]);
});

test("an event already applied (a resume may repeat it) changes nothing", () => {
  const s = run(HAND.slice(0, 3));
  const again = reduce(s, { table: T, seq: s.table.seq, type: "posted", seat: 0, kind: "blind", amount: 50 });
  assert.equal(again, s);
});

test("the draw replaces exactly the cards this client discarded", () => {
  let s = run([
    { type: "hand_started", hand: "t1.1", button: 1, commitment: "x" },
    { type: "dealt", seat: 0, cards: ["Ah", "Ad", "Kc", "7s", "2d"], up: [] },
    { type: "dealt", seat: 1, cards: [null, null, null, null, null], up: [] },
  ]);
  s = reduce(s, { type: "local:discard", table: T, cards: ["7s", "2d"] });
  s = reduce(s, { type: "drew", table: T, seq: s.table.seq + 1, seat: 0, count: 2, cards: ["Ac", "Kd"] });
  s = reduce(s, { type: "drew", table: T, seq: s.table.seq + 1, seat: 1, count: 1 });
  assert.deepEqual(s.table.seats[0].cards, ["Ah", "Ad", "Kc", "Ac", "Kd"]);
  assert.deepEqual(s.table.seats[1].cards, [null, null, null, null, null]);
  assert.equal(s.table.seats[1].action, "draws 1");
});

test("stud up cards are kept apart from the down cards", () => {
  const s = run([
    { type: "hand_started", hand: "t1.1", button: null, commitment: "x" },
    { type: "posted", seat: 0, kind: "ante", amount: 10 },
    { type: "posted", seat: 1, kind: "ante", amount: 10 },
    { type: "dealt", seat: 1, cards: [null, null], up: ["9s"] },
  ]);
  assert.deepEqual(s.table.seats[1].up, ["9s"]);
  assert.equal(s.table.collected, 20, "antes go to the middle");
});

test("Caribbean: the dealer's cards, the settlement and a jackpot hand", () => {
  let s = reduce({ ...initialState(), opening: T }, snapshot({ variant: "caribbean", structure: null }));
  s = run([
    { type: "hand_started", hand: "t1.1", button: null, commitment: "x" },
    { type: "posted", seat: 0, kind: "ante", amount: 100 },
    { type: "acted", seat: 0, action: "ante", amount: 100, stack: 4800, jackpot: true },
    { type: "dealer", cards: [null, null, null, null, "3d"] },
    { type: "acted", seat: 0, action: "play", amount: 200, stack: 4600 },
    { type: "dealer", cards: ["As", "Kd", "Qs", "7c", "3d"], hand: "high card, ace", qualifies: true },
    { type: "settled", results: { 0: { ante: 100, play: 1000, jackpot: 0, hand: "flush, jack high", stack: 6100 } } },
  ], s);
  const t = s.table;
  assert.equal(t.seats[0].jackpot, 100);
  assert.equal(t.seats[0].stack, 6100);
  assert.equal(t.dealer.qualifies, true);
  assert.ok(t.announcements[0].startsWith("Alice: ante +100, play +1,000, jackpot paid to the balance"));
  assert.equal(s.jackpotWin.amount, null);
  assert.equal(s.jackpotWin.hand, "flush, jack high");
});

test("the jackpot meter comes from `jackpot` messages and from the lobby list", () => {
  let s = reduce(initialState(), { type: "jackpot", pool: 1234 });
  assert.equal(s.jackpot.pool, 1234);
  s = reduce(s, { type: "local:tables", tables: [{ table: "t2", variant: "caribbean", jackpot: { pool: 999 } }] });
  assert.equal(s.jackpot.pool, 999);
});

test("chat lines name the seat or the spectator", () => {
  const s = run([
    { type: "chat", seat: 1, text: "gl" },
    { type: "chat", name: "Carol", text: "<b>hi</b>" },
  ]);
  assert.deepEqual(s.table.chat.map((c) => [c.name, c.text, c.seated]),
    [["Bob", "gl", true], ["Carol", "<b>hi</b>", false]]);
});

test("pots: the snapshot's breakdown is kept, each pots event replaces it and gathers the bets", () => {
  const three = {
    seats: [
      { seat: 0, name: "Alice", stack: 0, bet: 0, state: "all_in", cards: [], up: [] },
      { seat: 1, name: "Bob", stack: 3000, bet: 200, state: "active", cards: [], up: [] },
      { seat: 2, name: "Carol", stack: 3000, bet: 200, state: "active", cards: [], up: [] },
    ],
    hand: "t1.4",
    pots: [{ amount: 1500, eligible: [0, 1, 2] }, { amount: 400, eligible: [1, 2] }],
  };
  let s = reduce({ ...initialState(), opening: T }, snapshot(three));
  assert.deepEqual(s.table.pots.map((p) => [p.amount, p.eligible]),
    [[1500, [0, 1, 2]], [400, [1, 2]]]);
  assert.equal(s.table.collected, 1900); // the pots of the closed rounds
  assert.equal(potTotal(s.table), 2300); // plus this round's bets
  assert.deepEqual(shownPots(s.table).map((p) => [p.label, p.amount]),
    [["Main pot", 1500], ["Side pot 1", 400]]);

  s = run([
    { type: "acted", seat: 1, action: "raise", amount: 600, stack: 2600 },
    { type: "acted", seat: 2, action: "call", amount: 600, stack: 2600 },
    { type: "pots", pots: [{ amount: 1500, eligible: [0, 1, 2] }, { amount: 1600, eligible: [1, 2] }] },
  ], s);
  const t = s.table;
  assert.deepEqual(t.seats.map((x) => x.bet), [0, 0, 0]);
  assert.equal(t.collected, 3100);
  assert.equal(potTotal(t), 3100);
  assert.deepEqual(shownPots(t).map((p) => [p.index, p.amount, p.eligible]),
    [[0, 1500, [0, 1, 2]], [1, 1600, [1, 2]]]);

  s = run([{ type: "pot_awarded", pot: 1, amount: 1600, winners: { 2: 1600 }, odd_chip: null }], s);
  assert.deepEqual(shownPots(s.table).map((p) => p.label), ["Main pot"]);
  s = run([{ type: "hand_ended", hand: "t1.4", stacks: { 0: 1500, 1: 2600, 2: 4200 }, reveal: [] }], s);
  assert.deepEqual(s.table.pots, []);
  assert.deepEqual(shownPots(s.table), []);
  s = run([{ type: "hand_started", hand: "t1.5", button: 0, commitment: "x" }], s);
  assert.deepEqual(s.table.pots, []);
});

test("a newcomer waiting for the big blind is labelled until they are dealt in (GEN-05)", async () => {
  const { feltHTML } = await import("../js/ui/table.js");
  let s = run([{ type: "seated", seat: 2, name: "Cat", stack: 4000, wait_for_bb: true }]);
  assert.equal(s.table.seats[2].waitsForBigBlind, true);
  assert.match(feltHTML(s.table, {}), /Waits for the big blind/);
  s = run([...HAND.slice(0, 3), { type: "dealt", seat: 2, cards: [null, null], up: [] }], s);
  assert.equal(s.table.seats[2].waitsForBigBlind, false);
  assert.doesNotMatch(feltHTML(s.table, {}), /Waits for the big blind/);
  const again = reduce({ ...initialState(), opening: T }, snapshot({ seats: [
    { seat: 0, name: "Alice", stack: 5000, bet: 0, state: "waiting", cards: [], up: [],
      wait_for_bb: true }, null, null] }));
  assert.equal(again.table.seats[0].waitsForBigBlind, true);
});

test("a redraw does not replay a deal: only the latest event's cards carry deal-in", async () => {
  const { feltHTML } = await import("../js/ui/table.js");
  let s = run(HAND.slice(0, 4));
  assert.equal((feltHTML(s.table, {}).match(/deal-in/g) || []).length, 2); // seat 0's two cards
  s = run([{ type: "chat", seat: 1, text: "gl" }], s);
  assert.doesNotMatch(feltHTML(s.table, {}), /deal-in/);
});

test("BLIND-04: the over blind's question ends with its answer: posted (a bet) or declined (logged, nothing moves)", () => {
  const three = snapshot({ variant: "draw", you: 2, seats: [
    { seat: 0, name: "Alice", stack: 5000, bet: 0, state: "waiting", cards: [], up: [] },
    { seat: 1, name: "Bob", stack: 5000, bet: 0, state: "waiting", cards: [], up: [] },
    { seat: 2, name: "Carol", stack: 5000, bet: 0, state: "waiting", cards: [], up: [] }] });
  const start = reduce({ ...initialState(), opening: T }, three);
  const asked = [
    { type: "hand_started", hand: "t1.1", button: 2, commitment: "x" },
    { type: "posted", seat: 0, kind: "blind", amount: 50 },
    { type: "posted", seat: 1, kind: "blind", amount: 100 },
    { type: "turn", seat: 2, deadline: 1e10, options: { fold: false, check: false, over_blind: 200, decline: true, stack: 5000 } },
  ];
  let s = run([...asked, { type: "posted", seat: 2, kind: "over_blind", amount: 200 }], start);
  assert.equal(s.table.turn, null);
  assert.equal(s.table.seats[2].bet, 200);
  assert.equal(s.table.seats[2].stack, 4800);
  s = run([...asked, { type: "acted", seat: 2, action: "decline", amount: 0, stack: 5000, timeout: true }], start);
  assert.equal(s.table.turn, null);
  assert.equal(s.table.seats[2].bet, 0);
  assert.equal(s.table.seats[2].stack, 5000);
  assert.ok(s.table.log.some((l) => /Carol declines the over blind \(no answer\)/.test(l.text || l)));
});
