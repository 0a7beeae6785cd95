// The page: wires the socket (js/socket.js), the state (js/state.js) and the DOM (js/ui/*).
//
// Rule of this module: every server message goes through `dispatch` into the pure reducer;
// rendering reads `store.state` only. Routes (shareable): `#/` lobby, `#/table/<id>` play,
// `#/table/<id>/watch` spectate. Test hook: `window.__poker` ({socket, store}).

import { plainError } from "./errors.js";
import { bigBet, chips, jackpotTermsText } from "./format.js";
import { PokerSocket } from "./socket.js";
import { initialState, maxBet, reduce } from "./state.js";
import { actionsHTML, bindActions, bindShortcuts, preActionFor, preActionsHTML, streetKey } from "./ui/actions.js";
import { chatHTML } from "./ui/chat.js";
import { $, esc, setHTML, show } from "./ui/dom.js";
import { localHistoryHTML, serverHistoryHTML } from "./ui/history.js";
import { createRequest, lobbyFormsHTML, meHTML, syncCreateForm, tableListHTML } from "./ui/lobby.js";
import { feltHTML, tickClocks, titleText } from "./ui/table.js";

// The session token lives in localStorage: every tab of this browser is the same player
// (multi-tabling), and "Log out" ends it for all of them.
const TOKEN_KEY = "poker.token";
const tokenStore = {
  get() {
    try { return localStorage.getItem(TOKEN_KEY) || sessionStorage.getItem(TOKEN_KEY); } catch { return null; }
  },
  set(token) {
    try { localStorage.setItem(TOKEN_KEY, token); } catch { /* private mode */ }
  },
  clear() {
    try { localStorage.removeItem(TOKEN_KEY); sessionStorage.removeItem(TOKEN_KEY); } catch { /* private mode */ }
  },
};
// Pacing (ms): after these events the next paced one waits, so an all-in run-out comes card by
// card and the result stays up before the next hand starts.
export const GAP_AFTER = { board: 1000, showdown: 700, mucked: 300, dealer: 900, pot_awarded: 700,
  settled: 500, hand_ended: 4000 };
const PACED = new Set(["board", "showdown", "mucked", "pot_awarded", "hand_ended", "settled",
  "hand_started", "dealer", "jackpot"]);
const LOBBY_POLL_MS = 3000;

const store = { state: initialState() };
let route = { view: "lobby" };
let renderQueued = false;
let actionsKey = "";
let serverHistory = null; // null: not asked / unsupported; else the hands
let lastAnnounced = "";
let bannerTimer = null;
let shownError = ""; // the key of the state the #act-error text belongs to
let jackpotTerms = null; // the house's Caribbean terms, from a lobby entry
// a pre-action: {choice, street, bet}: "check" ends when the bet changes; all end with the street
let preAction = null;

// ------------------------------------------------------------------ pacing
const queue = [];
let holdUntil = 0;
let queueTimer = null;

function receive(msg) {
  queue.push(msg);
  pump();
}

function pump() {
  if (queueTimer) return;
  while (queue.length) {
    const msg = queue[0];
    const wait = holdUntil - Date.now();
    const paced = PACED.has(msg.type) && (msg.type !== "jackpot" || msg.table);
    if (wait > 0 && paced) {
      queueTimer = setTimeout(() => { queueTimer = null; pump(); }, wait);
      return;
    }
    queue.shift();
    dispatch(msg);
    const t = store.state.table;
    if (GAP_AFTER[msg.type] && t && msg.table === t.id) {
      // a Caribbean dealer's up card needs no pause; the reveal (with its hand) does
      if (msg.type !== "dealer" || msg.hand) holdUntil = Date.now() + GAP_AFTER[msg.type];
    }
    if (msg.type === "snapshot") holdUntil = 0;
  }
}

// ------------------------------------------------------------------ a reload keeps what this
// tab saw of the table (chat, the hand log, the last hands, the clock, "sitting out")
const SAVE_PREFIX = "poker.table.";
const restored = new Set();
let saveTimer = null;

