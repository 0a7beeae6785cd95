// Unit tests of issue 24's client side: a disconnected seat (presence, the snapshot's flag),
// the table's own hand numbers, and a seat request whose seat was taken meanwhile
// (run: node --test client_web/tests/).
import assert from "node:assert/strict";
import { test } from "node:test";

import { initialState, reduce } from "../js/state.js";
import { localHistoryHTML, serverHistoryHTML } from "../js/ui/history.js";
import { requestsHTML } from "../js/ui/host.js";
import { feltHTML } from "../js/ui/table.js";

function snapshot(extra = {}) {
  return { type: "snapshot", table: "t1", seq: 1, variant: "holdem", structure: "no_limit",
    stakes: { blinds: [50, 100] }, settings: {}, button: null, hand: null,
    seats: [{ seat: 0, name: "Ann", stack: 5000 }, { seat: 1, name: "Bob", stack: 5000, disconnected: true }, null],
    ...extra };
}

function opened(extra) {
  let s = reduce(initialState(), { type: "local:open_table", table: "t1" });
  s = reduce(s, snapshot(extra));
  return s;
}

test("a dropped connection shows on the seat at once, and goes when it comes back", () => {
  let s = opened({ you: 0 });
  assert.equal(s.table.seats[1].disconnected, true); // from the snapshot
  assert.equal(s.table.seats[0].disconnected, false);
  let felt = feltHTML(s.table, { now: 0 });
  assert.match(felt, /Seat 2: Bob, disconnected/);
  assert.match(felt, /class="badge offline"[^>]*>disconnected</);
  // on its turn, the clock says no bank (the table waits only the action clock)
  s = reduce(s, { type: "hand_started", table: "t1", seq: 2, hand: "t1.1", button: 0, commitment: "ab", number: 1 });
  s = reduce(s, { type: "turn", table: "t1", seq: 3, seat: 1, deadline: 1e12, time_bank: 60 });
  assert.match(feltHTML(s.table, { now: 1e12 - 5 }), /5s<\/span><span class="bank"><\/span>/);
  s = reduce(s, { type: "presence", table: "t1", seq: 4, seat: 1, online: true });
  assert.match(feltHTML(s.table, { now: 1e12 - 5 }), /\+60s bank/);
  assert.equal(s.table.seats[1].disconnected, false);
  assert.doesNotMatch(feltHTML(s.table, { now: 0 }), /badge offline/);
  s = reduce(s, { type: "presence", table: "t1", seq: 5, seat: 0, online: false });
  felt = feltHTML(s.table, { now: 0 });
  assert.match(felt, /Seat 1: Ann \(you\), disconnected/);
  assert.ok(s.table.log.includes("Ann disconnected"));
});

test("hands are numbered per table: #1 first, whatever the hand id", () => {
  let s = opened({ you: 0 });
  s = reduce(s, { type: "hand_started", table: "t1", seq: 2, hand: "t1.57", button: 0, commitment: "ab", number: 1 });
  assert.equal(s.table.handNumber, 1);
  assert.equal(s.table.log[0], "Hand #1 starts");
  s = reduce(s, { type: "hand_ended", table: "t1", seq: 3, hand: "t1.57", stacks: { 0: 5000 }, reveal: [] });
  assert.match(localHistoryHTML(s.table.history), /Hold&#39;em #1</);
  assert.match(serverHistoryHTML([{ hand: "t1.57", number: 1, variant: "holdem", net: 0 }]), /Hold&#39;em #1</);
  // an older server (no number): the id's tail, as before
  assert.match(serverHistoryHTML([{ hand: "t1.57", variant: "holdem", net: 0 }]), /Hold&#39;em #57</);
  // a snapshot carries the current hand's number
  s = reduce(s, snapshot({ you: 0, hand: "t1.58", number: 2, seq: 9 }));
  assert.equal(s.table.handNumber, 2);
});

test("a request whose seat was taken says where Approve seats them, or that none is free", () => {
  const host = { seat: 0, name: "Ann", private: true, paused: false, approve_seats: true, rebuys: true,
    next: null, you: true, code: "c", requests: [
      { player: "p2", name: "Bob", seat: 2, buy_in: 4000, offer: 2 },
      { player: "p3", name: "Carol", seat: 2, buy_in: 4000, offer: 3, taken: true },
      { player: "p4", name: "Dan", seat: 1, buy_in: 4000, offer: null, taken: true }] };
  const s = opened({ you: 0, host });
  const html = requestsHTML(s.table);
  assert.match(html, /Bob<\/strong> asks to sit at seat 3 with 4,000\.<\/p>/);
  assert.match(html, /Carol<\/strong> asks to sit at seat 3 with 4,000\. <span class="request-note">Seat 3 was taken meanwhile: Approve seats Carol at seat 4\./);
  assert.match(html, /Seat 2 was taken meanwhile and no seat is free now\./);
  assert.match(html, /data-approve="p4" disabled/);
  assert.doesNotMatch(html, /data-approve="p3" disabled/);
});
