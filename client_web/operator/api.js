// The operator page's calls to the admin API (docs/operator.md): JSON over HTTP on the
// operator listener, with the session from POST /admin/session (kept in sessionStorage).

const KEY = "poker-operator-session";

export class ApiError extends Error {
  constructor(status, code, message) {
    super(message || code);
    this.status = status;
    this.code = code;
  }
}

export function session() {
  try {
    return JSON.parse(sessionStorage.getItem(KEY) || "null");
  } catch {
    return null;
  }
}

export function forget() {
  sessionStorage.removeItem(KEY);
}

async function call(method, path, body, credential) {
  const headers = { Authorization: `Bearer ${credential}` };
  const init = { method, headers };
  if (body !== undefined) {
    headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const response = await fetch(path, init);
  let data = {};
  try {
    data = await response.json();
  } catch {
    data = {};
  }
  if (!response.ok) {
    const error = data.error || {};
    throw new ApiError(response.status, error.code || `http_${response.status}`, error.message);
  }
  return data;
}

export async function signIn(token, operator) {
  const opened = await call("POST", "/admin/session", { operator }, token);
  sessionStorage.setItem(KEY, JSON.stringify(opened));
  return opened;
}

export function get(path) {
  const s = session();
  return call("GET", path, undefined, s ? s.session : "");
}

export function post(path, body) {
  const s = session();
  return call("POST", path, body, s ? s.session : "");
}