function saveTable() {
  saveTimer = null;
  const t = store.state.table;
  if (!t) return;
  const mine = t.you != null ? t.seats[t.you] : null;
  const saved = { table: t.id, hand: t.hand, chat: t.chat, log: t.log, history: t.history.slice(0, 5),
    turns: t.turns, you: t.you, sittingOut: !!(mine && mine.sittingOut) };
  try { sessionStorage.setItem(SAVE_PREFIX + t.id, JSON.stringify(saved)); } catch { /* full */ }
}

function loadSaved(id) {
  try { return JSON.parse(sessionStorage.getItem(SAVE_PREFIX + id) || "null"); } catch { return null; }
}

function dispatch(msg) {
  store.state = reduce(store.state, msg);
  const open = store.state.table;
  if (msg.type === "snapshot" && open && open.id === msg.table && !restored.has(msg.table)) {
    restored.add(msg.table);
    const saved = loadSaved(msg.table);
    if (saved) store.state = reduce(store.state, { type: "local:restore", saved });
  }
  if (open && msg.table === open.id && !saveTimer) saveTimer = setTimeout(saveTable, 300);
  if (msg.type === "hand_ended" && $("#history-panel").open && store.state.table &&
      msg.table === store.state.table.id) {
    loadHistory(msg.table);
  }
  if (msg.type === "welcome") tokenStore.set(msg.token);
  if (msg.type === "table_closed" && route.view === "table" && msg.table === route.id) {
    dispatch({ type: "local:gone", table: msg.table });
  }
  if (!renderQueued) {
    renderQueued = true;
    requestAnimationFrame(() => {
      renderQueued = false;
      render();
    });
  }
}

const wsUrl = `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws`;
const socket = new PokerSocket(wsUrl, {
  onMessage: receive,
  onStatus: (status) => {
    window.__poker.statuses.push(status);
    dispatch({ type: "local:status", status });
  },
});
window.__poker = { socket, store, dispatch, statuses: [] };

function describe(answer) {
  return plainError(answer);
}

/** A refusal of the action bar: shown next to it until the table moves on. */
function actError(text) {
  const el = $("#act-error");
  el.textContent = text;
  shownError = text ? actionsKey : "";
}

