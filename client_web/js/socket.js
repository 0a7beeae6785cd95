// The one owner of the WebSocket.
//
// Rule of this module: nothing else touches the socket. It connects to /ws with the JSON
// subprotocol, answers each `request()` by its rid, hands every other message to `onMessage`,
// and when the connection drops by itself it comes back with exponential backoff: a `hello`
// with the session token (when there was one), then a `resume` of every table it follows
// from the last `seq` it saw, so the page goes on without a reload. `close()` is the only
// way to stop it from reconnecting. In a cluster, an answer `moved` (docs/protocol.md, wave
// 2) moves the socket to its `url` (the same `hello` with the token and `resume`s as after a
// drop) and sends the request again there; the caller only ever sees the final answer.

import { SUBPROTOCOL_JSON } from "../protocol.js";

export const BACKOFF_MS = [250, 500, 1000, 2000, 4000, 8000];

/** `moved` answers one request follows at most (processes that disagree for a moment). */
export const MAX_MOVES = 3;

/** Delay before reconnection attempt `n` (0-based): exponential with +-20% jitter. */
export function backoffDelay(n, random = Math.random) {
  const base = BACKOFF_MS[Math.min(n, BACKOFF_MS.length - 1)];
  return Math.round(base * (0.8 + 0.4 * random()));
}

export class PokerSocket {
  /**
   * @param {string} url ws://host/ws
   * @param {{onMessage?: Function, onStatus?: Function, WebSocketImpl?: any, timeoutMs?: number}} opts
   */
  constructor(url, opts = {}) {
    this.url = url;
    this.onMessage = opts.onMessage || (() => {});
    this.onStatus = opts.onStatus || (() => {});
    this.WebSocketImpl = opts.WebSocketImpl || globalThis.WebSocket;
    this.timeoutMs = opts.timeoutMs || 15000;
    this.ws = null;
    this.nextRid = 1;
    this.pending = new Map(); // rid -> {resolve, timer}
    this.lastSeq = new Map(); // table -> last seq seen
    this.followed = new Set(); // tables to resume after a reconnection
    this.codes = new Map(); // table -> its invite code (a private game): sent with `resume`
    this.token = null;
    this.attempt = 0;
    this.stopped = false;
    this.status = "connecting";
    this.clockOffsetMs = 0; // server wall clock minus ours
    this.reconnects = 0;
    this.moves = 0;
    this._opened = null;
    this._ready = []; // resolvers waiting for the next reconnection's hello and resumes
  }

  /** Open the connection; resolves once it is open (rejects if the first attempt fails). */
  connect() {
    this.stopped = false;
    this._open(false);
    return this._opened;
  }

  _setStatus(status) {
    this.status = status;
    this.onStatus(status);
  }

  _open(isRetry) {
    let ws;
    this._opened = new Promise((resolve, reject) => {
      try {
        ws = new this.WebSocketImpl(this.url, [SUBPROTOCOL_JSON]);
      } catch (err) {
        reject(err);
        this._scheduleRetry();
        return;
      }
      this.ws = ws;
      ws.onopen = () => {
        this.attempt = 0;
        resolve();
        this._afterOpen(isRetry);
      };
      ws.onmessage = (ev) => this._receive(ev.data);
      ws.onclose = () => {
        if (this.ws !== ws) return;
        this.ws = null;
        this._failPending();
        if (!isRetry) reject(new Error("connection closed"));
        if (!this.stopped) this._scheduleRetry();
        else this._setStatus("offline");
      };
      ws.onerror = () => {}; // onclose follows
    });
    this._opened.catch(() => {});
  }

  async _afterOpen(isRetry) {
    if (!isRetry) {
      this._setStatus("online");
      this._syncClock();
      return;
    }
    this.reconnects += 1;
    if (this.token) {
      const answer = await this._send("hello", { token: this.token });
      if (answer.type !== "ok") {
        this.token = null;
        // the server forgot the session (a restart): the page must not act signed in
        if (answer.code === "bad_token") this.onMessage({ type: "local:signed_out" });
      }
    }
    for (const table of [...this.followed]) {
      const since = this.lastSeq.get(table) || 0;
      const code = this.codes.get(table);
      const answer = await this._send("resume", code ? { table, since, code } : { table, since });
      const gone = ["unknown_table", "table_closed", "moved"]; // moved: on another process now
      if (answer.type === "error" && gone.includes(answer.code)) {
        this.unfollow(table); // a table that is gone: no ghost of it stays on screen
        this.onMessage({ type: "local:gone", table });
      } else if (answer.type === "error" && answer.code === "invite_required") {
        this.unfollow(table); // a private game whose code is no longer good
        this.onMessage({ type: "local:home_private", table });
      }
    }
    this._setStatus("online");
    for (const resolve of this._ready.splice(0)) resolve();
    this._syncClock();
  }

