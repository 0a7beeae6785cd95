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
// Tables that change process (docs/protocol.md, "Tables that change process"): a pushed
// `moved` (an error without rid, for a table it follows) moves the socket to its `url`, one
// move at a time (a push during one is followed after it), and everything followed is
// resumed there; a `resume` answered `moved` is followed likewise (at most MAX_MOVES hops);
// when reconnecting to the current URL fails FALLBACK_AFTER times in a row (its process
// died), the backoff goes on at the home URL (the first one given: the cluster's address).

import { SUBPROTOCOL_JSON } from "../protocol.js";
import { isPrivateId } from "./home.js";

export const BACKOFF_MS = [250, 500, 1000, 2000, 4000, 8000];

/** `moved` answers one request (or one move) follows at most (processes that disagree). */
export const MAX_MOVES = 3;

/** Failed reconnection attempts in a row to the current URL before the home URL is tried. */
export const FALLBACK_AFTER = 2;

/** A `moved` url that can be followed. */
function isWsUrl(url) {
  return typeof url === "string" && /^wss?:\/\//.test(url);
}

/** Delay before reconnection attempt `n` (0-based): exponential with +-20% jitter. */
export function backoffDelay(n, random = Math.random) {
  const base = BACKOFF_MS[Math.min(n, BACKOFF_MS.length - 1)];
  return Math.round(base * (0.8 + 0.4 * random()));
}

export class PokerSocket {
  /**
   * @param {string} url ws://host/ws
   * @param {{onMessage?: Function, onStatus?: Function, WebSocketImpl?: any, timeoutMs?: number,
   *   backoff?: (attempt: number) => number}} opts
   */
  constructor(url, opts = {}) {
    this.url = url;
    this.home = url; // where reconnection falls back when the current process is gone
    this.backoff = opts.backoff || backoffDelay;
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
    this._moving = null; // the move under way (a promise), if any
    this._nextUrl = null; // a pushed `moved` received during it: followed after it
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
        this._afterOpen(isRetry, ws);
      };
      ws.onmessage = (ev) => this._receive(ev.data, ws);
      const closed = () => {
        if (this.ws !== ws) return; // (each drop handled once: close, or an error alone)
        this.ws = null;
        this._failPending();
        if (!isRetry) reject(new Error("connection closed"));
        if (!this.stopped) this._scheduleRetry();
        else this._setStatus("offline");
      };
      ws.onclose = closed;
      // Usually close follows; but a connection the browser itself blocks (a CSP refusal)
      // fires error alone: treat an error before open as the drop it is.
      ws.onerror = () => {
        if (ws.readyState !== 1) closed();
      };
    });
    this._opened.catch(() => {});
  }

  async _afterOpen(isRetry, ws) {
    if (!isRetry) {
      this._setStatus("online");
      this._syncClock();
      return;
    }
    this.reconnects += 1;
    await this._hello();
    const movedTo = await this._resumeAll();
    if (this.ws !== ws) return; // replaced meanwhile (a drop, a move): that one finishes
    this._setStatus("online");
    const waiting = this._ready.splice(0);
    for (const resolve of waiting) resolve(movedTo);
    if (movedTo && !waiting.length) this._moveTo(movedTo); // a reconnection answered moved
    this._syncClock();
  }

  async _hello() {
    if (!this.token) return;
    const answer = await this._send("hello", { token: this.token });
    if (answer.type !== "ok" && answer.code !== "disconnected" && answer.code !== "timeout") {
      this.token = null;
      // the server forgot the session (a restart): the page must not act signed in
      if (answer.code === "bad_token") this.onMessage({ type: "local:signed_out" });
    }
  }

  /** `resume` every table followed; the url of the first answered `moved` (else null),
   * followed once the others are resumed. */
  async _resumeAll() {
    let movedTo = null;
    for (const table of [...this.followed]) {
      const since = this.lastSeq.get(table) || 0;
      const code = this.codes.get(table);
      const answer = await this._send("resume", code ? { table, since, code } : { table, since });
      if (answer.type !== "error") continue;
      if (answer.code === "moved" && isWsUrl(answer.url)) {
        movedTo = movedTo || answer.url; // on another process now: followed there
      } else if (answer.code === "unknown_table" && isPrivateId(table)) {
        this.unfollow(table); // a private game whose code is no longer good (or that ended)
        this.onMessage({ type: "local:home_private", table });
      } else if (answer.code === "unknown_table" || answer.code === "table_closed") {
        this.unfollow(table); // a table that is gone: no ghost of it stays on screen
        this.onMessage({ type: "local:gone", table });
      }
    }
    return movedTo;
  }

  /** Move to another process of the cluster (`moved`); resolves when done (or after
   * `timeoutMs` a hop). One move at a time: during one, the same promise. */
  _moveTo(url) {
    if (!this._moving) this._moving = this._follow(url);
    return this._moving;
  }

  async _follow(url) {
    try {
      for (let hops = 0; url && hops < MAX_MOVES; hops++) {
        const movedTo = await this._hop(url);
        url = movedTo || this._nextUrl;
        this._nextUrl = null;
      }
    } finally {
      this._moving = null;
      this._nextUrl = null;
    }
  }

  /** One hop: a new connection to `url`, then the reconnection's `hello` and `resume`s;
   * resolves with the url of a `resume` answered `moved` there (else null). */
  _hop(url) {
    this.moves += 1;
    this.url = url;
    const old = this.ws;
    this.ws = null; // its close is not a drop: no retry for it
    this._failPending();
    if (old) old.close(1000, "moved");
    return new Promise((resolve) => {
      const done = (movedTo) => {
        clearTimeout(timer);
        this._ready = this._ready.filter((r) => r !== done);
        resolve(movedTo || null);
      };
      const timer = setTimeout(() => done(null), this.timeoutMs);
      this._ready.push(done);
      this._open(true);
    });
  }

  /** A pushed `moved` (no rid): the process is handing `msg.table` over to `msg.url`. */
  _pushed(msg, ws) {
    if (ws !== this.ws || this.stopped) return; // from a connection already replaced
    if (!this.followed.has(msg.table) || !isWsUrl(msg.url)) return;
    if (this._moving) this._nextUrl = msg.url;
    else this._moveTo(msg.url);
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
    // its process is gone (a failover): the cluster's address, where `resume` says `moved`
    if (this.attempt >= FALLBACK_AFTER) this.url = this.home;
    const delay = this.backoff(this.attempt);
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

  _receive(data, ws) {
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
      if (msg.code === "moved" && msg.rid == null) return this._pushed(msg, ws);
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
      if (!isWsUrl(answer.url)) break;
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
