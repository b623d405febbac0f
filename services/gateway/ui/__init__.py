"""The web UI, served by the gateway: jobs, a submit form, a live job page, devices, and a
login with an API token.

The pages are server-rendered shells (Jinja) whose data comes from the JSON API (/api/v1)
through `fetch` and server-sent events, with no build step and nothing fetched from another
origin: vanilla ES modules, hand-written SVG charts and our own CSS, all under /ui/static.
So the API stays the one source of truth, and the UI can show exactly what a client would see
(validation messages included).

Authentication. The login form takes an API token, checks it with the gateway's `auth`
module (it needs the `read` scope) and stores it in the `tunefarm_token` cookie, which the
API's auth also accepts; every page but /login (and the static files, which hold no data)
redirects to /login without a valid one. The cookie is HttpOnly (page scripts never see the
token), Secure (browsers keep Secure cookies on plain http only for localhost, so deploy the
UI behind HTTPS) and SameSite=Strict.

CSRF. We rely on SameSite=Strict plus a same-origin check rather than CSRF tokens:

* SameSite=Strict: the browser sends the cookie with no request started from another site,
  so a forged cross-site form or fetch arrives without credentials and is refused (401).
* Same-origin check: the API refuses a cookie-authenticated POST (submit, cancel) whose
  Origin/Referer names another host (`auth.authenticate`), and the UI's own POSTs (login,
  logout) do the same here (`_same_origin`), which also covers older browsers without
  SameSite and sibling subdomains, which count as "same site".

The page scripts' requests are same-origin `fetch` calls, which carry the cookie and an
Origin header, so they pass both checks; a custom header would add nothing a cross-site page
could not already be stopped by.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from flask import (
    Blueprint,
    Response,
    abort,
    g,
    make_response,
    redirect,
    render_template,
    request,
    url_for,
)
from tunefarm_services.gateway import auth

blueprint = Blueprint(
    "ui",
    __name__,
    template_folder="templates",
    static_folder="static",
    static_url_path="/ui/static",
)

COOKIE_MAX_AGE_S = 12 * 3600  # a working day: long enough not to nag, short enough to expire
PUBLIC_ENDPOINTS = frozenset({"ui.login", "ui.static"})
MAX_NEXT = 2000  # characters of a `next` path
LOCAL_HOSTS = frozenset({"localhost", "127.0.0.1", "::1"})
# Everything from this origin, nothing inline, no framing: the pages need no more.
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'; "
    "object-src 'none'"
)


# -- authentication --------------------------------------------------------------------------------
@blueprint.before_request
def _require_login():
    """Every UI page needs a valid token cookie; without one, go to the login page and
    come back afterwards."""
    if request.endpoint in PUBLIC_ENDPOINTS:
        return None
    token = _cookie_token()
    if token is None:
        response = redirect(url_for("ui.login", next=_safe_next(request.full_path)))
        if request.cookies.get(auth.COOKIE_NAME):  # stale (revoked) token: drop it
            response.delete_cookie(auth.COOKIE_NAME, path="/")
        return response
    g.ui_token = token
    return None


def _cookie_token() -> auth.Token | None:
    """The token of the request's cookie when it is known and may read, else None."""
    try:
        return auth.check_token(request.cookies.get(auth.COOKIE_NAME), auth.READ)
    except auth.AuthError:
        return None


def _safe_next(target: str | None) -> str:
    """Where to go after login: a path on this site only (never `//host` or a URL), so the
    login page cannot be used to send people elsewhere."""
    target = (target or "").rstrip("?")
    # Browsers drop tabs and newlines from a URL before reading it (`/\t/evil` is `//evil`)
    # and a CR/LF cannot go in a header: refuse any control character or space outright.
    if any(ord(c) < 0x21 or ord(c) == 0x7F for c in target) or len(target) > MAX_NEXT:
        return url_for("ui.jobs")
    if not target.startswith("/") or target.startswith("//") or "\\" in target:
        return url_for("ui.jobs")
    if urlsplit(target).netloc or urlsplit(target).scheme:
        return url_for("ui.jobs")
    if target.startswith(url_for("ui.login")) or target.startswith(url_for("ui.logout")):
        return url_for("ui.jobs")
    return target


def _same_origin() -> bool:
    """False when the browser says the POST came from another host (see the module doc)."""
    origin = request.headers.get("Origin") or request.headers.get("Referer")
    if not origin:
        return True
    return urlsplit(origin).netloc.lower() == request.host.lower()


def _cookie_would_be_dropped() -> bool:
    """True when a browser will not store the Secure cookie: plain http to a host other
    than localhost (behind a TLS proxy, X-Forwarded-Proto says https)."""
    scheme = request.headers.get("X-Forwarded-Proto", request.scheme).split(",")[0].strip()
    host = (urlsplit(f"//{request.host}").hostname or "").lower()
    return scheme != "https" and host not in LOCAL_HOSTS


