// Unit tests of js/socket.js with a fake WebSocket: answers by rid, events, and the
// reconnection (hello with the token, then resume from the last seq) after a drop.
import assert from "node:assert/strict";
import { test } from "node:test";

import { backoffDelay, PokerSocket } from "../js/socket.js";

class FakeWS {
  static all = [];
  static silent = false; // true: requests get no answer
  constructor(url, protocols) {
    this.url = url;
    this.protocols = protocols;
    this.readyState = 0;
    this.sent = [];
    FakeWS.all.push(this);
    queueMicrotask(() => {
      this.readyState = 1;
      this.onopen && this.onopen();
    });
  }
  send(data) {
    const msg = JSON.parse(data);
    this.sent.push(msg);
    if (FakeWS.silent) return;
    // an echo server: every request is answered ok (ping with pong)
    queueMicrotask(() => this.receive(msg.type === "ping" ? { type: "pong", rid: msg.rid, time: 1 } : { type: "ok", rid: msg.rid }));
  }
  receive(msg) {
    this.onmessage && this.onmessage({ data: JSON.stringify(msg) });
  }
  close() {
    this.readyState = 3;
    queueMicrotask(() => this.onclose && this.onclose({ code: 1006 }));
  }
}

function until(predicate) {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const check = () => {
      if (predicate()) return resolve();
      if (Date.now() - started > 5000) return reject(new Error("timed out"));
      setTimeout(check, 5);
    };
    check();
  });
}

test("requests are answered by rid; events go to onMessage", async () => {
  FakeWS.all = [];
  const got = [];
  const sock = new PokerSocket("ws://x/ws", { WebSocketImpl: FakeWS, onMessage: (m) => got.push(m) });
  await sock.connect();
  assert.deepEqual(FakeWS.all[0].protocols, ["poker.v1.json"]);
  const answer = await sock.request("tables");
  assert.equal(answer.type, "ok");
  FakeWS.all[0].receive({ type: "chat", table: "t1", seq: 5, text: "hi" });
  assert.equal(got.at(-1).text, "hi");
  assert.equal(sock.lastSeq.get("t1"), 5);
  FakeWS.all[0].receive("not an object");
  sock.close();
});

test("a dropped connection comes back: hello with the token, resume since the last seq", async () => {
  FakeWS.all = [];
  const statuses = [];
  const sock = new PokerSocket("ws://x/ws", { WebSocketImpl: FakeWS, onStatus: (s) => statuses.push(s) });
  await sock.connect();
  FakeWS.all[0].receive({ type: "welcome", player_id: "p", name: "A", token: "tok", balance: 1 });
  sock.follow("t1");
  FakeWS.all[0].receive({ type: "turn", table: "t1", seq: 41, seat: 0, deadline: 1 });
  FakeWS.silent = true;
  const pending = sock.request("act", { table: "t1", action: "fold" });
  FakeWS.all[0].close();
  assert.equal((await pending).code, "disconnected", "a request in flight is answered");
  FakeWS.silent = false;
  await until(() => FakeWS.all.length === 2 && statuses.at(-1) === "online");
  const sent = FakeWS.all[1].sent.map((m) => m.type);
  assert.deepEqual(sent.slice(0, 2), ["hello", "resume"]);
  assert.equal(FakeWS.all[1].sent[0].token, "tok");
  assert.deepEqual([FakeWS.all[1].sent[1].table, FakeWS.all[1].sent[1].since], ["t1", 41]);
  assert.ok(statuses.includes("reconnecting"));
  assert.equal(sock.reconnects, 1);
  sock.close();
});

test("requests while disconnected fail at once; close() stops for good", async () => {
  FakeWS.all = [];
  const sock = new PokerSocket("ws://x/ws", { WebSocketImpl: FakeWS });
  const answer = await sock.request("tables");
  assert.equal(answer.code, "disconnected");
  await sock.connect();
  sock.close();
  await until(() => sock.status === "offline");
  assert.equal(FakeWS.all.length, 1);
});

test("backoff grows to a cap, with jitter", () => {
  assert.equal(backoffDelay(0, () => 0.5), 250);
  assert.equal(backoffDelay(3, () => 0.5), 2000);
  assert.equal(backoffDelay(50, () => 0.5), 8000);
  assert.equal(backoffDelay(0, () => 0), 200);
  assert.equal(backoffDelay(0, () => 1), 300);
});

