// Unit tests of js/socket.js for tables that change process (docs/protocol.md, "Tables that
// change process"), with a fake WebSocket: a pushed `moved` takes the socket to its url
// (hello with the token, resume since the last seq), a `resume` answered `moved` is
// followed, and when the current process is gone the socket falls back to its home URL.
// No sleeps: every wait is on a condition checked at each fake event, with a timeout.
import assert from "node:assert/strict";
import { test } from "node:test";

import { FALLBACK_AFTER, PokerSocket } from "../js/socket.js";

const HOME = "ws://lb/ws";
const B = "ws://lb/node/b/ws";
const C = "ws://lb/node/c/ws";

const waiters = new Set();

/** Re-check every waiting condition (after each fake event, and once its microtasks ran). */
function changed() {
  const check = () => {
    for (const w of [...waiters]) {
      if (!w.predicate()) continue;
      waiters.delete(w);
      clearTimeout(w.timer);
      w.resolve();
    }
  };
  check();
  queueMicrotask(check);
  setTimeout(check, 0);
}

/** Resolves once `predicate()` holds (checked at each fake event); fails after 2 s. */
function until(predicate, what) {
  if (predicate()) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const w = { predicate, resolve };
    w.timer = setTimeout(() => {
      waiters.delete(w);
      reject(new Error(`timed out waiting for ${what}`));
    }, 2000);
    waiters.add(w);
  });
}

/** A fake cluster: a connection to a URL in `dead` fails; `answers[url]` may answer a
 * request (return undefined for the default: ok, pong for a ping). */
class FakeWS {
  static all = [];
  static dead = new Set();
  static answers = {};
  constructor(url, protocols) {
    this.url = url;
    this.protocols = protocols;
    this.readyState = 0;
    this.sent = [];
    FakeWS.all.push(this);
    queueMicrotask(() => {
      if (FakeWS.dead.has(url)) {
        this.readyState = 3;
        this.onclose && this.onclose({ code: 1006 });
      } else {
        this.readyState = 1;
        this.onopen && this.onopen();
      }
      changed();
    });
    changed();
  }
  send(data) {
    const msg = JSON.parse(data);
    this.sent.push(msg);
    const custom = FakeWS.answers[this.url] && FakeWS.answers[this.url](msg);
    const answer = custom || (msg.type === "ping" ? { type: "pong", rid: msg.rid, time: 1 } : { type: "ok", rid: msg.rid });
    queueMicrotask(() => this.readyState === 1 && this.receive(answer));
    changed();
  }
  receive(msg) {
    this.onmessage && this.onmessage({ data: JSON.stringify(msg) });
    changed();
  }
  close() {
    if (this.readyState === 3) return;
    this.readyState = 3;
    queueMicrotask(() => {
      this.onclose && this.onclose({ code: 1006 });
      changed();
    });
  }
  /** The frames it sent, as [type, table or token, since]. */
  frames() {
    return this.sent.filter((m) => m.type !== "ping").map((m) => [m.type, m.table ?? m.token, m.since]);
  }
}

function moved(table, url) {
  return { type: "error", code: "moved", table, url, message: "moved" };
}

/** A socket at HOME, signed in (token "tok"), following t1 (seen to seq 41) and the private
 * t2 (seq 3, code "c0de"); returns it with the messages handed to the page. */
async function signedIn() {
  FakeWS.all = [];
  FakeWS.dead = new Set();
  FakeWS.answers = {};
  const got = [];
  const sock = new PokerSocket(HOME, { WebSocketImpl: FakeWS, onMessage: (m) => got.push(m), backoff: () => 0 });
  await sock.connect();
  const ws = FakeWS.all[0];
  ws.receive({ type: "welcome", player_id: "p", name: "A", token: "tok", balance: 1 });
  sock.follow("t1");
  sock.follow("t2");
  sock.codes.set("t2", "c0de");
  ws.receive({ type: "turn", table: "t1", seq: 41, seat: 0, deadline: 1 });
  ws.receive({ type: "chat", table: "t2", seq: 3, text: "hi" });
  return { sock, got };
}

const resumed = (ws) => ws.frames().filter((f) => f[0] === "resume").length === 2;

