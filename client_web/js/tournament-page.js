// Tournaments in the browser (issue 27; docs/protocol.md "Tournaments"): the lobby's
// Tournaments tab (the list, its filters, Register / Unregister, the sit-and-go form), the
// tournament page (`#/tournament/<id>`, followed while shown), the bar above a tournament
// table, the seat moves the player follows without a click, and the finishing banner.
//
// Rule of this module: the tournaments' own state lives here (`tour`), fed by the messages
// `dispatch` passes on (js/bus.js DISPATCHED: `tournaments`, `tournament`, `tournament_seat`,
// `tournament_result`); the table itself stays the reducer's (js/state.js). A seat at a
// tournament table opens it by the route (`#/table/<id>`), as a click would; a redraw is
// asked on the bus (RENDER).

import { STRUCTURES, TOURNAMENT_GAMES, TOURNAMENT_STATES } from "../protocol.js";
import { showBanner } from "./banner.js";
import { DISPATCHED, emit, on, RENDER } from "./bus.js";
import { plainError } from "./errors.js";
import { STRUCTURE_NAMES } from "./format.js";
import { linkBase } from "./home.js";
import { hello } from "./lobby-page.js";
import { dispatch, page, store } from "./page.js";
import {
  clockLeft, clockText, inviteLink, seatNotice, sitAndGoRequest, STATE_NAMES, tournamentOfTable,
} from "./tournament-format.js";
import { $, $$, esc, setHTML, show } from "./ui/dom.js";
import {
  createFormOptions, resultBannerHTML, tournamentListHTML, tournamentPageHTML, tourneyBarHTML,
} from "./ui/tournaments.js";

const LIST_POLL_MS = 3000;

const tour = {
  list: [], // the lobby's `tournaments` entries
  filters: { state: "", game: "" },
  registered: new Set(), // tournament ids this player entered
  errors: {}, // tournament id -> the last refusal of the list's buttons, in words
  infos: new Map(), // tournament id -> {t: the last `tournament` message, reading: {left, at}}
  followed: new Set(), // tournaments followed (`tournament` with follow)
  tableOf: new Map(), // table id -> tournament id
  results: new Map(), // tournament id -> its `tournament_result`
  banner: null, // the tournament id whose finishing banner is up
  invites: new Map(), // tournament id -> its invite code (private)
  pageError: "",
  dropTable: null, // a tournament table left by a move: forgotten once the new one opens
  moved: new Map(), // table id -> why the player was moved there (TOUR-06, TOUR-08)
  lost: new Set(), // tournaments whose table went while the player was away: seat from `you`
};

/** The tournament a table belongs to (a seat told, a followed tournament's tables, its id). */
export function tournamentOf(tableId) {
  return tour.tableOf.get(tableId) || tournamentOfTable(tableId);
}

const signedIn = () => !!store.state.me;
const redraw = () => emit(RENDER);

// ------------------------------------------------------------------ requests
export async function refreshTournaments() {
  if (!page.socket || page.socket.status !== "online" || !signedIn()) return;
  const fields = {};
  if (tour.filters.state) fields.state = tour.filters.state;
  if (tour.filters.game) fields.game = tour.filters.game;
  await page.socket.request("tournaments", fields); // the list comes as a `tournaments` message
}

async function follow(id) {
  const invite = tour.invites.get(id);
  const answer = await page.socket.request("tournament", invite ? { tournament: id, follow: true, invite }
    : { tournament: id, follow: true });
  if (answer.type === "error") {
    tour.followed.delete(id);
    if (page.route.view === "tournament" && page.route.id === id) tour.pageError = plainError(answer);
  } else {
    tour.followed.add(id);
    if (page.route.id === id) tour.pageError = "";
  }
  redraw();
}

async function unfollow(id) {
  tour.followed.delete(id);
  await page.socket.request("unfollow_tournament", { tournament: id });
}