test("after a server restart: a forgotten session signs out, a table that is gone is reported", async () => {
  class RestartedWS extends FakeWS {
    send(data) {
      const msg = JSON.parse(data);
      this.sent.push(msg);
      const answer = msg.type === "hello" ? { type: "error", rid: msg.rid, code: "bad_token", message: "x" }
        : msg.type === "resume" ? { type: "error", rid: msg.rid, code: "unknown_table", message: "No such table." }
          : msg.type === "ping" ? { type: "pong", rid: msg.rid, time: 1 } : { type: "ok", rid: msg.rid };
      queueMicrotask(() => this.receive(answer));
    }
  }
  FakeWS.all = [];
  const got = [];
  const sock = new PokerSocket("ws://x/ws", { WebSocketImpl: RestartedWS, onMessage: (m) => got.push(m) });
  await sock.connect();
  FakeWS.all[0].receive({ type: "welcome", player_id: "p", name: "A", token: "tok", balance: 1 });
  sock.follow("t1");
  FakeWS.all[0].close();
  await until(() => got.some((m) => m.type === "local:gone"));
  assert.ok(got.some((m) => m.type === "local:signed_out"));
  assert.deepEqual(got.find((m) => m.type === "local:gone"), { type: "local:gone", table: "t1" });
  assert.equal(sock.followed.has("t1"), false, "no resume of it again");
  sock.close();
});

test("a private table that answers unknown_table on resume shows the private-game gate", async () => {
  const PRIVATE = "t7-AbC_d-1234567";
  class GateWS extends FakeWS {
    send(data) {
      const msg = JSON.parse(data);
      this.sent.push(msg);
      const answer = msg.type === "resume"
        ? { type: "error", rid: msg.rid, code: "unknown_table", message: `no table '${msg.table}'` }
        : msg.type === "ping" ? { type: "pong", rid: msg.rid, time: 1 } : { type: "ok", rid: msg.rid };
      queueMicrotask(() => this.receive(answer));
    }
  }
  FakeWS.all = [];
  const got = [];
  const sock = new PokerSocket("ws://x/ws", { WebSocketImpl: GateWS, onMessage: (m) => got.push(m) });
  await sock.connect();
  sock.follow(PRIVATE);
  sock.follow("t8");
  FakeWS.all[0].close();
  await until(() => got.some((m) => m.type === "local:home_private") && got.some((m) => m.type === "local:gone"));
  assert.deepEqual(got.find((m) => m.type === "local:home_private"), { type: "local:home_private", table: PRIVATE });
  assert.deepEqual(got.find((m) => m.type === "local:gone"), { type: "local:gone", table: "t8" });
  assert.equal(sock.followed.size, 0);
  sock.close();
});

test("moved: the socket goes to its url, says hello with the token, sends the request again", async () => {
  FakeWS.all = [];
  const sock = new PokerSocket("ws://lb/ws", { WebSocketImpl: FakeWS });
  await sock.connect();
  FakeWS.all[0].receive({ type: "welcome", player_id: "p", name: "A", token: "tok", balance: 1 });
  const first = FakeWS.all[0];
  first.send = function (data) {
    const msg = JSON.parse(data);
    this.sent.push(msg);
    const moved = { type: "error", rid: msg.rid, code: "moved", table: "t9", url: "ws://lb/node/b/ws" };
    queueMicrotask(() => this.receive(msg.type === "ping" ? { type: "pong", rid: msg.rid, time: 1 } : moved));
  };
  const answer = await sock.request("watch", { table: "t9" });
  assert.equal(answer.type, "ok");
  assert.equal(FakeWS.all.length, 2);
  assert.equal(FakeWS.all[1].url, "ws://lb/node/b/ws");
  assert.equal(sock.url, "ws://lb/node/b/ws");
  assert.equal(sock.moves, 1);
  const sent = FakeWS.all[1].sent.filter((m) => m.type !== "ping");
  assert.deepEqual(sent.map((m) => [m.type, m.token ?? m.table]), [["hello", "tok"], ["watch", "t9"]]);
  assert.equal(first.readyState, 3, "the first connection is closed");
  // a `moved` without a usable url is handed back as it is
  FakeWS.all[1].send = function (data) {
    const msg = JSON.parse(data);
    queueMicrotask(() => this.receive({ type: "error", rid: msg.rid, code: "moved", url: "http://x" }));
  };
  assert.equal((await sock.request("watch", { table: "t9" })).code, "moved");
  assert.equal(FakeWS.all.length, 2);
  sock.close();
});
