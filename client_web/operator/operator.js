// The operator console: tables, accounts, notices, collusion review, hand records, the
// jackpot, the audit log and live counters (refreshed every few seconds).
import { ApiError, forget, get, post, session, signIn } from "/operator/api.js";

const $ = (id) => document.getElementById(id);
const COUNTERS = ["poker_tcp_connections", "poker_connections", "poker_tables",
  "poker_hands_total", "poker_connections_refused_total", "poker_flood_disconnects_total"];
let timer = null;

function el(tag, text, cls) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = String(text);
  if (cls) node.className = cls;
  return node;
}

function button(label, onClick) {
  const b = el("button", label);
  b.type = "button";
  b.addEventListener("click", onClick);
  return b;
}

function reason() {
  return $("reason").value.trim();
}

function report(error) {
  if (error instanceof ApiError && error.status === 401) {
    stop();
    forget();
    show();
    $("login-error").textContent = `${error.code}: ${error.message}`;
    return;
  }
  $("status").textContent = error instanceof ApiError ? `${error.code}: ${error.message}` : String(error);
}

async function act(fn) {
  $("status").textContent = "";
  try {
    await fn();
    await refresh();
  } catch (error) {
    report(error);
  }
}

function renderCounters(metrics) {
  const list = $("counters");
  list.replaceChildren();
  const names = Object.keys(metrics).filter((n) => COUNTERS.some((c) => n.startsWith(c)));
  for (const name of names.sort()) {
    list.append(el("dt", name), el("dd", metrics[name]));
  }
}

function renderTables(tables) {
  const body = $("tables").querySelector("tbody");
  body.replaceChildren();
  for (const t of tables) {
    const row = el("tr");
    row.dataset.table = t.table;
    const players = el("td");
    for (const p of t.players) {
      const line = el("div", `${p.seat}: ${p.name} (${p.player_id}) ${p.stack}`);
      line.append(" ", button("Remove", () => act(() => post(`/admin/tables/${t.table}/remove`,
        { player: p.player_id, reason: reason() }))));
      players.append(line);
    }
    const load = `${t.in_hand ? "in hand" : "between hands"}, ${t.connections} conn., ${t.queued} queued`;
    const close = button("Close table", () => act(() => post(`/admin/tables/${t.table}/close`, { reason: reason() })));
    row.append(el("td", `${t.table} ${t.name}`), el("td", t.variant), players, el("td", load), el("td"));
    row.lastChild.append(close);
    body.append(row);
  }
}

function renderAccounts(accounts) {
  const body = $("accounts").querySelector("tbody");
  body.replaceChildren();
  for (const a of accounts) {
    const row = el("tr");
    row.dataset.player = a.player_id;
    const flags = el("td");
    if (a.frozen) flags.append(el("span", "frozen", "flag"));
    if (a.muted) flags.append(el("span", "muted", "flag"));
    const path = `/admin/accounts/${a.player_id}`;
    const buttons = el("td");
    buttons.append(
      button(a.frozen ? "Unfreeze" : "Freeze", () => act(() => post(`${path}/${a.frozen ? "unfreeze" : "freeze"}`, { reason: reason() }))),
      button(a.muted ? "Unmute" : "Mute", () => act(() => post(`${path}/${a.muted ? "unmute" : "mute"}`, { reason: reason() }))));
    row.append(el("td", a.player_id), el("td", a.name || ""), el("td", a.balance), flags,
      el("td", a.tables.join(", ")), buttons);
    body.append(row);
  }
}

function renderAudit(page) {
  const body = $("audit").querySelector("tbody");
  body.replaceChildren();
  for (const e of page.entries.slice().reverse()) {
    const when = new Date(e.at * 1000).toISOString().replace("T", " ").slice(0, 19);
    body.append(Object.assign(el("tr"), {}));
    body.lastChild.append(el("td", e.seq), el("td", when), el("td", e.who), el("td", e.action),
      el("td", e.target || "everyone"), el("td", e.reason));
  }
}