@blueprint.route("/login", methods=["GET", "POST"])
def login():
    """The token form. A known token with the read scope sets the cookie and goes on; any
    other answer re-renders the form with the reason and sets no cookie."""
    next_url = _safe_next(request.values.get("next"))
    if request.method == "GET":
        if _cookie_token() is not None:
            return redirect(next_url)
        return _login_page(next_url)
    if not _same_origin():
        return _login_page(next_url, "cross-site sign-in refused", 403)
    secret = request.form.get("token", "").strip()
    if not secret:
        return _login_page(next_url, "enter your API token", 400)
    try:
        auth.check_token(secret, auth.READ)
    except auth.AuthError as exc:
        message = "invalid token" if exc.code == 401 else "this token lacks the read scope"
        return _login_page(next_url, message, exc.code)
    response = redirect(next_url)
    response.set_cookie(
        auth.COOKIE_NAME,
        secret,
        max_age=COOKIE_MAX_AGE_S,
        path="/",
        secure=True,
        httponly=True,
        samesite="Strict",
    )
    return response


def _login_page(next_url: str, error: str | None = None, status: int = 200) -> Response:
    html = render_template(
        "login.html",
        next_url=next_url,
        error=error,
        insecure=_cookie_would_be_dropped(),
    )
    return make_response(html, status)


@blueprint.route("/logout", methods=["GET", "POST"])
def logout():
    """POST (the header's button) signs out; GET shows that button, so a link or a typed
    URL cannot sign anyone out behind their back."""
    if request.method == "GET":
        return render_template("logout.html", page="logout")
    if not _same_origin():
        abort(403)
    response = redirect(url_for("ui.login"))
    response.delete_cookie(
        auth.COOKIE_NAME, path="/", secure=True, httponly=True, samesite="Strict"
    )
    return response


# -- pages ---------------------------------------------------------------------------------------
@blueprint.get("/")
def jobs():
    """Every job, newest first, filterable by state (the list comes from GET /api/v1/jobs)."""
    from tunefarm.distributed.jobs import STATES

    state = request.args.get("state") or ""
    state = state if state in STATES else ""  # an unknown filter shows every job
    return render_template("jobs.html", page="jobs", states=STATES, state=state)


@blueprint.get("/submit")
def submit():
    """The submission form; it posts to /api/v1/jobs and shows the API's field messages."""
    from tunefarm_services.gateway.validation import (
        DEFAULT_POLICY,
        DEFAULT_TOP_K,
        DEFAULT_TUNER,
        MAX_SELECT_TOP,
        MAX_TRIALS,
        PACKED_TARGETS,
        POLICIES,
        QUANTIZE,
        TUNERS,
    )

    from tunefarm.frontend import zoo

    return render_template(
        "submit.html",
        page="submit",
        zoo_models=zoo.names(),
        tuners=TUNERS,
        default_tuner=DEFAULT_TUNER,
        policies=POLICIES,
        default_policy=DEFAULT_POLICY,
        max_trials=MAX_TRIALS,
        default_select_top=DEFAULT_TOP_K,
        max_select_top=MAX_SELECT_TOP,
        packed_targets=PACKED_TARGETS,
        quantize_options=QUANTIZE,
    )


@blueprint.get("/jobs/<job_id>")
def job(job_id: str):
    """One job, live. Unknown ids get a 404 page here rather than an empty live page."""
    from tunefarm_services.gateway.api import JOB_ID
    from tunefarm_services.gateway.app import gateway

    from tunefarm.distributed.jobs import JobNotFound

    if not JOB_ID.fullmatch(job_id):
        return _not_found(f"There is no job {job_id[:128]!r}.")
    try:
        doc = gateway().jobs().get(job_id)
    except JobNotFound:
        return _not_found(f"There is no job {job_id!r}.")
    if not g.ui_token.sees(doc.get("tenant")):
        auth.refused(g.ui_token, f"job {job_id} belongs to another tenant")
        return _not_found(f"There is no job {job_id!r}.")
    return render_template("job.html", page="job", job_id=job_id)


@blueprint.get("/devices")
def devices():
    """The tracker's table and its agents (from GET /api/v1/devices)."""
    return render_template("devices.html", page="devices")


@blueprint.get("/records")
def records():
    """The record store per target: workloads, trials, best GFLOP/s, last improved (from GET
    /api/v1/records/stats, as this token's tenant sees it)."""
    return render_template("records.html", page="records")


def _not_found(message: str) -> Response:
    return make_response(render_template("not_found.html", page=None, message=message), 404)


# -- what every page gets --------------------------------------------------------------------------
@blueprint.context_processor
def _page_context() -> dict:
    """The signed-in token's name and whether it may submit (read-only tokens see the
    submit and cancel controls disabled, with the reason, instead of failing later)."""
    token = g.get("ui_token")
    return {
        "token_name": token.name if token else None,
        "can_submit": bool(token and token.allows(auth.SUBMIT)),
        "asset": lambda name: url_for("ui.static", filename=name),
    }


@blueprint.after_request
def _headers(response: Response) -> Response:
    """Pages show job data: never cache them, never frame them, run only our own scripts."""
    response.headers.setdefault("Content-Security-Policy", CSP)
    response.headers.setdefault("X-Content-Type-Options", "nosniff")
    response.headers.setdefault("Referrer-Policy", "same-origin")
    if request.endpoint != "ui.static":
        response.headers["Cache-Control"] = "no-store"
    return response
