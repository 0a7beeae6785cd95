// The lobby page: the paged, filtered table list (polled), signing in (guest, log in,
// register, log out) and the form that opens a table.

import { showBanner } from "./banner.js";
import { plainError } from "./errors.js";
import { codes } from "./host-page.js";
import { dispatch, page, store } from "./page.js";
import { tokenStore } from "./session.js";
import { $, setHTML, show } from "./ui/dom.js";
import { createRequest, formValues, lobbyFormsHTML, practiceRequest, showProblems, syncCreateForm, tableListHTML } from "./ui/lobby.js";

// The lobby is paged and filtered by the server: `lobbyQuery.cursors[i]` starts page i.
const lobbyQuery = { variant: "", cursors: [null], page: 0, next: null, total: 0 };

export async function refreshTables() {
  if (page.socket.status !== "online") return;
  const fields = {};
  if (lobbyQuery.variant) fields.variant = lobbyQuery.variant;
  const cursor = lobbyQuery.cursors[lobbyQuery.page];
  if (cursor) fields.cursor = cursor;
  const answer = await page.socket.request("tables", fields);
  if (answer.type !== "ok") return;
  lobbyQuery.next = answer.next ?? null;
  lobbyQuery.total = typeof answer.total === "number" ? answer.total : answer.tables.length;
  dispatch({ type: "local:tables", tables: answer.tables });
  const entry = answer.tables.find((t) => t && t.jackpot_terms);
  if (entry) page.jackpotTerms = entry.jackpot_terms;
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

/** Sign in (`fields`: guest or token); the error goes to `errorEl`. */
export async function hello(fields, errorEl) {
  const answer = await page.socket.request("hello", fields);
  if (answer.type === "error") {
    errorEl.textContent = plainError(answer);
    return false;
  }
  errorEl.textContent = "";
  signedIn();
  return true;
}

/** After signing in from the lobby the focus moves on to the tables to join. */
function signedIn() {
  if (page.route.view !== "lobby") return;
  const title = $("#tables-title");
  title.setAttribute("tabindex", "-1");
  title.focus();
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
  const answer = await page.socket.request(kind, { name, password });
  if (answer.type === "ok") {
    errorEl.textContent = "";
    signedIn();
    return;
  }
  if (answer.code === "unsupported") {
    errorEl.textContent = `${kind === "login" ? "Logging in" : "Registering"} is not available on this server yet: play as a guest.`;
    return;
  }
  errorEl.textContent = plainError(answer);
}

function setupCreateForm() {
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
  form.addEventListener("input", () => showProblems(form)); // hints as one types
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    if (Object.keys(showProblems(form)).length) return; // the hints say what to fix
    const values = formValues(form);
    const answer = await page.socket.request("create_table", createRequest(values));
    if (answer.type === "error") {
      $("#create-error").textContent = plainError(answer);
      return;
    }
    $("#create-error").textContent = "";
    if (answer.code) { // a private game: the host panel shows the invite link
      codes.set(answer.table, answer.code);
      showBanner("Your private game is open: copy the invite link in Host controls and send it to your friends.", 6000);
    }
    location.hash = `#/table/${encodeURIComponent(answer.table)}`;
  });
}

/** issue 24: "Practice against bots": a practice table of the chosen game, the player
 * seated at once (seat 1, the table's default maximum buy-in of play money). */
function setupPracticeForm() {
  $("#practice-variant").innerHTML = lobbyFormsHTML().variants;
  $("#practice-form").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const errorEl = $("#practice-error");
    if (!store.state.me) {
      errorEl.textContent = "Sign in first (a guest name is enough) to practice.";
      return;
    }
    const { request, buyIn } = practiceRequest($("#practice-variant").value, $("#practice-bots").value);
    const answer = await page.socket.request("create_table", request);
    if (answer.type === "error") {
      errorEl.textContent = plainError(answer);
      return;
    }
    errorEl.textContent = "";
    if (answer.code) codes.set(answer.table, answer.code);
    const sat = await page.socket.request("sit", { table: answer.table, seat: 0, buy_in: buyIn, code: answer.code });
    if (sat.type === "error") errorEl.textContent = plainError(sat);
    location.hash = `#/table/${encodeURIComponent(answer.table)}`;
  });
}

export function setupLobby() {
  setupLobbyPaging();
  setupCreateForm();
  setupPracticeForm();
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
    try { await page.socket.request("logout", {}); } catch { /* already gone */ }
    location.reload();
  });
  $("#register-btn").addEventListener("click", () => account("register"));
}

export function renderLobby(state) {
  show($("#hello"), !state.me);
  setHTML($("#table-list"), tableListHTML(state.tables, state.me));
  $("#lobby-page").textContent = lobbyQuery.total
    ? `Page ${lobbyQuery.page + 1} \u00b7 ${lobbyQuery.total} table${lobbyQuery.total === 1 ? "" : "s"}`
    : "";
  $("#lobby-prev").disabled = lobbyQuery.page === 0;
  $("#lobby-next").disabled = !lobbyQuery.next;
}
