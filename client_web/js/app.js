// The page: wires the socket (js/socket.js), the state (js/state.js) and the DOM (js/ui/*).
//
// Rule of this module: every server message goes through `dispatch` (js/page.js) into the
// pure reducer and comes back here on js/bus.js (DISPATCHED); rendering reads `store.state`
// only. Nothing is handed to the modules below at boot: they import what they call, and a
// redraw they need is asked on the bus (RENDER). Routes (shareable): `#/` lobby, `#/table/<id>` play,
// `#/table/<id>/watch` spectate; a private game's invite adds `?code=<code>` (js/home.js). Several tables at once: a table left for another (or for
// the lobby) stays followed in the background ("my tables", `state.background`) until
// closed in the strip. Test hook: `window.__poker` ({socket, store, dispatch, statuses,
// sounds, notifier}).

import { actError, renderBanner, showBanner } from "./banner.js";
import { DISPATCHED, on, RENDER } from "./bus.js";
import { plainError } from "./errors.js";
import { loadHistory, setupHistory } from "./history-page.js";
import { isPrivateId, parseRoute as routeOf } from "./home.js";
import { codes, homeMessage, renderHome, setupHost } from "./host-page.js";
import { refreshTables, renderLobby, setupLobby } from "./lobby-page.js";
import { createPacer } from "./pacing.js";
import { loadMyTables, loadSaved, saveMyTables, saveTable, tokenStore } from "./session.js";
import { actionSound, Sound } from "./sound.js";
import { loadPrefs, prefsHTML, savePref } from "./prefs.js";
import { myTables, myTurn, reduce } from "./state.js";
import { TurnNotifier } from "./notify.js";
import { dispatch, page, store } from "./page.js";
import { PokerSocket } from "./socket.js";
import { renderTable, renderTop } from "./table-render.js";
import { setupTable } from "./table-page.js";
import { tournamentRoute } from "./tournament-format.js";
import { renderTournaments, setupTournaments, tournamentRouted } from "./tournament-page.js";
import { $, setHTML, show } from "./ui/dom.js";
import { stripHTML } from "./ui/strip.js";
import { tickClocks } from "./ui/table.js";

export { GAP_AFTER } from "./pacing.js";

const LOBBY_POLL_MS = 3000;
const CLOCK_WARN_S = 5; // the last seconds of your clock tick aloud
const restored = new Set();
let renderQueued = false;
let saveTimer = null;
let turnsSeen = new Set(); // "table:hand:seq" of my turns already announced by sound

const openId = () => (store.state.table ? store.state.table.id : store.state.opening);

function saveOpenTable() {
  saveTimer = null;
  saveTable(store.state.table);
}

/** Sounds and the tab's flashing for what `msg` did (after the reducer applied it). */
function react(msg) {
  const open = msg.table && msg.table === openId();
  if (open && msg.type === "acted") {
    const name = actionSound(msg.action);
    if (name) page.sound.play(name);
  }
  const t = store.state.table;
  if (open && msg.type === "pot_awarded" && t && t.you != null && msg.winners &&
      msg.winners[String(t.you)] != null) page.sound.play("win");
  const now = new Set();
  for (const tb of [store.state.table, ...Object.values(store.state.background)]) {
    if (myTurn(tb)) now.add(`${tb.id}:${tb.hand}:${tb.turns[tb.you].seq ?? "s"}`);
  }
  const fresh = [...now].some((k) => !turnsSeen.has(k));
  turnsSeen = now;
  if (fresh) {
    page.sound.play("turn");
    page.notifier.turnStarted();
  }
  page.notifier.update(now.size > 0);
}

/** After `dispatch(msg)` (js/page.js) applied `msg`: restoring, saving, sounds, the redraw. */
function dispatched(msg) {
  const open = store.state.table;
  if (msg.type === "snapshot" && open && open.id === msg.table && !restored.has(msg.table)) {
    restored.add(msg.table);
    const saved = loadSaved(msg.table);
    if (saved) store.state = reduce(store.state, { type: "local:restore", saved });
  }
  if (open && msg.table === open.id && !saveTimer) saveTimer = setTimeout(saveOpenTable, 300);
  if (msg.type === "hand_ended" && $("#history-panel").open && open && msg.table === open.id) {
    loadHistory(msg.table);
  }
  if (msg.type === "welcome") tokenStore.set(msg.token);
  if (msg.type === "snapshot") rememberMyTables(); // the names, once known
  if (msg.type === "table_closed" && page.route.view === "table" && msg.table === page.route.id) {
    dispatch({ type: "local:gone", table: msg.table });
  }
  react(msg);
  homeMessage(msg);
  if (!renderQueued) {
    renderQueued = true;
    requestAnimationFrame(() => {
      renderQueued = false;
      render();
    });
  }
}