  /** Move to another process of the cluster (`moved`): a new connection to `url`, then the
   * reconnection's `hello` and `resume`s; resolves when done, or after `timeoutMs`. */
  _moveTo(url) {
    this.moves += 1;
    this.url = url;
    const old = this.ws;
    this.ws = null; // its close is not a drop: no retry for it
    this._failPending();
    if (old) old.close(1000, "moved");
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, this.timeoutMs);
      this._ready.push(() => {
        clearTimeout(timer);
        resolve();
      });
      this._open(true);
    });
  }

  async _syncClock() {
    const t0 = Date.now();
    const answer = await this.request("ping", { t: t0 });
    if (answer.type === "pong" && typeof answer.time === "number") {
      const t1 = Date.now();
      this.clockOffsetMs = answer.time * 1000 - (t0 + t1) / 2;
    }
  }

  _scheduleRetry() {
    if (this.stopped) return;
    this._setStatus("reconnecting");
    const delay = backoffDelay(this.attempt);
    this.attempt += 1;
    setTimeout(() => {
      if (!this.stopped) this._open(true);
    }, delay);
  }

  _failPending() {
    for (const [rid, p] of this.pending) {
      clearTimeout(p.timer);
      p.resolve({ type: "error", rid, code: "disconnected", message: "The connection was lost." });
    }
    this.pending.clear();
  }

  _receive(data) {
    if (typeof data !== "string") return; // JSON subprotocol: text frames only
    let msg;
    try {
      msg = JSON.parse(data);
    } catch {
      return;
    }
    if (!msg || typeof msg !== "object" || typeof msg.type !== "string") return;
    if (msg.type === "ok" || msg.type === "error" || msg.type === "pong") {
      const p = this.pending.get(msg.rid);
      if (p) {
        this.pending.delete(msg.rid);
        clearTimeout(p.timer);
        p.resolve(msg);
        return;
      }
      if (msg.type !== "error") return;
    }
    if (msg.type === "welcome" && typeof msg.token === "string") this.token = msg.token;
    if (typeof msg.table === "string" && typeof msg.seq === "number") {
      const last = this.lastSeq.get(msg.table) || 0;
      if (msg.type === "snapshot" || msg.seq > last) this.lastSeq.set(msg.table, msg.seq);
    }
    this.onMessage(msg);
  }

  /**
   * Send a request; resolves with its answer (`ok`, `pong` or `error`; never rejects).
   * While disconnected it answers `{type: "error", code: "disconnected"}` at once.
   */
  async request(type, fields = {}) {
    let answer = await this._send(type, fields);
    for (let n = 0; n < MAX_MOVES && answer.type === "error" && answer.code === "moved"; n++) {
      if (typeof answer.url !== "string" || !/^wss?:\/\//.test(answer.url)) break;
      await this._moveTo(answer.url);
      answer = await this._send(type, fields);
    }
    return answer;
  }

  /** One request and its answer, as is (no `moved` following). */
  _send(type, fields) {
    const rid = this.nextRid++;
    return new Promise((resolve) => {
      const ws = this.ws;
      if (!ws || ws.readyState !== 1) {
        resolve({ type: "error", rid, code: "disconnected", message: "Not connected." });
        return;
      }
      const timer = setTimeout(() => {
        this.pending.delete(rid);
        resolve({ type: "error", rid, code: "timeout", message: "No answer from the server." });
      }, this.timeoutMs);
      this.pending.set(rid, { resolve, timer });
      ws.send(JSON.stringify({ ...fields, type, rid }));
    });
  }

  /** Follow a table: its events are resumed after a reconnection. */
  follow(table) {
    this.followed.add(table);
  }

  unfollow(table) {
    this.followed.delete(table);
    this.lastSeq.delete(table);
  }

  /** Server time now, in Unix seconds (for turn deadlines). */
  serverNow() {
    return (Date.now() + this.clockOffsetMs) / 1000;
  }

  /** Stop for good (no reconnection). */
  close() {
    this.stopped = true;
    if (this.ws) this.ws.close(1000, "bye");
  }
}