// ------------------------------------------------------------------ routing
function parseRoute() {
  const m = location.hash.match(/^#\/table\/([^/]+)(\/watch)?$/);
  if (m) return { view: "table", id: decodeURIComponent(m[1]), watch: !!m[2] };
  return { view: "lobby" };
}

async function onRoute() {
  const next = parseRoute();
  const prev = route;
  route = next;
  if (prev.view !== next.view || prev.id !== next.id) {
    actError("");
    $("#chat-error").textContent = "";
  }
  if (prev.view === "table" && (next.view !== "table" || next.id !== prev.id)) {
    const t = store.state.table;
    if (!t || t.you == null) await socket.request("unwatch", { table: prev.id });
    socket.unfollow(prev.id);
    dispatch({ type: "local:close_table" });
  }
  if (next.view === "table" && (prev.view !== "table" || prev.id !== next.id)) {
    openTable(next.id);
  }
  if (next.view === "lobby") refreshTables();
  actionsKey = "";
  render();
}

async function openTable(id) {
  dispatch({ type: "local:open_table", table: id });
  socket.follow(id);
  serverHistory = null;
  const answer = await socket.request("watch", { table: id });
  if (answer.type === "error") {
    if (answer.code === "unknown_table" || answer.code === "table_closed") {
      socket.unfollow(id);
      dispatch({ type: "local:gone", table: id });
    } else {
      showBanner(`That table could not be opened: ${describe(answer)}`, 4000);
      location.hash = "#/";
    }
    return;
  }
  loadHistory(id);
  loadMeter();
}

/** The jackpot meter and the house's terms when the lobby was not seen first (a shared link,
 * a reload): one Caribbean lobby entry carries both. */
async function loadMeter() {
  if (store.state.jackpot && jackpotTerms) return;
  const answer = await socket.request("tables", { variant: "caribbean", limit: 1 });
  if (answer.type !== "ok" || !Array.isArray(answer.tables)) return;
  const entry = answer.tables.find((t) => t && t.jackpot_terms);
  if (entry) jackpotTerms = entry.jackpot_terms;
  if (!store.state.jackpot && answer.tables.some((t) => t && t.jackpot)) {
    dispatch({ type: "local:meter", tables: answer.tables });
  } else {
    render();
  }
}

async function loadHistory(id, tries = 0) {
  if (!store.state.me || !id) return;
  const answer = await socket.request("history", { table: id, limit: 10 });
  serverHistory = answer.type === "ok" && Array.isArray(answer.hands) ? answer.hands : null;
  render();
  // The server stores a hand just after announcing its end: ask again for one we just played.
  const t = store.state.table;
  const last = t && t.id === id && t.history[0] ? t.history[0].hand : null;
  if (serverHistory && last && t.you != null && tries < 8 &&
      !serverHistory.some((h) => h.hand === last)) {
    setTimeout(() => loadHistory(id, tries + 1), 250);
  }
}

async function loadHand(el) {
  const pre = el.querySelector(".hand-text");
  const answer = await socket.request("hand", { hand: el.dataset.serverHand, format: "pokerstars" });
  pre.textContent = answer.type === "ok" && typeof answer.text === "string" ? answer.text : describe(answer);
}

// ------------------------------------------------------------------ lobby
// The lobby is paged and filtered by the server: `lobbyQuery.cursors[i]` starts page i.
const lobbyQuery = { variant: "", cursors: [null], page: 0, next: null, total: 0 };

async function refreshTables() {
  if (socket.status !== "online") return;
  const fields = {};
  if (lobbyQuery.variant) fields.variant = lobbyQuery.variant;
  const cursor = lobbyQuery.cursors[lobbyQuery.page];
  if (cursor) fields.cursor = cursor;
  const answer = await socket.request("tables", fields);
  if (answer.type !== "ok") return;
  lobbyQuery.next = answer.next ?? null;
  lobbyQuery.total = typeof answer.total === "number" ? answer.total : answer.tables.length;
  dispatch({ type: "local:tables", tables: answer.tables });
  const entry = answer.tables.find((t) => t && t.jackpot_terms);
  if (entry) jackpotTerms = entry.jackpot_terms;
}

function setupLobbyPaging() {
  const select = $("#lobby-variant");
  select.innerHTML = `<option value="">All games</option>` + lobbyFormsHTML().variants;
  select.addEventListener("change", () => {
    Object.assign(lobbyQuery, { variant: select.value, cursors: [null], page: 0 });
    refreshTables();
  });
  $("#lobby-prev").addEventListener("click", () => {
    if (lobbyQuery.page > 0) lobbyQuery.page -= 1;
    refreshTables();
  });
  $("#lobby-next").addEventListener("click", () => {
    if (!lobbyQuery.next) return;
    lobbyQuery.cursors[lobbyQuery.page + 1] = lobbyQuery.next;
    lobbyQuery.page += 1;
    refreshTables();
  });
}

async function hello(fields, errorEl) {
  const answer = await socket.request("hello", fields);
  if (answer.type === "error") {
    errorEl.textContent = describe(answer);
    return false;
  }
  errorEl.textContent = "";
  return true;
}

async function account(kind) {
  const form = $("#hello-form");
  const errorEl = $("#hello-error");
  const name = form.elements.name.value.trim();
  const password = form.elements.password.value;
  if (!name || !password) {
    errorEl.textContent = "Enter a name and a password.";
    return;
  }
  const answer = await socket.request(kind, { name, password });
  if (answer.type === "ok") {
    errorEl.textContent = "";
    return;
  }
  if (answer.code === "unsupported") {
    errorEl.textContent = `${kind === "login" ? "Logging in" : "Registering"} is not available on this server yet: play as a guest.`;
    return;
  }
  errorEl.textContent = describe(answer);
}

function setupLobby() {
  setupLobbyPaging();
  const { variants, structures, stakeInputs } = lobbyFormsHTML();
  $("#create-variant").innerHTML = variants;
  $("#create-structure").innerHTML = structures;
  $("#stake-inputs").innerHTML = stakeInputs;
  const form = $("#create-form");
  syncCreateForm(form);
  form.addEventListener("change", (ev) => {
    $("#create-error").textContent = ""; // the problem it named may be gone
    if (ev.target.name === "structure") form.dataset.touched = "1";
    syncCreateForm(form);
  });
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const values = Object.fromEntries(new FormData(form).entries());
    const answer = await socket.request("create_table", createRequest(values));
    if (answer.type === "error") {
      $("#create-error").textContent = describe(answer);
      return;
    }
    $("#create-error").textContent = "";
    location.hash = `#/table/${encodeURIComponent(answer.table)}`;
  });
  $("#hello-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const name = $("#hello-name").value.trim();
    if (name) hello({ guest: name }, $("#hello-error"));
  });
  $("#login-btn").addEventListener("click", () => account("login"));
  // logout revokes this session's token on the server; the server then closes the socket
  $("#me").addEventListener("click", async (ev) => {
    if (!(ev.target instanceof Element) || ev.target.id !== "logout-btn") return;
    tokenStore.clear();
    try { await socket.request("logout", {}); } catch { /* already gone */ }
    location.reload();
  });
  $("#register-btn").addEventListener("click", () => account("register"));
}