// ------------------------------------------------------------------ routing
function parseRoute() {
  return tournamentRoute(location.hash, location.search) || routeOf(location.hash);
}

/** The invite code to bring to table `id` (the link's, else the one kept for it). */
function codeFor(id, route) {
  if (route && route.code) codes.set(id, route.code);
  return (route && route.code) || codes.get(id);
}

/** `fields` with the table's invite code, when this browser has one. */
function withCode(id, fields, route) {
  const code = codeFor(id, route);
  page.socket.codes.set(id, code);
  return code ? { ...fields, code } : fields;
}

async function onRoute() {
  const next = parseRoute();
  const prev = page.route;
  page.route = next;
  if (prev.view !== next.view || prev.id !== next.id) {
    actError("");
    $("#chat-error").textContent = "";
    show($("#sit-panel"), false);
  }
  const leaving = prev.view === "table" && (next.view !== "table" || next.id !== prev.id);
  if (leaving && next.view !== "table") dispatch({ type: "local:close_table", keep: !!store.state.table });
  if (next.view === "table" && (prev.view !== "table" || prev.id !== next.id)) {
    openTable(next.id, next.watch, next);
  }
  if (next.view === "lobby") refreshTables();
  tournamentRouted(prev, next);
  page.actionsKey = "";
  render();
}

async function openTable(id, watch, route) {
  dispatch({ type: "local:open_table", table: id, keep: true });
  dispatch({ type: "local:home_private", table: null });
  page.socket.follow(id);
  page.watchRoutes[id] = !!watch;
  page.serverHistory = null;
  rememberMyTables();
  const answer = await page.socket.request("watch", withCode(id, { table: id }, route));
  if (answer.type === "error") {
    if (answer.code === "unknown_table" && isPrivateId(id)) { // a private game, no (valid) code
      page.socket.unfollow(id);
      codes.forget(id);
      dispatch({ type: "local:home_private", table: id });
    } else if (answer.code === "unknown_table" || answer.code === "table_closed") {
      page.socket.unfollow(id);
      dispatch({ type: "local:gone", table: id });
    } else {
      showBanner(`That table could not be opened: ${plainError(answer)}`, 4000);
      location.hash = "#/";
    }
    return;
  }
  loadHistory(id);
  loadMeter();
}

/** Stop following a table of the strip (only one not sat at: a seat is left with Leave). */
async function forgetTable(id) {
  page.socket.unfollow(id);
  dispatch({ type: "local:forget_table", table: id });
  rememberMyTables();
  await page.socket.request("unwatch", { table: id });
}

function rememberMyTables() {
  const list = myTables(store.state).map((t) => ({ id: t.id, name: t.name, watch: !!page.watchRoutes[t.id] }));
  const opening = store.state.opening;
  if (opening && !list.some((t) => t.id === opening)) {
    list.push({ id: opening, name: opening, watch: !!page.watchRoutes[opening] });
  }
  saveMyTables(list);
}

/** After a reload: the tables this tab followed come back into the strip. */
async function followSaved(saved) {
  for (const entry of saved) {
    if (entry.id === openId()) continue;
    page.watchRoutes[entry.id] = !!entry.watch;
    dispatch({ type: "local:follow", table: entry.id, name: entry.name });
    page.socket.follow(entry.id);
    const answer = await page.socket.request("watch", withCode(entry.id, { table: entry.id }));
    if (answer.type === "error") {
      page.socket.unfollow(entry.id);
      dispatch({ type: "local:forget_table", table: entry.id });
    }
  }
  rememberMyTables();
}

/** The jackpot meter and the house's terms when the lobby was not seen first (a shared link,
 * a reload): one Caribbean lobby entry carries both. */
async function loadMeter() {
  if (store.state.jackpot && page.jackpotTerms) return;
  const answer = await page.socket.request("tables", { variant: "caribbean", limit: 1 });
  if (answer.type !== "ok" || !Array.isArray(answer.tables)) return;
  const entry = answer.tables.find((t) => t && t.jackpot_terms);
  if (entry) page.jackpotTerms = entry.jackpot_terms;
  if (!store.state.jackpot && answer.tables.some((t) => t && t.jackpot)) {
    dispatch({ type: "local:meter", tables: answer.tables });
  } else {
    render();
  }
}

