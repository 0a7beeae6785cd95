// The viewer's own display preferences, kept by this browser (localStorage): they change what
// this page shows, never the game. Each is off by default.
//
// * `handStrength`: the best hand the viewer's own cards make so far, under their cards
//   ("pair of jacks"), worked out in the page (js/hands.js) from cards the page already holds.
// * `fourColor`: a four-colour deck (clubs green, diamonds blue); off, clubs are black and
//   diamonds red like a paper deck.
//
// Rule of this module: `loadPrefs` never throws (bad or missing storage gives the defaults)
// and keeps only the known keys, as booleans.

const PREFS_KEY = "poker.prefs";

export const PREFS = [
  ["handStrength", "Show my hand's strength as the cards come"],
  ["fourColor", "Four-colour deck (clubs green, diamonds blue)"],
];

export function defaultPrefs() {
  return Object.fromEntries(PREFS.map(([key]) => [key, false]));
}

function storage() {
  try { return globalThis.localStorage || null; } catch { return null; }
}

/** The saved preferences over the defaults. */
export function loadPrefs(store = storage()) {
  const prefs = defaultPrefs();
  try {
    const saved = JSON.parse((store && store.getItem(PREFS_KEY)) || "{}");
    for (const key of Object.keys(prefs)) {
      if (saved && typeof saved[key] === "boolean") prefs[key] = saved[key];
    }
  } catch { /* unreadable: the defaults */ }
  return prefs;
}

/** `prefs` with `key` set to `on`, saved. */
export function savePref(prefs, key, on, store = storage()) {
  const next = { ...prefs };
  if (key in next) next[key] = !!on;
  try { if (store) store.setItem(PREFS_KEY, JSON.stringify(next)); } catch { /* private mode */ }
  return next;
}

/** The settings panel's checkboxes. */
export function prefsHTML(prefs) {
  return PREFS.map(([key, label]) =>
    `<label class="check"><input type="checkbox" data-pref="${key}"${prefs[key] ? " checked" : ""}> ${label}</label>`).join("");
}