/** Register (or unregister) for `id`; the refusal in words, or "". */
async function entry(id, register) {
  if (!signedIn()) return "Sign in first (a guest name is enough) to register.";
  const invite = tour.invites.get(id);
  const fields = register && invite ? { tournament: id, invite } : { tournament: id };
  const answer = await page.socket.request(register ? "tournament_register" : "tournament_unregister", fields);
  if (answer.type === "ok" || answer.code === (register ? "already_registered" : "not_registered")) {
    if (register) tour.registered.add(id);
    else tour.registered.delete(id);
  }
  refreshTournaments();
  if (tour.followed.has(id)) follow(id);
  return answer.type === "ok" ? "" : plainError(answer);
}

const BUY_WORDS = {
  not_allowed: "Not possible now: the tournament's rebuys or add-on are not open for your stack.",
};

async function buyChips(id, kind) {
  const answer = await page.socket.request(kind, { tournament: id });
  tour.pageError = answer.type === "ok" ? "" : BUY_WORDS[answer.code] || plainError(answer);
  redraw();
}

// ------------------------------------------------------------------ messages
function seated(msg) {
  tour.tableOf.set(msg.table, msg.tournament);
  tour.registered.add(msg.tournament);
  showBanner(seatNotice(msg), 6000);
  if (msg.why === "balance" || msg.why === "break") tour.moved.set(msg.table, seatNotice(msg));
  if (!tour.followed.has(msg.tournament)) follow(msg.tournament);
  const here = page.route.view === "table" ? page.route.id : null;
  if (here === msg.table) return;
  if (here && tournamentOf(here) === msg.tournament) tour.dropTable = here;
  location.hash = `#/table/${encodeURIComponent(msg.table)}`;
}

function received(msg) {
  switch (msg.type) {
    case "tournaments":
      tour.list = Array.isArray(msg.tournaments) ? msg.tournaments : [];
      break;
    case "tournament": {
      tour.infos.set(msg.id, { t: msg, reading: { left: msg.clock_left, at: Date.now() } });
      if (msg.you && msg.you.entered) tour.registered.add(msg.id);
      else if (msg.state === "registering") tour.registered.delete(msg.id);
      for (const [table] of msg.tables || []) tour.tableOf.set(table, msg.id);
      if (msg.invite) tour.invites.set(msg.id, msg.invite);
      if (tour.lost.has(msg.id) && msg.you && msg.you.table && msg.you.place == null) {
        tour.lost.delete(msg.id); // (its `tournament_seat` went out while the player was away)
        seated({ tournament: msg.id, table: msg.you.table, seat: msg.you.seat, why: "away" });
        return;
      }
      break;
    }
    case "tournament_seat": seated(msg); break;
    case "tournament_result":
      tour.results.set(msg.tournament, msg);
      tour.banner = msg.tournament;
      if (tour.followed.has(msg.tournament)) follow(msg.tournament); // its places, now
      break;
    case "welcome": // signed in (or back): the tournament shown, the list
      if (page.route.view === "tournament") follow(page.route.id);
      if (page.route.view === "lobby" && page.route.tab === "tournaments") refreshTournaments();
      return;
    case "local:gone": { // a tournament table gone while away (broken meanwhile, or its
      const id = tour.tableOf.get(msg.table); // server lost): `you` says where the seat is
      if (id && tour.registered.has(id)) {
        tour.lost.add(id);
        follow(id);
      }
      return;
    }
    case "local:status":
      if (msg.status === "online") for (const id of tour.followed) follow(id); // after a drop
      return;
    default:
      return;
  }
  redraw();
}

// ------------------------------------------------------------------ setup
function setupList() {
  const state = $("#tourney-state");
  state.innerHTML = `<option value="">Any state</option>` +
    TOURNAMENT_STATES.map((s) => `<option value="${s}">${STATE_NAMES[s] || s}</option>`).join("");
  const opts = createFormOptions(TOURNAMENT_GAMES, STRUCTURES, STRUCTURE_NAMES);
  $("#tourney-game").innerHTML = `<option value="">All games</option>` + opts.games;
  for (const [el, key] of [[state, "state"], [$("#tourney-game"), "game"]]) {
    el.addEventListener("change", () => {
      tour.filters[key] = el.value;
      refreshTournaments();
    });
  }
  const clicks = async (ev) => {
    const b = ev.target.closest && ev.target.closest("[data-register],[data-unregister],[data-cancel],[data-rebuy],[data-add-on],[data-dismiss-result]");
    if (!b) return;
    const d = b.dataset;
    b.disabled = true;
    if (d.register || d.unregister) {
      const id = d.register || d.unregister;
      const error = await entry(id, !!d.register);
      if (error) tour.errors[id] = error;
      else delete tour.errors[id];
      if (page.route.view === "tournament") tour.pageError = error;
    } else if (d.cancel) {
      const answer = await page.socket.request("cancel_tournament", { tournament: d.cancel });
      tour.pageError = answer.type === "ok" ? "" : plainError(answer);
    } else if (d.rebuy) {
      await buyChips(d.rebuy, "tournament_rebuy");
    } else if (d.addOn) {
      await buyChips(d.addOn, "tournament_add_on");
    } else if (d.dismissResult) {
      tour.banner = null;
    }
    b.disabled = false;
    redraw();
  };
  for (const sel of ["#tourney-list", "#tourney-body", "#tourney-result"]) $(sel).addEventListener("click", clicks);
}

