// What this browser keeps: the session token (localStorage: every tab is the same player),
// what a tab saw of each table (sessionStorage: a reload keeps chat, the hand log, the last
// hands, the clock and "sitting out") and the tab's "my tables".

const TOKEN_KEY = "poker.token";
const SAVE_PREFIX = "poker.table.";
const MINE_KEY = "poker.mytables";

export const tokenStore = {
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

/** Save what this tab saw of table `t`. */
export function saveTable(t) {
  if (!t || t.pending) return;
  const mine = t.you != null ? t.seats[t.you] : null;
  const saved = { table: t.id, hand: t.hand, chat: t.chat, log: t.log, history: t.history.slice(0, 5),
    turns: t.turns, you: t.you, sittingOut: !!(mine && mine.sittingOut) };
  try { sessionStorage.setItem(SAVE_PREFIX + t.id, JSON.stringify(saved)); } catch { /* full */ }
}

export function loadSaved(id) {
  try { return JSON.parse(sessionStorage.getItem(SAVE_PREFIX + id) || "null"); } catch { return null; }
}

/** The tab's tables: `[{id, name, watch}]`. */
export function saveMyTables(list) {
  try { sessionStorage.setItem(MINE_KEY, JSON.stringify(list)); } catch { /* full */ }
}

export function loadMyTables() {
  try {
    const list = JSON.parse(sessionStorage.getItem(MINE_KEY) || "[]");
    return Array.isArray(list) ? list.filter((e) => e && typeof e.id === "string") : [];
  } catch {
    return [];
  }
}