// ------------------------------------------------------------------ table
function openSitPanel(seat) {
  const t = store.state.table;
  if (!t) return;
  const bb = bigBet(t.variant, t.stakes);
  const lo = t.settings.min_buy_in ?? 20 * bb;
  const hi = t.settings.max_buy_in ?? 100 * bb;
  const balance = store.state.me ? Math.max(0, store.state.me.balance) : hi;
  const input = $("#buy-in");
  input.min = String(lo);
  input.max = String(hi);
  input.value = String(Math.max(lo, Math.min(hi, balance, 50 * bb)));
  $("#buy-in-hint").textContent = `Between ${chips(lo)} and ${chips(hi)}; you have ${chips(balance)}.`;
  $("#sit-seat").textContent = String(seat + 1);
  $("#sit-panel").dataset.seat = String(seat);
  $("#sit-error").textContent = "";
  show($("#sit-panel"), true);
  input.focus();
}

async function sendAct(action, fields) {
  const t = store.state.table;
  if (!t) return;
  if (action === "draw") dispatch({ type: "local:discard", table: t.id, cards: fields.discard });
  const answer = await socket.request("act", { table: t.id, action, ...fields });
  if (answer.type === "error") {
    // offer the buttons again (the same HTML: force the redraw, the old one is disabled)
    actionsKey = "";
    $("#actions").__html = null;
    render();
    actError(describe(answer));
  } else {
    actError("");
  }
}