// ------------------------------------------------------------------ rendering
function renderStrip(state) {
  const tables = myTables(state).map((t) => ({ ...t, watch: !!page.watchRoutes[t.id] }));
  const many = tables.length > 1 || (tables.length === 1 && page.route.view !== "table");
  show($("#my-tables"), many);
  setHTML($("#my-tables-list"), many ? stripHTML(tables) : "");
}

/** The sound switch says its state ("Sound: on"), pressed while sound is on; a phone shows
 * only "♪ on" (the word stays for screen readers). */
function renderSoundSwitch() {
  const btn = $("#sound-btn");
  const soundOn = !page.sound.muted;
  btn.setAttribute("aria-pressed", soundOn ? "true" : "false");
  btn.title = soundOn ? "Sound is on: click to mute" : "Sound is off: click to turn it on";
  $(".sound-state", btn).textContent = soundOn ? "on" : "off";
}

/** The display preferences' page class (the felt reads `page.prefs` as it is drawn). */
function applyPrefs() {
  document.body.classList.toggle("four-color", !!page.prefs.fourColor);
}

function render() {
  const state = store.state;
  renderBanner();
  renderTop(state);
  renderStrip(state);
  renderSoundSwitch();
  show($("#lobby"), page.route.view === "lobby");
  show($("#table-view"), page.route.view === "table");
  if (page.route.view === "lobby") renderLobby(state);
  else if (page.route.view === "table") renderTable(state);
  renderHome(state);
  renderTournaments(state);
  document.body.dataset.view = page.route.view;
  document.body.dataset.status = state.status;
}

/** The last seconds of my clock at the open table: a tick a second. */
let lastTick = null;
function tickMyClock(now) {
  const t = store.state.table;
  const turn = myTurn(t) ? t.turns[t.you] : null;
  const left = turn && Number(turn.deadline) > 0 ? Math.ceil(turn.deadline - now) : null;
  if (left != null && left > 0 && left <= CLOCK_WARN_S && left !== lastTick) page.sound.play("clock");
  lastTick = left;
}

// ------------------------------------------------------------------ boot
function setupChrome() {
  $("#sound-btn").addEventListener("click", () => {
    page.sound.setMuted(!page.sound.muted);
    if (!page.sound.muted) page.sound.play("check"); // what it sounds like now
    render();
  });
  $("#prefs").addEventListener("change", (ev) => {
    const key = ev.target.dataset && ev.target.dataset.pref;
    if (!key) return;
    page.prefs = savePref(page.prefs, key, ev.target.checked);
    applyPrefs();
    render();
  });
  $("#my-tables-list").addEventListener("click", (ev) => {
    const b = ev.target.closest && ev.target.closest("[data-forget]");
    if (!b) return;
    ev.preventDefault();
    const id = b.dataset.forget;
    if (id === openId()) location.hash = "#/";
    forgetTable(id);
  });
}

async function boot() {
  on(DISPATCHED, dispatched);
  on(RENDER, render);
  const wsUrl = `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws`;
  const pacer = createPacer(dispatch, openId);
  page.socket = new PokerSocket(wsUrl, {
    onMessage: pacer,
    onStatus: (status) => {
      window.__poker.statuses.push(status);
      dispatch({ type: "local:status", status });
    },
  });
  page.sound = new Sound();
  page.prefs = loadPrefs();
  setHTML($("#prefs"), prefsHTML(page.prefs)); // drawn once: a click keeps its box and focus
  applyPrefs();
  page.notifier = new TurnNotifier();
  window.__poker = { socket: page.socket, store, dispatch, statuses: [], sounds: page.sound.played,
    notifier: page.notifier, app: page };
  setupLobby();
  setupTable();
  setupHistory();
  setupHost();
  setupTournaments();
  setupChrome();
  window.addEventListener("hashchange", onRoute);
  window.addEventListener("pagehide", saveOpenTable); // a reload: what was seen last is kept
  setInterval(() => { if (page.route.view === "lobby") refreshTables(); }, LOBBY_POLL_MS);
  setInterval(() => {
    const now = page.socket.serverNow();
    tickClocks($("#felt"), now);
    tickMyClock(now);
  }, 250);
  render();
  try {
    await page.socket.connect();
  } catch {
    /* the socket retries by itself */
  }
  const token = tokenStore.get();
  if (token) {
    const answer = await page.socket.request("hello", { token });
    if (answer.type !== "ok" && answer.code === "bad_token") tokenStore.clear();
  }
  const saved = loadMyTables();
  page.route = { view: "lobby" };
  await onRoute();
  await followSaved(saved);
  document.body.dataset.ready = "1";
}

boot();