function setupCreate() {
  const form = $("#tcreate-form");
  $("#tcreate-copy").addEventListener("click", async () => {
    const link = $("#tcreate-invite");
    link.select();
    try {
      await navigator.clipboard.writeText(link.value);
      showBanner("Invite link copied.", 2500);
    } catch {
      showBanner("Select the link and copy it (this browser does not let the page do it).", 4000);
    }
  });
  const opts = createFormOptions(TOURNAMENT_GAMES, STRUCTURES, STRUCTURE_NAMES);
  form.elements.game.innerHTML = opts.games;
  form.elements.structure.innerHTML = opts.structures;
  form.elements.preset.innerHTML = opts.presets;
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const error = $("#tcreate-error");
    const values = Object.fromEntries(new FormData(form).entries());
    const { request, problems } = sitAndGoRequest(values);
    for (const el of $$("[data-problem]", form)) {
      const text = problems[el.dataset.problem] || "";
      el.textContent = text;
      show(el, !!text);
    }
    if (Object.keys(problems).length) return;
    if (!signedIn()) {
      error.textContent = "Sign in first (a guest name is enough) to create a tournament.";
      return;
    }
    const answer = await page.socket.request("create_tournament", request);
    if (answer.type === "error") {
      error.textContent = plainError(answer);
      return;
    }
    error.textContent = "";
    const id = answer.tournament;
    const link = $("#tcreate-invite");
    if (answer.invite) {
      tour.invites.set(id, answer.invite);
      const base = linkBase($("meta[name='poker-public-address']").content, location);
      link.value = inviteLink(base, id, answer.invite);
    }
    show($("#tcreate-invite-row"), !!answer.invite);
    if (values.play) {
      const refused = await entry(id, true);
      if (refused) tour.errors[id] = refused;
    }
    refreshTournaments();
    showBanner(`"${request.name}" is open for registration.`, 4000);
  });
}

/** Count the tournament clocks down between redraws. */
function tickClocks() {
  const now = Date.now();
  for (const el of $$(".tourney-clock")) {
    el.textContent = clockText(clockLeft(Number(el.dataset.left), Number(el.dataset.at), now));
  }
}

export function setupTournaments() {
  on(DISPATCHED, received);
  $("#tourney-hello").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const name = $("#tourney-hello-name").value.trim();
    if (name) hello({ guest: name }, $("#tourney-hello-error"));
  });
  setupList();
  setupCreate();
  setInterval(() => {
    if (page.route.view === "lobby" && page.route.tab === "tournaments") refreshTournaments();
  }, LIST_POLL_MS);
  setInterval(tickClocks, 500);
}

/** After each route change (js/app.js onRoute): follow the tournament shown, forget a table
 * left by a move. */