test("a pushed moved: a new socket to its url, hello with the token, every table resumed since its last seq", async () => {
  const { sock, got } = await signedIn();
  const first = FakeWS.all[0];
  first.receive(moved("t1", B));
  first.receive(moved("t2", B)); // a second push on the connection being left: one move
  await until(() => FakeWS.all.length === 2 && resumed(FakeWS.all[1]) && sock.status === "online", "the move");
  const there = FakeWS.all[1];
  assert.equal(there.url, B);
  assert.deepEqual(there.frames(), [["hello", "tok", undefined], ["resume", "t1", 41], ["resume", "t2", 3]]);
  assert.equal(there.sent.find((m) => m.table === "t2").code, "c0de", "a private table's code");
  assert.equal(first.readyState, 3, "the process left is closed");
  assert.deepEqual([sock.url, sock.home, sock.moves], [B, HOME, 1]);
  assert.ok(!got.some((m) => m.type === "error" || m.type === "local:gone"), "nothing for the page to show");
  // later pushes: one for a table not followed is ignored; another one is followed again
  there.receive(moved("t9", C));
  there.receive(moved("t2", C));
  await until(() => FakeWS.all.length === 3 && resumed(FakeWS.all[2]) && sock.status === "online", "the second move");
  assert.equal(FakeWS.all[2].url, C);
  assert.deepEqual(FakeWS.all[2].frames().map((f) => f[0]), ["hello", "resume", "resume"]);
  assert.deepEqual([sock.url, sock.moves, sock.followed.size], [C, 2, 2]);
  sock.close();
});

test("a push during a move is followed after it, from where the first one arrived", async () => {
  const { sock } = await signedIn();
  let pushed = false;
  FakeWS.answers[B] = (msg) => {
    if (msg.type !== "resume" || pushed) return undefined;
    pushed = true; // B hands t2 on to C while the socket is still resuming there
    queueMicrotask(() => FakeWS.all[1].receive(moved("t2", C)));
    return undefined;
  };
  FakeWS.all[0].receive(moved("t1", B));
  await until(() => FakeWS.all.length === 3 && resumed(FakeWS.all[2]) && sock.status === "online", "both moves");
  assert.deepEqual(FakeWS.all.map((ws) => ws.url), [HOME, B, C]);
  assert.ok(resumed(FakeWS.all[1]), "everything was resumed at B first");
  assert.deepEqual([sock.url, sock.moves], [C, 2]);
  sock.close();
});

test("a resume answered moved after a reconnection is followed, not taken for a table gone", async () => {
  const { sock, got } = await signedIn();
  FakeWS.answers[HOME] = (msg) => (msg.type === "resume" && msg.table === "t1" ? { ...moved("t1", B), rid: msg.rid } : undefined);
  FakeWS.all[0].close(); // the connection drops
  await until(() => FakeWS.all.length === 3 && resumed(FakeWS.all[2]) && sock.status === "online", "the move");
  assert.deepEqual(FakeWS.all.map((ws) => ws.url), [HOME, HOME, B]);
  assert.deepEqual(FakeWS.all[2].frames(), [["hello", "tok", undefined], ["resume", "t1", 41], ["resume", "t2", 3]]);
  assert.equal(sock.followed.has("t1"), true);
  assert.ok(!got.some((m) => m.type === "local:gone"));
  assert.deepEqual([sock.url, sock.home, sock.moves], [B, HOME, 1]);
  sock.close();
});

test("two failed reconnections to a dead process: the socket goes home, and follows moved from there", async () => {
  const { sock, got } = await signedIn();
  FakeWS.all[0].receive(moved("t1", B));
  await until(() => FakeWS.all.length === 2 && resumed(FakeWS.all[1]) && sock.status === "online", "the move to B");
  FakeWS.dead.add(B); // B dies; the survivor C has reopened its tables
  FakeWS.answers[HOME] = (msg) => (msg.type === "resume" ? { ...moved(msg.table, C), rid: msg.rid } : undefined);
  FakeWS.all[1].close();
  await until(() => FakeWS.all.length === 6 && resumed(FakeWS.all[5]) && sock.status === "online", "the way home and on");
  assert.equal(FALLBACK_AFTER, 2);
  assert.deepEqual(FakeWS.all.map((ws) => ws.url), [HOME, B, B, B, HOME, C]);
  assert.deepEqual(FakeWS.all[4].frames(), [["hello", "tok", undefined], ["resume", "t1", 41], ["resume", "t2", 3]]);
  assert.deepEqual(FakeWS.all[5].frames(), [["hello", "tok", undefined], ["resume", "t1", 41], ["resume", "t2", 3]]);
  assert.deepEqual([sock.url, sock.home, sock.moves, sock.followed.size], [C, HOME, 2, 2]);
  assert.ok(!got.some((m) => m.type === "local:gone" || m.type === "local:signed_out"));
  sock.close();
});
