// The one owner of the WebSocket.
//
// Rule of this module: nothing else touches the socket. It connects to /ws with the JSON
// subprotocol, answers each `request()` by its rid, hands every other message to `onMessage`,
// and when the connection drops by itself it comes back with exponential backoff: a `hello`
// with the session token (when there was one), then a `resume` of every table it follows
// from the last `seq` it saw, so the page goes on without a reload. `close()` is the only
// way to stop it from reconnecting.

import { SUBPROTOCOL_JSON } from "../protocol.js";

export const BACKOFF_MS = [250, 500, 1000, 2000, 4000, 8000];

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
    this._opened = null;
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
      const answer = await this.request("hello", { token: this.token });
      if (answer.type !== "ok") {
        this.token = null;
        // the server forgot the session (a restart): the page must not act signed in
        if (answer.code === "bad_token") this.onMessage({ type: "local:signed_out" });
      }
    }
    for (const table of [...this.followed]) {
      const since = this.lastSeq.get(table) || 0;
      const code = this.codes.get(table);
      const answer = await this.request("resume", code ? { table, since, code } : { table, since });
      if (answer.type === "error" && (answer.code === "unknown_table" || answer.code === "table_closed")) {
        this.unfollow(table); // a table that is gone: no ghost of it stays on screen
        this.onMessage({ type: "local:gone", table });
      } else if (answer.type === "error" && answer.code === "invite_required") {
        this.unfollow(table); // a private game whose code is no longer good
        this.onMessage({ type: "local:home_private", table });
      }
    }
    this._setStatus("online");
    this._syncClock();
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
  request(type, fields = {}) {
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