function setupTable() {
  const felt = $("#felt");
  felt.addEventListener("click", (ev) => {
    const sit = ev.target.closest("[data-sit]");
    if (sit) openSitPanel(Number(sit.dataset.sit));
  });
  $("#sit-panel").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const t = store.state.table;
    const seat = Number($("#sit-panel").dataset.seat);
    const buyIn = Math.round(Number($("#buy-in").value));
    const answer = await socket.request("sit", { table: t.id, seat, buy_in: buyIn });
    if (answer.type === "error") {
      $("#sit-error").textContent = describe(answer);
      return;
    }
    dispatch({ type: "local:balance", delta: -buyIn });
    show($("#sit-panel"), false);
  });
  $("#sit-cancel").addEventListener("click", () => show($("#sit-panel"), false));
  $("#leave-btn").addEventListener("click", async () => {
    const t = store.state.table;
    if (!t) return;
    const answer = await socket.request("leave", { table: t.id });
    const inHand = t.hand != null && !t.ended;
    showBanner(answer.type !== "ok" ? describe(answer) : inHand
      ? "You leave at the end of this hand; your chips then go back to your balance."
      : "You left the table; your chips are back in your balance.", 3000);
  });
  $("#sitout-btn").addEventListener("click", async () => {
    const t = store.state.table;
    if (!t || t.you == null) return;
    const out = t.seats[t.you] && t.seats[t.you].sittingOut;
    const answer = await socket.request(out ? "sit_in" : "sit_out", { table: t.id });
    if (answer.type === "error") actError(describe(answer));
  });
  $("#share-btn").addEventListener("click", async () => {
    const t = store.state.table;
    if (!t) return;
    const link = `${location.origin}/#/table/${encodeURIComponent(t.id)}/watch`;
    try {
      await navigator.clipboard.writeText(link);
      showBanner(`Copied: ${link}`, 3000);
    } catch {
      showBanner(`Share this link: ${link}`, 8000);
    }
  });
  for (const [form, input] of [["#table-hello", "#table-hello-name"], ["#chat-hello", "#chat-hello-name"]]) {
    $(form).addEventListener("submit", (ev) => {
      ev.preventDefault();
      const name = $(input).value.trim();
      if (name) hello({ guest: name }, $("#act-error"));
    });
  }
  $("#chat-lines").addEventListener("click", async (ev) => {
    const btn = ev.target.closest && ev.target.closest("button.mute");
    const t = store.state.table;
    if (!btn || !t) return;
    const fields = { table: t.id, on: true };
    if (btn.dataset.muteSeat != null) fields.seat = Number(btn.dataset.muteSeat);
    else fields.name = btn.dataset.muteName;
    const answer = await socket.request("mute", fields);
    if (answer.type === "error") actError(describe(answer));
    else showBanner("Muted: you will not see their chat any more.", 3000);
  });
  $("#chat-form").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const input = $("#chat-input");
    const text = input.value.trim();
    const t = store.state.table;
    if (!text || !t) return;
    const answer = await socket.request("chat", { table: t.id, text });
    $("#chat-error").textContent = answer.type === "error" ? describe(answer) : "";
    if (answer.type !== "error") input.value = "";
  });
  $("#history-panel").addEventListener("toggle", (ev) => {
    const el = ev.target;
    if (el.id === "history-panel" && el.open) loadHistory(store.state.table && store.state.table.id);
    if (el.dataset && el.dataset.serverHand && el.open) loadHand(el);
  }, true);
  bindActions($("#actions"), sendAct);
  bindShortcuts($("#actions"));
  $("#preactions").addEventListener("click", (ev) => {
    const btn = ev.target.closest("[data-pre]");
    const t = store.state.table;
    if (!btn || !t) return;
    const choice = btn.dataset.pre;
    preAction = preAction && preAction.choice === choice ? null
      : { choice, street: streetKey(t), bet: maxBet(t) };
    render();
  });
}

// ------------------------------------------------------------------ rendering
function showBanner(text, ms) {
  const banner = $("#banner");
  banner.textContent = text;
  banner.className = "banner info";
  show(banner, true);
  clearTimeout(bannerTimer);
  if (ms) bannerTimer = setTimeout(() => renderBanner(true), ms);
}

let wasOffline = false;
function renderBanner(force = false) {
  const status = store.state.status;
  const banner = $("#banner");
  if (status === "reconnecting" || status === "offline") {
    wasOffline = true;
    clearTimeout(bannerTimer);
    banner.textContent = "Connection lost \u2014 reconnecting\u2026";
    banner.className = "banner warn";
    banner.dataset.status = status;
    show(banner, true);
  } else if (wasOffline && status === "online") {
    wasOffline = false;
    banner.textContent = "Reconnected.";
    banner.className = "banner ok";
    banner.dataset.status = "online";
    show(banner, true);
    clearTimeout(bannerTimer);
    bannerTimer = setTimeout(() => renderBanner(true), 2000);
  } else if (force) {
    show(banner, false);
  }
}