function renderJackpot(history) {
  const state = history.state || {};
  $("jackpot-state").textContent = `pool ${state.pool ?? "?"}` + (state.minor !== undefined ? `, minor ${state.minor}` : "");
  const list = $("jackpot");
  list.replaceChildren();
  for (const entry of (history.entries || []).slice(-20).reverse()) {
    list.append(el("li", `${entry.kind || entry.type || "entry"} ${entry.amount ?? ""} ${entry.hand || ""}`.trim()));
  }
}

function renderCollusion(r) {
  const out = $("collusion-result");
  out.replaceChildren();
  out.append(el("p", `${r.count} hands together${r.truncated ? " (more not read)" : ""}`));
  const folds = el("table");
  folds.id = "collusion-folds";
  folds.append(el("tr"));
  folds.firstChild.append(el("th", "Account"), el("th", "Faced the other's bets"), el("th", "Folded"), el("th", "Rate"));
  for (const who of [r.a, r.b]) {
    const f = r.folds[who];
    const row = el("tr");
    row.append(el("td", who), el("td", f.faced), el("td", f.folded), el("td", f.rate === null ? "-" : f.rate));
    folds.append(row);
  }
  out.append(folds, el("p", `chips ${r.a} → ${r.b}: ${r.chips.a_to_b}; ${r.b} → ${r.a}: ${r.chips.b_to_a}; net to ${r.a}: ${r.chips.net_to_a}`));
  const hands = el("ul");
  for (const h of r.hands) hands.append(el("li", `${h.hand} ${h.variant}${h.voided ? " (voided)" : ""}: ${JSON.stringify(h.net)}`));
  out.append(hands);
}

async function refresh() {
  const [counters, tables, accounts, audit] = await Promise.all([
    get("/admin/metrics"), get("/admin/tables"), get("/admin/accounts"), get("/admin/audit?limit=1000"),
  ]);
  renderCounters(counters.metrics);
  renderTables(tables.tables);
  renderAccounts(accounts.accounts);
  renderAudit(audit);
  try {
    renderJackpot(await get("/admin/jackpot?start=0&count=100"));
  } catch (error) {
    $("jackpot-state").textContent = error.code || String(error);
  }
}

function stop() {
  if (timer !== null) clearInterval(timer);
  timer = null;
}

function show() {
  const s = session();
  $("login").hidden = Boolean(s);
  $("console").hidden = !s;
  $("logout").hidden = !s;
  $("who").textContent = s ? `signed in as ${s.operator}` : "";
  if (s) {
    refresh().catch(report);
    stop();
    timer = setInterval(() => { refresh().catch(report); }, 3000);
  }
}

function wire() {
  $("login").addEventListener("submit", async (event) => {
    event.preventDefault();
    $("login-error").textContent = "";
    try {
      await signIn($("token").value, $("operator").value);
      $("token").value = "";
      show();
    } catch (error) {
      $("login-error").textContent = error instanceof ApiError ? `${error.code}: ${error.message}` : String(error);
    }
  });
  $("logout").addEventListener("click", () => { stop(); forget(); show(); });
  $("adjust").addEventListener("submit", (event) => {
    event.preventDefault();
    act(() => post(`/admin/accounts/${$("adjust-player").value.trim()}/adjust`,
      { amount: Number.parseInt($("adjust-amount").value, 10), reason: reason() }));
  });
  $("notice").addEventListener("submit", (event) => {
    event.preventDefault();
    const table = $("notice-table").value.trim();
    act(() => post("/admin/notice", { text: $("notice-text").value, table: table || null, reason: reason() }));
  });
  $("collusion").addEventListener("submit", (event) => {
    event.preventDefault();
    const a = encodeURIComponent($("pair-a").value.trim());
    const b = encodeURIComponent($("pair-b").value.trim());
    get(`/admin/collusion?a=${a}&b=${b}`).then(renderCollusion).catch(report);
  });
  $("hand").addEventListener("submit", (event) => {
    event.preventDefault();
    get(`/admin/hands/${encodeURIComponent($("hand-id").value.trim())}`)
      .then((r) => { $("hand-record").textContent = JSON.stringify(r.record, null, 2); })
      .catch(report);
  });
}

wire();
show();
