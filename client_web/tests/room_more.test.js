// The replayer's frames, several tables in the state ("my tables"), sounds and the mute
// switch, the pacing of the open table, the tab's flashing.
import assert from "node:assert/strict";
import test from "node:test";

import { createPacer } from "../js/pacing.js";
import { replayFrames, stepTo, streetName } from "../js/replay.js";
import { actionSound, Sound } from "../js/sound.js";
import { initialState, myTables, myTurn, reduce } from "../js/state.js";
import { stripHTML } from "../js/ui/strip.js";

const RECORD = {
  hand: "t1.7", table: "t1", variant: "holdem", structure: "no_limit", stakes: { blinds: [50, 100] },
  num_seats: 6, button: 3, viewer: 0,
  players: { 0: { name: "Alice", stack: 5000 }, 3: { name: "Bob", stack: 5000 } },
  events: [
    { e: "HandStarted", hand: "t1.7", button: 3, seats: [0, 3] },
    { e: "Posted", seat: 0, kind: "blind", amount: 50, stack: 4950 },
    { e: "Posted", seat: 3, kind: "blind", amount: 100, stack: 4900 },
    { e: "Dealt", seat: 0, cards: ["4s", "9d"], up: [false, false] },
    { e: "Dealt", seat: 3, cards: [null, null], up: [false, false] },
    { e: "Acted", seat: 0, action: "call", amount: 100, stack: 4900 },
    { e: "Acted", seat: 3, action: "check", amount: 100, stack: 4900 },
    { e: "StreetEnded", street: 0, pot: 200, pots: [[200, [0, 3]]] },
    { e: "BoardDealt", cards: ["7c", "5d", "3h"], board: ["7c", "5d", "3h"] },
    { e: "Acted", seat: 0, action: "bet", amount: 200, stack: 4700 },
    { e: "Acted", seat: 3, action: "fold", amount: 0, stack: 4900 },
    { e: "BetReturned", seat: 0, amount: 200, stack: 4900 },
    { e: "StreetEnded", street: 1, pot: 200, pots: [[200, [0]]] },
    { e: "PotAwarded", pot: 0, amount: 200, winners: { 0: 200 }, odd_chip: null },
    { e: "HandEnded", hand: "t1.7", stacks: { 0: 5100, 3: 4900 } },
  ],
};

test("the replayer: a frame per step, one for the deal, streets named, the result last", () => {
  const frames = replayFrames(RECORD);
  assert.equal(frames[0].table.seats[0].cards.length, 0);
  const labels = frames.map((f) => f.label);
  assert.deepEqual(labels.slice(1, 6), ["Alice posts blind 50", "Bob posts blind 100",
    "The cards are dealt", "Alice calls 100", "Bob checks"]);
  assert.deepEqual(frames[3].table.seats[0].cards, ["4s", "9d"]);
  assert.deepEqual(frames[3].table.seats[3].cards, [null, null]); // never more than the record
  const flop = frames.findIndex((f) => f.streetLabel === "Flop");
  assert.deepEqual(frames[flop].table.board, ["7c", "5d", "3h"]);
  const end = frames[frames.length - 1];
  assert.equal(end.streetLabel, "Result");
  assert.match(end.label, /Alice wins 200/);
  assert.equal(end.table.seats[0].stack, 5100);
  assert.equal(stepTo(frames, 0, "next_street"), flop);
  assert.equal(stepTo(frames, flop + 1, "prev_street"), flop);
  assert.equal(stepTo(frames, flop, "prev_street"), 0);
  assert.equal(stepTo(frames, 0, "prev"), 0);
  assert.equal(stepTo(frames, 0, "last"), frames.length - 1);
  assert.equal(streetName("stud7", 0), "Third street");
});

const snap = (table, you, turn) => ({ type: "snapshot", table, seq: 1, variant: "holdem",
  seats: [{ seat: 0, name: "Alice", stack: 1000 }, { seat: 1, name: "Bob", stack: 1000 }],
  hand: `${table}.1`, you, turns: turn ? [turn] : [] });

test("several tables: the one left stays followed in the background, with its turns", () => {
  let s = reduce(initialState(), { type: "local:open_table", table: "a" });
  s = reduce(s, snap("a", 0));
  s = reduce(s, { type: "local:open_table", table: "b", keep: true });
  s = reduce(s, snap("b", null));
  assert.equal(s.table.id, "b");
  assert.ok(s.background.a);
  // a turn of mine at the table in the background
  s = reduce(s, { type: "turn", table: "a", seq: 2, seat: 0, deadline: 1, options: { fold: true } });
  assert.ok(myTurn(s.background.a));
  const mine = myTables(s);
  assert.deepEqual(mine.map((t) => [t.id, t.open, t.turn, t.seated]),
    [["a", false, true, true], ["b", true, false, false]]);
  const html = stripHTML(mine.map((t) => ({ ...t, watch: t.id === "b" })));
  assert.match(html, /your turn/);
  assert.match(html, /href="#\/table\/b\/watch"/);
  assert.match(html, /Stop watching b/);
  // back to a: its state (and the turn) come back at once
  s = reduce(s, { type: "local:open_table", table: "a", keep: true });
  assert.equal(s.table.id, "a");
  assert.ok(myTurn(s.table));
  s = reduce(s, { type: "local:forget_table", table: "b" });
  assert.deepEqual(Object.keys(s.background), []);
  // a followed table's snapshot after a reload fills its placeholder
  s = reduce(s, { type: "local:follow", table: "c", name: "c" });
  s = reduce(s, snap("c", 1, { seat: 1, deadline: 1, options: { check: true } }));
  assert.ok(myTurn(s.background.c));
});

test("sounds: each action's sound, a mute remembered by the browser's storage", () => {
  assert.equal(actionSound("check"), "check");
  assert.equal(actionSound("raise"), "bet");
  assert.equal(actionSound("fold"), null);
  const mem = new Map();
  const storage = { getItem: (k) => mem.get(k) ?? null, setItem: (k, v) => mem.set(k, v) };
  const sound = new Sound(storage);
  assert.equal(sound.muted, false);
  sound.setMuted(true);
  assert.equal(new Sound(storage).muted, true);
  assert.equal(sound.play("turn"), false); // muted (and no WebAudio under node)
  assert.deepEqual(sound.played, [{ name: "turn", heard: false }]);
});

test("pacing: the open table's result is held; another table's events pass at once", async () => {
  let clock = 1000;
  const seen = [];
  const receive = createPacer((m) => seen.push(m.type + ":" + m.table), () => "a", () => clock);
  receive({ type: "hand_ended", table: "a" });
  receive({ type: "hand_started", table: "a" });
  receive({ type: "turn", table: "b" });
  assert.deepEqual(seen, ["hand_ended:a", "turn:b"]);
  clock += 4000; // the result was up long enough: the next hand comes at the next wake-up
  await new Promise((resolve) => setTimeout(resolve, 4100));
  assert.deepEqual(seen, ["hand_ended:a", "turn:b", "hand_started:a"]);
});