function renderTop(state) {
  const jp = state.jackpot;
  $("#jackpot-pool").textContent = jp ? chips(jp.pool) : "\u2014";
  show($("#jackpot"), !!jp); // unknown until a Caribbean table or the lobby tells
  $("#jackpot-split").textContent = jp && jp.major != null ? `major ${chips(jp.major)} · minor ${chips(jp.minor)}` : "";
  setHTML($("#me"), meHTML(state.me));
  const win = $("#jackpot-win");
  if (state.jackpotWin) {
    // the amount may come a moment later (the payout, from the pool's drop): redrawn then
    const w = state.jackpotWin;
    const what = `hits the jackpot${w.hand ? ` with ${esc(w.hand)}` : ""}${w.amount ? ` and wins ${chips(w.amount)}` : ""}`;
    setHTML(win, `<div class="burst"><p class="big">JACKPOT!</p><p>${esc(w.name)} ${what}</p></div>`);
  }
  if (state.jackpotWin && win.hidden && !win.dataset.shown) {
    win.dataset.shown = "1";
    show(win, true);
    setTimeout(() => {
      delete win.dataset.shown;
      show(win, false);
      dispatch({ type: "local:seen_jackpot_win" });
    }, 6000);
  }
}

function renderLobby(state) {
  show($("#hello"), !state.me);
  setHTML($("#table-list"), tableListHTML(state.tables, state.me));
  $("#lobby-page").textContent = lobbyQuery.total
    ? `Page ${lobbyQuery.page + 1} \u00b7 ${lobbyQuery.total} table${lobbyQuery.total === 1 ? "" : "s"}`
    : "";
  $("#lobby-prev").disabled = lobbyQuery.page === 0;
  $("#lobby-next").disabled = !lobbyQuery.next;
}

function renderTable(state) {
  const t = state.table;
  const gone = state.gone && state.gone.table === route.id;
  show($("#gone"), gone);
  show($("#table-main"), !gone);
  if (gone) {
    $("#table-title").textContent = "Table closed";
    $("#table-meta").textContent = "";
    for (const id of ["#leave-btn", "#sitout-btn", "#watch-badge", "#share-btn"]) show($(id), false);
    setHTML($("#actions"), "");
    return;
  }
  show($("#share-btn"), true);
  if (!t) {
    setHTML($("#felt"), `<p class="loading">Loading the table\u2026</p>`);
    setHTML($("#actions"), "");
    return;
  }
  const { title, meta } = titleText(t);
  $("#table-title").textContent = title;
  $("#table-meta").textContent = meta;
  const watch = route.watch;
  show($("#watch-badge"), watch || t.you == null);
  $("#watch-badge").textContent = watch ? "Watching" : "Not seated";
  show($("#leave-btn"), t.you != null);
  const mySeat = t.you != null ? t.seats[t.you] : null;
  show($("#sitout-btn"), !!mySeat);
  if (mySeat) {
    $("#sitout-btn").textContent = mySeat.sittingOut ? "I'm back" : "Sit out";
    $("#sitout-btn").setAttribute("aria-pressed", mySeat.sittingOut ? "true" : "false");
  }
  $("#table-view").dataset.seats = String(t.seatCount);
  show($("#table-hello"), !state.me && !watch);
  show($("#chat-hello"), !state.me);
  show($("#chat-form"), !!state.me);
  const canSit = !watch && !!state.me && t.you == null;
  const felt = $("#felt");
  const narrow = window.matchMedia("(max-width: 600px)").matches
    ? { w: felt.clientWidth || 284, h: felt.clientHeight || 540 } : null;
  setHTML(felt, feltHTML(t, { canSit, watch, now: socket.serverNow(), narrow }));
  $("#felt").classList.toggle("caribbean", t.variant === "caribbean");
  const turn = t.you != null && t.turns ? t.turns[t.you] : null;
  const key = turn && !t.ended ? `${t.id}:${t.hand}:${turn.seq ?? "s"}:${turn.in_bank}` : "none";
  // a pre-action that no longer applies goes; on the turn, one that applies is sent
  if (preAction && (preAction.street !== streetKey(t) ||
      (preAction.choice === "check" && maxBet(t) !== preAction.bet))) preAction = null;
  if (key !== "none" && key !== actionsKey && preAction && turn.options) {
    const action = preActionFor(preAction.choice, turn.options);
    preAction = null;
    if (action) {
      actionsKey = key;
      setHTML($("#actions"), "");
      $("#sr-turn").textContent = `Your turn: ${action} (chosen before).`;
      sendAct(action, {});
      setHTML($("#preactions"), "");
      return renderTableRest(state, t);
    }
  }
  setHTML($("#preactions"), preActionsHTML(t, preAction ? preAction.choice : null));
  if (key !== actionsKey) {
    const mine = key !== "none" && !actionsKey.startsWith(`${t.id}:${t.hand}:`);
    actionsKey = key;
    setHTML($("#actions"), actionsHTML(t));
    $("#actions").classList.toggle("live", key !== "none");
    if (shownError) actError(""); // the table moved on: a refusal of before no longer applies
    if (mine || key !== "none") $("#sr-turn").textContent = key !== "none" ? "Your turn." : "";
  }
  $("#table-view").classList.toggle("my-turn", key !== "none");
  renderTableRest(state, t);
}