export function tournamentRouted(prev, next) {
  if (next.view === "tournament" && next.invite) tour.invites.set(next.id, next.invite);
  if (next.view === "tournament" && (prev.view !== "tournament" || prev.id !== next.id)) {
    tour.pageError = "";
    follow(next.id);
  }
  if (prev.view === "tournament" && (next.view !== "tournament" || next.id !== prev.id)) {
    const info = tour.infos.get(prev.id);
    const playing = info && info.t.you && info.t.you.stack != null && info.t.state === "running";
    if (!playing) unfollow(prev.id); // a tournament played in stays followed (its table's bar)
  }
  if (next.view === "lobby" && next.tab === "tournaments") refreshTournaments();
  const tableOf = next.view === "table" ? tournamentOf(next.id) : null;
  if (tableOf && !tour.followed.has(tableOf)) follow(tableOf); // its bar (a reload, a link)
  const drop = tour.dropTable;
  if (drop && next.view === "table" && next.id !== drop) {
    tour.dropTable = null;
    page.socket.unfollow(drop);
    dispatch({ type: "local:forget_table", table: drop });
    page.socket.request("unwatch", { table: drop });
  }
}

// ------------------------------------------------------------------ rendering
function renderList() {
  setHTML($("#tourney-list"), tournamentListHTML(tour.list, tour.registered, tour.errors));
  $("#tourney-signin").hidden = signedIn();
}

function renderPage() {
  const id = page.route.id;
  const info = tour.infos.get(id);
  const invite = info && info.t.invite;
  const base = linkBase($("meta[name='poker-public-address']").content, location);
  if (!info) {
    setHTML($("#tourney-body"), tour.pageError
      ? `<h1 id="tourney-title">Tournament</h1><p class="error" role="alert">${esc(tour.pageError)}</p>` +
        `<p><a class="btn primary" href="#/tournaments">All tournaments</a></p>`
      : `<h1 id="tourney-title">Tournament</h1><p class="loading">Loading the tournament\u2026</p>`);
    return;
  }
  setHTML($("#tourney-body"), tournamentPageHTML(info.t, info.reading, Date.now(), {
    registered: tour.registered.has(id), result: tour.results.get(id) || null, error: tour.pageError,
    inviteUrl: invite ? inviteLink(base, id, invite) : "",
  }));
}

/** At a tournament table: the tournament's bar; no sit, leave or add-chips controls. */
function renderTourneyTable(state) {
  const tableId = page.route.view === "table" ? page.route.id : null;
  const tid = tableId ? tournamentOf(tableId) : null;
  $("#table-view").classList.toggle("tourney", !!tid);
  show($("#tourney-bar"), !!tid);
  if (!tid) return;
  const info = tour.infos.get(tid);
  setHTML($("#tourney-bar"), tourneyBarHTML(tid, info ? info.t : null, info ? info.reading : null, Date.now(),
    tour.moved.get(tableId)));
  for (const sel of ["#leave-btn", "#rebuy-btn", "#postbb-btn", "#busted", "#sit-panel", "#share-btn"]) show($(sel), false);
  const t = state.table;
  if (t && t.you == null && !page.route.watch) { // out, or not seated here any more
    $("#watch-badge").textContent = "Watching";
  }
  if (state.gone && state.gone.table === tableId) { // broken up (TOUR-08), or the end
    $("#table-title").textContent = "Table closed";
    $("#gone-text").textContent = info && info.t.state === "finished"
      ? "The tournament is over: its tables are closed. The results are on the tournament page."
      : "The tournament closed this table (its players were moved to the other tables).";
  }
}

function renderResult() {
  const here = page.route.view === "tournament" && page.route.id === tour.banner; // it says so
  const result = tour.banner && !here ? tour.results.get(tour.banner) : null;
  show($("#tourney-result"), !!result);
  if (!result) return;
  const info = tour.infos.get(result.tournament);
  setHTML($("#tourney-result"), resultBannerHTML(result, info ? info.t.name : ""));
}

/** Called by js/app.js's render. */
export function renderTournaments(state) {
  const lobby = page.route.view === "lobby";
  const tab = lobby && page.route.tab === "tournaments";
  show($("#tournaments"), tab);
  for (const el of $$(".cash-only")) show(el, lobby && !tab);
  for (const a of $$(".lobby-tabs a")) {
    if ((a.dataset.tab === "tournaments") === tab) a.setAttribute("aria-current", "page");
    else a.removeAttribute("aria-current");
  }
  if (tab) renderList();
  show($("#tournament-view"), page.route.view === "tournament");
  show($("#tourney-hello"), page.route.view === "tournament" && !state.me);
  if (page.route.view === "tournament") renderPage();
  renderTourneyTable(state);
  renderResult();
}
