// Private games (issue 16, a host's home game): the invite link, the code kept per table,
// the host state in the table's state, operator notices, and the session ledger's figures.
//
// Rule of this module: pure (no DOM, no socket; storage is passed in). The reducer
// (js/state.js) calls `reduceHome` for the room-level messages (`notice`, the final
// `ledger`, the client's own "local:home_*" facts), `homeFrom` when a snapshot builds a
// table, and `homeEvent` for a table's events before the others are applied.
//
// Links: `#/table/<id>?code=<code>` (the client's own routes, with the code), and the
// protocol's `#table=<id>&code=<code>` too.

import { chips, stakesText } from "./format.js";

const CODE_PREFIX = "poker.code.";
export const MAX_NOTICES = 5;

/** The route of a location hash: `{view: "lobby"}` or `{view: "table", id, watch, code}`. */
export function parseRoute(hash) {
  const h = typeof hash === "string" ? hash : "";
  const m = h.match(/^#\/table\/([^/?]+)(\/watch)?(?:\?(.*))?$/);
  if (m) {
    const code = new URLSearchParams(m[3] || "").get("code");
    return { view: "table", id: decodeURIComponent(m[1]), watch: !!m[2], code: code || null };
  }
  if (/^#table=/.test(h)) { // the protocol's form: #table=<id>&code=<code>
    const params = new URLSearchParams(h.slice(1));
    const id = params.get("table");
    if (id) return { view: "table", id, watch: false, code: params.get("code") || null };
  }
  return { view: "lobby" };
}

/** Whether `id` is a private table's id (`t12-<random suffix>`, issue 23): the server
 * answers `unknown_table` to whom such a table does not admit, exactly as for a table that
 * does not exist, so the page shows the private-game gate for such an id. */
export function isPrivateId(id) {
  return typeof id === "string" && /^t\d+-[A-Za-z0-9_-]+$/.test(id);
}

/** The base of the page's links (invite, watch): `address`, the address players open that
 * the server writes into `<meta name="poker-public-address">` (its `--public-address`, or its
 * LAN address for a page opened on the loopback; server/net/http.py), else the page's own
 * origin and path (`loc`: `location`). Anything but `http(s)://host[:port]` is ignored. */
export function linkBase(address, loc) {
  const given = typeof address === "string" ? address.trim().replace(/\/+$/, "") : "";
  if (/^https?:\/\/[^\s/?#@]+$/.test(given)) return `${given}/`;
  return `${loc.origin}${loc.pathname}`;
}

/** Whether a link at `base` reaches this computer only (a loopback host: 127.x, localhost,
 * [::1], or 0.0.0.0); friends on other machines cannot open it. */
export function thisComputerOnly(base) {
  let host;
  try { host = new URL(base).hostname.toLowerCase(); } catch { return false; }
  return host === "localhost" || host.endsWith(".localhost") || host === "[::1]"
    || host === "0.0.0.0" || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** The watch link of a table (spectators need no code). */
export function watchLink(base, id) {
  return `${base}#/table/${encodeURIComponent(id)}/watch`;
}

/** The invite link of a private table (`base`: `linkBase`). */
export function inviteLink(base, id, code) {
  const link = `${base}#/table/${encodeURIComponent(id)}`;
  return code ? `${link}?code=${encodeURIComponent(code)}` : link;
}

/** The invite codes this browser knows, by table id (localStorage: a reload, another tab). */
export function codeStore(storage) {
  return {
    get(id) {
      try { return storage.getItem(CODE_PREFIX + id) || null; } catch { return null; }
    },
    set(id, code) {
      try { if (code) storage.setItem(CODE_PREFIX + id, code); } catch { /* private mode */ }
    },
    forget(id) {
      try { storage.removeItem(CODE_PREFIX + id); } catch { /* private mode */ }
    },
  };
}

/** The host state of a `snapshot` / `table_updated` for the table's state (null: public). */
export function hostFrom(host) {
  if (!host || typeof host !== "object") return null;
  return {
    seat: host.seat ?? null, name: host.name ?? null, private: host.private !== false,
    paused: !!host.paused, approveSeats: !!host.approve_seats, rebuys: host.rebuys !== false,
    next: host.next || null, you: host.you === true, code: host.code ?? null,
    requests: Array.isArray(host.requests) ? host.requests.map((r) => ({ ...r })) : [],
  };
}

/** The home-game fields of a table built from a snapshot (`keep`: the same table before). */
export function homeFrom(msg, keep) {
  const mine = msg.host && msg.host.request ? msg.host.request.seat ?? null : null;
  const waiting = msg.you == null ? (mine ?? (keep ? keep.homeWait ?? null : null)) : null;
  return { host: hostFrom(msg.host), homeWait: waiting, homeNote: keep ? keep.homeNote ?? null : null,
    ledger: keep ? keep.ledger ?? null : null, leaveAsked: false };
}

/** A table event, before the usual handlers (js/table-events.js) apply it. */
export function homeEvent(t, msg) {
  switch (msg.type) {
    case "table_updated": {
      const before = t.host;
      t.host = hostFrom(msg.host);
      roleChange(t, before, t.host);
      // the host's change reached the table: what was "next" is now the table's stakes
      if (msg.stakes) t.stakes = msg.stakes;
      if (msg.settings) t.settings = msg.settings;
      if (!msg.stakes && before && before.next && t.host && !t.host.next) {
        if (before.next.stakes) t.stakes = before.next.stakes;
        if (before.next.settings) t.settings = before.next.settings;
      }
      return;
    }
    case "seat_request":
      if (t.host) {
        t.host.requests = t.host.requests.filter((r) => r.player !== msg.player);
        t.host.requests.push({ player: msg.player, name: msg.name, seat: msg.seat, buy_in: msg.buy_in });
      }
      return;
    case "seat_refused":
      t.homeWait = null;
      t.homeNote = { kind: "refused", reason: msg.reason ?? null };
      return;
    case "left":
      if (t.you === msg.seat && t.host && !t.leaveAsked) t.homeNote = { kind: "removed", reason: null };
      if (t.you === msg.seat) t.leaveAsked = false;
      return;
    case "hand_ended": // a new host's line stays up for the rest of the hand and one more
      if (t.homeNote && ROLE_NOTES.has(t.homeNote.kind) && t.homeNote.hand !== t.hand) t.homeNote = null;
      return;
    default:
  }
}

const ROLE_NOTES = new Set(["now_host", "was_host"]);

/** The host role moved (`host` `transfer`): the new host is told, and so is the one before. */
function roleChange(t, before, now) {
  if (!before || !now) return;
  const hand = t.ended ? null : t.hand;
  if (!before.you && now.you) t.homeNote = { kind: "now_host", hand };
  else if (before.you && !now.you) t.homeNote = { kind: "was_host", name: now.name ?? null, hand };
}

function findTable(next, id) {
  if (next.table && next.table.id === id) return next.table;
  return next.background[id] || null;
}

/** Room-level messages of private games and notices; `undefined`: not one of these. */
export function reduceHome(next, msg) {
  switch (msg.type) {
    case "notice": {
      const notices = next.notices || [];
      const id = notices.length ? notices[notices.length - 1].id + 1 : 1;
      next.notices = [...notices, { id, text: String(msg.text ?? ""), table: msg.table ?? null }]
        .slice(-MAX_NOTICES);
      return next;
    }
    case "local:dismiss_notice":
      next.notices = (next.notices || []).filter((n) => n.id !== msg.id);
      return next;
    case "ledger": // the game closed: the host's final session ledger
      next.finalLedgers = { ...(next.finalLedgers || {}),
        [msg.table]: { rows: Array.isArray(msg.rows) ? msg.rows : [], text: String(msg.text ?? "") } };
      return next;
    case "local:home_private": // the table asked for is a private game and we have no code
      next.privateTable = msg.table ?? null;
      return next;
    case "local:home_applied":
    case "local:home_ledger":
    case "local:home_wait":
    case "local:home_note":
    case "local:home_leave": {
      const t = findTable(next, msg.table);
      if (!t || t.pending) return next;
      if (msg.type === "local:home_ledger") t.ledger = Array.isArray(msg.rows) ? msg.rows : [];
      if (msg.type === "local:home_wait") t.homeWait = msg.seat ?? null;
      if (msg.type === "local:home_note") t.homeNote = msg.note ?? null;
      if (msg.type === "local:home_leave") t.leaveAsked = true;
      if (msg.type === "local:home_applied") { // the host's change, applied between hands
        if (msg.stakes) t.stakes = msg.stakes;
        if (msg.settings) t.settings = { ...t.settings, ...msg.settings };
      }
      return next;
    }
    default: return undefined;
  }
}

/** "Home game · hosted by Ann" (or "you host"). */
export function homeLabel(host) {
  if (!host) return "";
  if (host.you) return "Home game \u00b7 you are the host";
  return host.name ? `Home game \u00b7 hosted by ${host.name}` : "Home game";
}

const SETTING_WORDS = {
  action_clock: (v) => `action clock ${v}s`, pause: (v) => `${v}s between hands`,
  starting_stack: (v) => `starting stack ${chips(v)}`, rebuys: (v) => (v ? "rebuys allowed" : "no rebuys"),
  approve_seats: (v) => (v ? "the host approves each player" : "anyone with the link sits"),
  ante_time: (v) => `${v}s to ante`, min_buy_in: (v) => `min buy-in ${chips(v)}`,
  max_buy_in: (v) => `max buy-in ${chips(v)}`,
  straddle: (v) => (v ? "straddle on (house rule)" : "no straddle"),
  run_twice: (v) => (v ? "run it twice on (house rule)" : "no run it twice"),
  show_uncontested: (v) => (v ? "winners may show after everyone folds (house rule)"
    : "no showing after everyone folds"),
};

/** The house rules of home games (docs/rules.md section 4): setting -> its name. */
export const HOUSE_RULES = { straddle: "straddle", run_twice: "run it twice",
  show_uncontested: "show after everyone folds" };
/** The games that have the straddle and run it twice (showing after an uncontested win: every
 * pot game). */
export const HOUSE_RULE_GAMES = ["holdem", "manila", "manila3"];

/** Whether the house rule `key` exists at `variant`. */
export function houseRuleFor(key, variant) {
  if (key === "show_uncontested") return variant !== "caribbean";
  return HOUSE_RULE_GAMES.includes(variant);
}

/** "House rules: straddle, run it twice" for a table's settings ("" when none is on). */
export function houseRulesText(settings) {
  const on = Object.keys(HOUSE_RULES).filter((k) => settings && settings[k] === true);
  return on.length ? `House rules: ${on.map((k) => HOUSE_RULES[k]).join(", ")}` : "";
}

/** What the next hand will change: "From the next hand: 100/200, action clock 20s". */
export function nextText(next, t) {
  if (!next) return "";
  const parts = [];
  if (next.stakes && t && JSON.stringify(next.stakes) !== JSON.stringify(t.stakes)) {
    parts.push(stakesText(t.variant, next.stakes));
  }
  const now = (t && t.settings) || {};
  for (const [k, v] of Object.entries(next.settings || {})) {
    if (SETTING_WORDS[k] && JSON.stringify(now[k]) !== JSON.stringify(v)) parts.push(SETTING_WORDS[k](v));
  }
  return parts.length ? `From the next hand: ${parts.join(", ")}` : "";
}

const LEDGER_COLUMNS = ["buy_ins", "rebuys", "cash_outs", "at_table", "net"];

/** The session ledger for display: rows with numbers, and the total of each column. */
export function ledgerView(rows) {
  const list = (Array.isArray(rows) ? rows : []).map((r) => {
    const out = { player: String(r.player ?? ""), name: String(r.name ?? r.player ?? ""),
      house: r.player === "(house)" };
    for (const k of LEDGER_COLUMNS) out[k] = Number(r[k]) || 0;
    return out;
  });
  const totals = {};
  for (const k of LEDGER_COLUMNS) totals[k] = list.reduce((a, r) => a + r[k], 0);
  return { rows: list, totals, balanced: totals.net === 0 };
}

/** "+1,200", "−300", "0" (a result). */
export function signed(n) {
  return n > 0 ? `+${chips(n)}` : n < 0 ? `\u2212${chips(-n)}` : "0";
}

/** The CSV's file name: "home-game-<table name>-<date>.csv" (safe characters only). */
export function csvFilename(name, date = new Date()) {
  const safe = String(name || "table").toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "") || "table";
  const day = date.toISOString().slice(0, 10);
  return `home-game-${safe}-${day}.csv`;
}

/** The stake fields the host can change for a variant: [[field, label]]. */
export function hostStakeFields(variant, stakes) {
  const s = stakes || {};
  if (variant === "caribbean") return [["min", "Min ante"], ["max", "Max ante"]];
  const out = [];
  if (Array.isArray(s.blinds) || !(variant || "").startsWith("stud")) out.push(["sb", "Small blind"], ["bb", "Big blind"]);
  if (s.ante != null || (variant || "").startsWith("stud")) out.push(["ante", "Ante"]);
  if (s.bring_in != null) out.push(["bring_in", "Bring-in"]);
  if (s.small_bet != null) out.push(["small_bet", "Small bet"], ["big_bet", "Big bet"]);
  if (s.min_bet != null) out.push(["min_bet", "Min bet"], ["max_bet", "Max bet"]);
  return out;
}

/** A stake field's current value (`sb`/`bb` are the blinds list). */
export function stakeValue(stakes, field) {
  const s = stakes || {};
  if (field === "sb") return Array.isArray(s.blinds) ? s.blinds[0] : "";
  if (field === "bb") return Array.isArray(s.blinds) ? s.blinds[1] : "";
  return s[field] ?? "";
}

/** The `host` `change` request's stakes and settings from the form's values (strings), only
 * what differs from the table's now; `null` when nothing changed. */
export function changeRequest(t, values) {
  const n = (v) => Math.max(0, Math.round(Number(v)));
  const stakes = { ...(t.stakes || {}) };
  let stakesChanged = false;
  for (const [field] of hostStakeFields(t.variant, t.stakes)) {
    const raw = values[field];
    if (raw == null || raw === "" || !Number.isFinite(Number(raw))) continue;
    const v = n(raw);
    if (field === "sb" || field === "bb") {
      const blinds = Array.isArray(stakes.blinds) ? [...stakes.blinds] : [0, 0];
      blinds[field === "sb" ? 0 : 1] = v;
      if (JSON.stringify(blinds) !== JSON.stringify(stakes.blinds)) stakesChanged = true;
      stakes.blinds = blinds;
    } else if (stakes[field] !== v) {
      stakes[field] = v;
      stakesChanged = true;
    }
  }
  const settings = {};
  const now = t.settings || {};
  for (const key of ["action_clock", "pause", "starting_stack"]) {
    const raw = values[key];
    if (raw == null || raw === "" || !Number.isFinite(Number(raw))) continue;
    const v = key === "starting_stack" ? n(raw) : Math.max(0, Number(raw));
    if (now[key] !== v) settings[key] = v;
  }
  for (const key of ["rebuys", "approve_seats", ...Object.keys(HOUSE_RULES)]) {
    if (!(key in values)) continue;
    const v = values[key] === true || values[key] === "on" || values[key] === "true";
    const current = key === "rebuys" ? (t.host ? t.host.rebuys : now.rebuys !== false)
      : key === "approve_seats" ? (t.host ? t.host.approveSeats : !!now.approve_seats)
      : now[key] === true;
    if (v !== current) settings[key] = v;
  }
  const out = {};
  if (stakesChanged) out.stakes = stakes;
  if (Object.keys(settings).length) out.settings = settings;
  return Object.keys(out).length ? out : null;
}

/** The create form's home-game fields -> `{private, settings}` to merge into `create_table`. */
export function homeCreateFields(values) {
  if (!values.private) return {};
  const settings = { approve_seats: !!values.approve_seats, rebuys: !!values.rebuys };
  for (const key of Object.keys(HOUSE_RULES)) { // off unless ticked (Hold'em and Manila only)
    if (values[key] && houseRuleFor(key, values.variant)) settings[key] = true;
  }
  const stack = Math.round(Number(values.starting_stack));
  if (values.starting_stack !== "" && values.starting_stack != null && stack > 0) settings.starting_stack = stack;
  const clock = Number(values.action_clock);
  if (values.action_clock !== "" && values.action_clock != null && clock > 0) settings.action_clock = clock;
  return { private: true, settings };
}
