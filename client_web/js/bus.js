// The page's event bus: how a lower module tells a higher one that something happened, without
// importing it (the import graph of client_web/js stays acyclic: tests/web/test_client_modules.py).
//
// Rule of this module: it imports nothing; the only names are the constants below (an unknown
// name throws, so a typo is not a silent no-op); listeners run synchronously, in the order
// they were added, inside `emit`.

/** The state changed by `dispatch(msg)` (js/page.js); the listener gets `msg` (js/app.js:
 * restoring, saving, sounds, the host panel, the redraw). */
export const DISPATCHED = "dispatched";
/** A module changed what the page shows (page state, not the reducer's): redraw now (js/app.js). */
export const RENDER = "render";

const EVENTS = new Set([DISPATCHED, RENDER]);
const listeners = new Map([...EVENTS].map((name) => [name, []]));

function known(name) {
  if (!EVENTS.has(name)) throw new Error(`unknown bus event: ${name}`);
  return listeners.get(name);
}

/** Call `fn(...args)` on each `emit(name, ...args)`. */
export function on(name, fn) {
  known(name).push(fn);
}

export function off(name, fn) {
  const list = known(name);
  const i = list.indexOf(fn);
  if (i >= 0) list.splice(i, 1);
}

export function emit(name, ...args) {
  for (const fn of [...known(name)]) fn(...args);
}
