// Unit tests of js/home.js and js/ui/host.js: invite links, the codes kept per table, the
// host state in the reducer, notices, the session ledger (run: node --test client_web/tests/).
import assert from "node:assert/strict";
import { test } from "node:test";

import {
  changeRequest, codeStore, csvFilename, homeCreateFields, homeFrom, homeLabel, inviteLink, isPrivateId,
  ledgerView, nextText,
  parseRoute, signed,
} from "../js/home.js";
import { initialState, reduce } from "../js/state.js";
import { homeNoteText, ledgerHTML, requestsHTML } from "../js/ui/host.js";
import { createRequest } from "../js/ui/lobby.js";

test("routes: the client's own links, with and without an invite code, and the protocol's form", () => {
  assert.deepEqual(parseRoute("#/"), { view: "lobby" });
  assert.deepEqual(parseRoute(""), { view: "lobby" });
  assert.deepEqual(parseRoute("#/table/t1"), { view: "table", id: "t1", watch: false, code: null });
  assert.deepEqual(parseRoute("#/table/t1/watch"), { view: "table", id: "t1", watch: true, code: null });
  assert.deepEqual(parseRoute("#/table/t%201?code=ab-_9"), { view: "table", id: "t 1", watch: false, code: "ab-_9" });
  assert.deepEqual(parseRoute("#/table/t1/watch?code=xyz"), { view: "table", id: "t1", watch: true, code: "xyz" });
  assert.deepEqual(parseRoute("#table=t7&code=K3y"), { view: "table", id: "t7", watch: false, code: "K3y" });
  assert.deepEqual(parseRoute("#table="), { view: "lobby" });
});

test("an invite link round-trips through the route", () => {
  const link = inviteLink("http://x:1/", "t 2", "a+b/c");
  assert.equal(link, "http://x:1/#/table/t%202?code=a%2Bb%2Fc");
  const route = parseRoute(link.slice(link.indexOf("#")));
  assert.equal(route.id, "t 2");
  assert.equal(route.code, "a+b/c");
  assert.equal(inviteLink("http://x/", "t1", null), "http://x/#/table/t1");
});

test("codes are kept per table, and storage failures are harmless", () => {
  const mem = new Map();
  const storage = { getItem: (k) => mem.get(k) ?? null, setItem: (k, v) => mem.set(k, v), removeItem: (k) => mem.delete(k) };
  const codes = codeStore(storage);
  assert.equal(codes.get("t1"), null);
  codes.set("t1", "abc");
  assert.equal(codes.get("t1"), "abc");
  codes.forget("t1");
  assert.equal(codes.get("t1"), null);
  const broken = codeStore({ getItem() { throw new Error("no"); }, setItem() { throw new Error("no"); },
    removeItem() { throw new Error("no"); } });
  assert.equal(broken.get("t1"), null);
  broken.set("t1", "x");
  broken.forget("t1");
});

const HOST = { seat: 0, name: "Ann", private: true, paused: false, approve_seats: true, rebuys: true, next: null };

function snapshot(extra = {}) {
  return { type: "snapshot", table: "t1", seq: 1, variant: "holdem", structure: "no_limit",
    stakes: { blinds: [50, 100] }, settings: { pause: 0.2 }, button: null, hand: null,
    seats: [{ seat: 0, name: "Ann", stack: 5000 }, null, null], ...extra };
}

function opened(extra) {
  let s = reduce(initialState(), { type: "local:open_table", table: "t1" });
  s = reduce(s, snapshot(extra));
  return s;
}

test("the host's snapshot: code and requests; seat_request adds, table_updated replaces", () => {
  let s = opened({ you: 0, host: { ...HOST, you: true, code: "c1", requests: [] } });
  assert.equal(s.table.host.you, true);
  assert.equal(s.table.host.code, "c1");
  s = reduce(s, { type: "seat_request", table: "t1", seq: 2, player: "p2", name: "Bob", seat: 1, buy_in: 4000 });
  s = reduce(s, { type: "seat_request", table: "t1", seq: 3, player: "p2", name: "Bob", seat: 2, buy_in: 4000 });
  assert.deepEqual(s.table.host.requests, [{ player: "p2", name: "Bob", seat: 2, buy_in: 4000 }]);
  assert.match(requestsHTML(s.table), /Bob<\/strong> asks to sit at seat 3 with 4,000/);
  assert.match(requestsHTML(s.table), /data-approve="p2"/);
  s = reduce(s, { type: "table_updated", table: "t1", seq: 4,
    host: { ...HOST, you: true, code: "c2", requests: [], paused: true } });
  assert.equal(s.table.host.paused, true);
  assert.equal(s.table.host.code, "c2");
  assert.equal(requestsHTML(s.table), "");
});

