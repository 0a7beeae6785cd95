// The create-table form's rules: which combinations the server takes (server/table/settings.py,
// server/rules/structure.py check_stakes, each variant's max_seats), said in a player's words
// before the request goes, so `bad_stakes` / `bad_settings` is rare.
//
// Rule of this module: pure functions of the form's values (strings, as FormData gives them).

/** GEN-07: the most seats each game's deck serves (server/rules/<variant>.py `max_seats`;
 * Caribbean Stud: server/rules/caribbean.py MAX_PLAYERS). */
export const MAX_SEATS = { holdem: 10, manila: 10, manila3: 9, draw: 8, stud5: 10, stud7: 8, caribbean: 9 };
/** The fewest seats: a house game can be played alone against the dealer. */
export const MIN_SEATS = { caribbean: 1 };
/** The server's default pause between hands (Config.hand_pause), in seconds. */
export const DEFAULT_PAUSE = 3;
const MAX_SECONDS = 3600;

const isStud = (variant) => String(variant || "").startsWith("stud");
const usesBlinds = (variant) => variant !== "caribbean" && !isStud(variant);
const blank = (v) => v == null || String(v).trim() === "";
const num = (v) => (blank(v) ? NaN : Number(v));
const whole = (v) => Number.isInteger(num(v));

/** The buy-in unit the server's defaults are counted in (the last blind; stud: the small bet,
 * else the minimum bet, else the bring-in; Caribbean: the minimum ante). */
export function buyInUnit(values) {
  const v = values.variant;
  if (v === "caribbean") return num(values.min) || 0;
  if (isStud(v)) {
    if (values.structure === "fixed_limit" && num(values.small_bet) > 0) return num(values.small_bet);
    if (values.structure === "spread_limit" && num(values.min_bet) > 0) return num(values.min_bet);
    return num(values.bring_in) || 0;
  }
  return num(values.bb) || 0;
}

/** The buy-in limits the server uses when the form leaves them blank: 20 and 100 units. */
export function defaultBuyIns(values) {
  const unit = buyInUnit(values);
  return { min: 20 * unit, max: 100 * unit };
}

function amount(problems, values, key, label, { min = 0 } = {}) {
  const v = values[key];
  if (blank(v)) { problems[key] = `Enter the ${label.toLowerCase()}.`; return false; }
  if (!whole(v) || num(v) < min) {
    problems[key] = min > 0 ? `The ${label.toLowerCase()} must be a whole number of chips, at least ${min}.`
      : `The ${label.toLowerCase()} must be a whole number of chips (0 or more).`;
    return false;
  }
  return true;
}

function seatProblems(problems, values) {
  const max = MAX_SEATS[values.variant] || 10;
  const min = MIN_SEATS[values.variant] || 2;
  const seats = num(values.seats);
  if (!whole(values.seats) || seats < min || seats > max) {
    problems.seats = `This game seats ${min} to ${max} players.`;
  }
}

function blindProblems(problems, values) {
  const sb = amount(problems, values, "sb", "Small blind");
  const bb = amount(problems, values, "bb", "Big blind", { min: 1 });
  if (sb && bb && num(values.bb) < num(values.sb)) {
    problems.bb = "The big blind must be at least the small blind.";
  }
}

function limitProblems(problems, values) {
  const blinds = usesBlinds(values.variant);
  if (values.structure === "fixed_limit") {
    const small = amount(problems, values, "small_bet", "Small bet", { min: 1 });
    const big = amount(problems, values, "big_bet", "Big bet", { min: 1 });
    if (small && big && num(values.big_bet) < num(values.small_bet)) {
      problems.big_bet = "The big bet must be at least the small bet (usually twice it).";
    }
    if (blinds && small && !problems.bb && num(values.bb) < num(values.small_bet)) {
      problems.bb = "In fixed limit the big blind must be at least the small bet.";
    }
    if (!blinds && small && !problems.bring_in && num(values.bring_in) > num(values.small_bet)) {
      problems.bring_in = "The bring-in must not be more than the small bet.";
    }
  } else if (values.structure === "spread_limit") {
    const lo = amount(problems, values, "min_bet", "Min bet", { min: 1 });
    const hi = amount(problems, values, "max_bet", "Max bet", { min: 1 });
    if (lo && hi && num(values.max_bet) < num(values.min_bet)) {
      problems.max_bet = "The max bet must be at least the min bet.";
    }
    if (blinds && lo && !problems.bb && num(values.bb) < num(values.min_bet)) {
      problems.bb = "The big blind must be at least the min bet.";
    }
  }
}

function stakeProblems(problems, values) {
  const v = values.variant;
  if (v === "caribbean") {
    const lo = amount(problems, values, "min", "Min ante", { min: 1 });
    const hi = amount(problems, values, "max", "Max ante", { min: 1 });
    if (lo && hi && num(values.max) < num(values.min)) {
      problems.max = "The max ante must be at least the min ante.";
    }
    return;
  }
  if (isStud(v)) {
    amount(problems, values, "ante", "Ante");
    amount(problems, values, "bring_in", "Bring-in", { min: 1 });
  } else {
    blindProblems(problems, values);
  }
  limitProblems(problems, values);
}

function seconds(problems, values, key, text, { min = 0 } = {}) {
  if (blank(values[key])) return;
  const s = num(values[key]);
  if (!Number.isFinite(s) || s < min || s > MAX_SECONDS) problems[key] = text;
}

function buyInProblems(problems, values) {
  if (values.private && !blank(values.starting_stack)) {
    if (!whole(values.starting_stack) || num(values.starting_stack) < 1) {
      problems.starting_stack = "The starting stack must be a whole number of chips, at least 1.";
    }
    return; // every buy-in is the starting stack: the limits are not used
  }
  const defaults = defaultBuyIns(values);
  for (const key of ["min_buy_in", "max_buy_in"]) {
    if (!blank(values[key]) && (!whole(values[key]) || num(values[key]) < 1)) {
      problems[key] = "A buy-in must be a whole number of chips, at least 1.";
    }
  }
  if (problems.min_buy_in || problems.max_buy_in) return;
  const lo = blank(values.min_buy_in) ? defaults.min : num(values.min_buy_in);
  const hi = blank(values.max_buy_in) ? defaults.max : num(values.max_buy_in);
  if (lo > hi) {
    const key = blank(values.max_buy_in) ? "min_buy_in" : "max_buy_in";
    problems[key] = `The minimum buy-in (${lo.toLocaleString("en-US")}) must not be more than the maximum (${hi.toLocaleString("en-US")}).`;
  }
}

/** What is wrong with the form's values, by field name: `{field: "plain words"}`; empty when
 * the server will take the table. */
export function createProblems(values) {
  const problems = {};
  seatProblems(problems, values);
  stakeProblems(problems, values);
  buyInProblems(problems, values);
  seconds(problems, values, "pause", "The pause between hands is 0 to 3600 seconds.");
  if (values.private) {
    seconds(problems, values, "action_clock", "The action clock is 1 to 3600 seconds.", { min: 1 });
  }
  return problems;
}

/** The table settings every table's form may carry (home games add theirs): the pause between
 * hands and the buy-in limits, when the creator changed them. */
export function tableSettings(values) {
  const settings = {};
  const pause = num(values.pause);
  if (Number.isFinite(pause) && pause !== DEFAULT_PAUSE) settings.pause = pause; // else the server's
  const fixedStack = values.private && !blank(values.starting_stack);
  for (const key of ["min_buy_in", "max_buy_in"]) {
    if (!fixedStack && !blank(values[key]) && whole(values[key])) settings[key] = num(values[key]);
  }
  return settings;
}
