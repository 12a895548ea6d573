// The REST API as every page script calls it (the chat page, the history manager): the login
// session, the CSRF token on unsafe methods, JSON bodies, and one way to say why a call failed.
// The fallback texts are the page's, in its language, from data-* on <body> (base.html).
const texts = document.body.dataset;
export const csrf = (document.cookie.match(/(?:^|; )csrftoken=([^;]*)/) || [])[1] || "";

// A server that cannot be reached answers as a refusal whose message says so, so a caller has
// one path for every failure (`if (!r.ok) … await refusal(r)`) instead of an unhandled throw.
function unreachable() {
  const body = {error: {code: "unreachable", message: texts.restUnreachable}};
  return new Response(JSON.stringify(body), {status: 503, headers: {"Content-Type": "application/json"}});
}

export async function api(method, address, body) {
  const headers = {"X-CSRFToken": csrf};
  if (body !== undefined) headers["Content-Type"] = "application/json";
  try {
    return await fetch(address, {method, headers, credentials: "same-origin",
                                 body: body === undefined ? undefined : JSON.stringify(body)});
  } catch (error) {
    return unreachable();
  }
}

// The server's own message when it gives one ({"error": {"code", "message"}}, the API's one
// error shape); else a line in the page's language with the HTTP status (a proxy's error page,
// a crash).
export async function refusal(response) {
  try {
    const message = (await response.json()).error.message;
    if (typeof message === "string" && message.trim()) return message;
  } catch (error) { /* not the API's error shape */ }
  return texts.restRefused.replace("%(status)s", String(response.status));
}