test("a pending change shows as next, and becomes the table's stakes once applied", () => {
  let s = opened({ host: HOST });
  const next = { stakes: { blinds: [100, 200] }, settings: { pause: 0.2, action_clock: 20 } };
  s = reduce(s, { type: "table_updated", table: "t1", seq: 2, host: { ...HOST, next } });
  assert.equal(nextText(s.table.host.next, s.table), "From the next hand: 100/200, action clock 20s");
  s = reduce(s, { type: "table_updated", table: "t1", seq: 3, host: HOST });
  assert.deepEqual(s.table.stakes, { blinds: [100, 200] });
  assert.equal(s.table.settings.action_clock, 20);
  assert.equal(nextText(null, s.table), "");
  assert.equal(homeLabel(s.table.host), "Home game \u00b7 hosted by Ann");
});

test("waiting, refused and removed players get plain words", () => {
  const plain = (a) => ({ seat_taken: "Someone just took that seat." })[a.code] || "?";
  let s = opened({ host: HOST });
  s = reduce(s, { type: "local:home_wait", table: "t1", seat: 1 });
  assert.equal(homeNoteText(s.table, plain), "Waiting for the host to let you in\u2026");
  s = reduce(s, { type: "seat_refused", table: "t1", seq: 2, player: "p2", seat: 1 });
  assert.equal(homeNoteText(s.table, plain), "The host did not seat you.");
  s = reduce(s, { type: "seat_refused", table: "t1", seq: 3, player: "p2", seat: 1, reason: "seat_taken" });
  assert.equal(homeNoteText(s.table, plain), "The host did not seat you: Someone just took that seat.");
  // seated, then taken off by the host (not asked): "removed"; a leave asked for is not
  let r = opened({ host: HOST, you: 1, seats: [{ seat: 0, name: "Ann", stack: 1 }, { seat: 1, name: "Bob", stack: 1 }] });
  r = reduce(r, { type: "left", table: "t1", seq: 2, seat: 1, name: "Bob" });
  assert.match(homeNoteText(r.table, plain), /The host removed you/);
  let q = opened({ host: HOST, you: 1, seats: [{ seat: 0, name: "Ann", stack: 1 }, { seat: 1, name: "Bob", stack: 1 }] });
  q = reduce(q, { type: "local:home_leave", table: "t1" });
  q = reduce(q, { type: "left", table: "t1", seq: 2, seat: 1, name: "Bob" });
  assert.equal(homeNoteText(q.table, plain), "");
});

test("notices are kept (the last few) and dismissed; the final ledger outlives the table", () => {
  let s = initialState();
  for (let i = 0; i < 7; i++) s = reduce(s, { type: "notice", text: `n${i}` });
  assert.equal(s.notices.length, 5);
  assert.equal(s.notices[4].text, "n6");
  s = reduce(s, { type: "local:dismiss_notice", id: s.notices[0].id });
  assert.equal(s.notices.length, 4);
  s = reduce(s, { type: "ledger", table: "t9", seq: 40, rows: [{ player: "a", name: "A", net: 0 }], text: "csv" });
  assert.equal(s.finalLedgers.t9.text, "csv");
  s = reduce(s, { type: "local:home_private", table: "t3" });
  assert.equal(s.privateTable, "t3");
});

const ROWS = [
  { player: "a", name: "Ann", buy_ins: 5000, rebuys: 0, cash_outs: 4850, at_table: 0, net: -150 },
  { player: "b", name: "Bob", buy_ins: 4000, rebuys: 1000, cash_outs: 5100, at_table: 0, net: 100 },
  { player: "(house)", name: "house (rake)", buy_ins: 0, rebuys: 0, cash_outs: 0, at_table: 0, net: 50 },
];

test("the ledger's totals: the net column sums to zero", () => {
  const view = ledgerView(ROWS);
  assert.equal(view.totals.net, 0);
  assert.equal(view.totals.buy_ins, 9000);
  assert.equal(view.balanced, true);
  assert.equal(view.rows[2].house, true);
  assert.equal(ledgerView(null).rows.length, 0);
  const html = ledgerHTML(ROWS);
  assert.match(html, /<th scope="row">Ann<\/th><td>5,000<\/td>/);
  assert.match(html, /class="net down">\u2212150/);
  assert.match(html, /class="net up">\+100/);
  assert.match(ledgerHTML([{ player: "x", name: "<b>" }]), /&lt;b&gt;/);
  assert.equal(signed(0), "0");
});

test("the CSV's file name is safe", () => {
  assert.equal(csvFilename("Friday's Game!", new Date("2024-05-03T20:00:00Z")), "home-game-friday-s-game-2024-05-03.csv");
  assert.equal(csvFilename("", new Date("2024-05-03T20:00:00Z")), "home-game-table-2024-05-03.csv");
});