function renderTableRest(state, t) {
  setHTML($("#paytable"), t.variant === "caribbean" && jackpotTerms
    ? `<strong>Jackpot paytable</strong> ${esc(jackpotTermsText(jackpotTerms))}` : "");
  setHTML($("#announcements"), t.announcements.map((a) => `<p>${esc(a)}</p>`).join(""));
  // screen readers hear each action and result as it happens (the hand log's latest line)
  const latest = `${t.log.length}:${t.log[t.log.length - 1] || ""}`;
  if (t.log.length && latest !== lastAnnounced) {
    lastAnnounced = latest;
    $("#sr-announce").textContent = t.log[t.log.length - 1];
  }
  setHTML($("#chat-lines"), chatHTML(t.chat, t.you ?? null, state.me ? state.me.name : null));
  show($("#server-history"), !!serverHistory);
  if (serverHistory) setHTML($("#server-history-list"), serverHistoryHTML(serverHistory));
  $("#history-note").textContent = serverHistory
    ? "Hands this browser saw at this table:"
    : "Hands this browser saw at this table (the server keeps no history of yours here):";
  setHTML($("#history-list"), localHistoryHTML(t.history));
  setHTML($("#hand-log"), t.log.map((l) => `<li>${esc(l)}</li>`).join(""));
}

function render() {
  const state = store.state;
  renderBanner();
  renderTop(state);
  show($("#lobby"), route.view === "lobby");
  show($("#table-view"), route.view === "table");
  if (route.view === "lobby") renderLobby(state);
  else renderTable(state);
  document.body.dataset.view = route.view;
  document.body.dataset.status = state.status;
}

// ------------------------------------------------------------------ boot
async function boot() {
  setupLobby();
  setupTable();
  window.addEventListener("hashchange", onRoute);
  window.addEventListener("pagehide", saveTable); // a reload: what was seen last is kept
  setInterval(() => {
    if (route.view === "lobby") refreshTables();
  }, LOBBY_POLL_MS);
  setInterval(() => tickClocks($("#felt"), socket.serverNow()), 250);
  render();
  try {
    await socket.connect();
  } catch {
    /* the socket retries by itself */
  }
  const token = tokenStore.get();
  if (token) {
    const answer = await socket.request("hello", { token });
    if (answer.type !== "ok" && answer.code === "bad_token") tokenStore.clear();
  }
  route = { view: "lobby" };
  await onRoute();
  document.body.dataset.ready = "1";
}

boot();