test("the host's change asks only for what differs", () => {
  const t = { variant: "holdem", stakes: { blinds: [50, 100] }, settings: { pause: 0.2 },
    host: { rebuys: true, approveSeats: true } };
  assert.equal(changeRequest(t, { sb: "50", bb: "100", pause: "0.2", rebuys: true, approve_seats: true }), null);
  assert.deepEqual(changeRequest(t, { sb: "100", bb: "200", action_clock: "", rebuys: false, approve_seats: true }),
    { stakes: { blinds: [100, 200] }, settings: { rebuys: false } });
  assert.deepEqual(changeRequest(t, { action_clock: "20", starting_stack: "3000" }),
    { settings: { action_clock: 20, starting_stack: 3000 } });
  const stud = { variant: "stud7", stakes: { ante: 10, bring_in: 25, small_bet: 50, big_bet: 100 }, settings: {} };
  assert.deepEqual(changeRequest(stud, { ante: "20" }), { stakes: { ante: 20, bring_in: 25, small_bet: 50, big_bet: 100 } });
});

test("the create form: a private game with its settings", () => {
  assert.deepEqual(homeCreateFields({}), {});
  assert.deepEqual(homeCreateFields({ private: "on", approve_seats: "on", starting_stack: "", action_clock: "" }),
    { private: true, settings: { approve_seats: true, rebuys: false } });
  const req = createRequest({ variant: "holdem", structure: "no_limit", sb: "50", bb: "100", seats: "6",
    private: "on", rebuys: "on", starting_stack: "2000", action_clock: "45" });
  assert.deepEqual(req, { variant: "holdem", structure: "no_limit", stakes: { blinds: [50, 100] }, seats: 6,
    private: true, settings: { approve_seats: false, rebuys: true, starting_stack: 2000, action_clock: 45 } });
  assert.equal(createRequest({ variant: "holdem", structure: "no_limit", sb: "1", bb: "2", seats: "2" }).private, undefined);
});

test("a host transfer: the new host is told, the old one names them, everyone sees the badge", async () => {
  const { feltHTML } = await import("../js/ui/table.js");
  const seats = [{ seat: 0, name: "Ann", stack: 5000 }, { seat: 1, name: "Bob", stack: 5000 }, null];
  for (const you of [0, 1, null]) {
    const mine = (seat) => (you === seat ? { you: true, code: "c", requests: [] } : {});
    let s = opened({ you, seats, host: { ...HOST, ...mine(0) } });
    assert.match(feltHTML(s.table, {}), /data-seat="0"[^]*host-badge/);
    s = reduce(s, { type: "table_updated", table: "t1", seq: 2, host: { ...HOST, seat: 1, name: "Bob", ...mine(1) } });
    const note = homeNoteText(s.table, (e) => e.code);
    if (you === 1) assert.equal(note, "You are now the host. Your host controls are open.");
    else if (you === 0) assert.equal(note, "Bob is now the host.");
    else assert.equal(note, "");
    assert.equal(homeLabel(s.table.host), you === 1 ? "Home game \u00b7 you are the host" : "Home game \u00b7 hosted by Bob");
    const felt = feltHTML(s.table, {});
    assert.equal((felt.match(/host-badge/g) || []).length, 1);
    assert.match(felt, /data-seat="1"[^>]*>(?:(?!data-seat="2")[^])*host-badge/);
    // the line stays for the hand under way and the next, then goes
    s = reduce(s, { type: "hand_started", table: "t1", seq: 3, hand: "t1.1", button: 0, commitment: "x" });
    s = reduce(s, { type: "hand_ended", table: "t1", seq: 4, hand: "t1.1" });
    assert.equal(homeNoteText(s.table, (e) => e.code), "");
  }
});

test("my seat request shows 'Requested' at that seat on my felt until the host answers", async () => {
  const { feltHTML } = await import("../js/ui/table.js");
  let s = opened({ you: null, host: HOST });
  s = reduce(s, { type: "local:home_wait", table: "t1", seat: 2 });
  const felt = feltHTML(s.table, { canSit: true });
  assert.match(felt, /data-seat="2"[^>]*>\s*<span class="requested-label"[^>]*>Requested</);
  assert.match(felt, /data-sit="1"/, "the other empty seat can still be asked for");
  s = reduce(s, { type: "seat_refused", table: "t1", seq: 2, player: "me", seat: 2 });
  assert.doesNotMatch(feltHTML(s.table, { canSit: true }), /Requested/);
});

test("a reload keeps my waiting seat request from the snapshot's host.request", () => {
  const t = homeFrom({ you: null, host: { private: true, request: { seat: 3, buy_in: 400 } } }, null);
  assert.equal(t.homeWait, 3);
  const seated = homeFrom({ you: 3, host: { private: true } }, { homeWait: 3 });
  assert.equal(seated.homeWait, null);
});

test("a private table's id is told from a public one's by its random suffix (issue 23)", () => {
  assert.equal(isPrivateId("t12-Ab_3-dEf9kXyZ"), true);
  assert.equal(isPrivateId("t12"), false);
  assert.equal(isPrivateId("t12-"), false);
  assert.equal(isPrivateId("x12-abc"), false);
  assert.equal(isPrivateId(null), false);
  const route = parseRoute(`#/table/${encodeURIComponent("t3-Zz_9-aaaaaaa")}?code=abc`);
  assert.deepEqual(route, { view: "table", id: "t3-Zz_9-aaaaaaa", watch: false, code: "abc" });
});
