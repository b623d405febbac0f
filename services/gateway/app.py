"""The gateway's Flask application: `create_app` wires the REST API (/api/v1), the operations
endpoints (/healthz, /readyz, /metrics) and any further blueprints (the web UI) to one
`Gateway`, which holds the clients every request shares.

    app = create_app()                              # config from the environment
    app = create_app(config, blueprints=[ui.bp])    # explicit blueprints

By default the web UI is registered when its package, `tunefarm_services.gateway.ui`, exists
and exposes `blueprint` (see `default_blueprints`).
"""

from __future__ import annotations

import importlib
import logging
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from flask import Blueprint, Flask, Response, current_app, jsonify, request
from tunefarm_services.gateway import auth
from tunefarm_services.gateway.logtext import escape
from tunefarm_services.gateway.streams import StreamSlots
from werkzeug.exceptions import HTTPException

from tunefarm.distributed.artifacts import ArtifactStore
from tunefarm.distributed.config import ServiceConfig
from tunefarm.distributed.jobs import JobStore
from tunefarm.distributed.tracker import Tracker

API_PREFIX = "/api/v1"
UI_MODULE = "tunefarm_services.gateway.ui"
SSE_KEEPALIVE_S = 15.0  # a comment line this often keeps proxies from closing an idle stream
UPLOAD_SLACK_BYTES = 1 << 20  # room for form fields and multipart framing next to the upload
STATIC_PREFIX = "/ui/static/"  # the UI's scripts and styles: the same for everyone
STREAM_RECHECK_S = 10.0  # an open event stream checks its token again this often
STATE_CONNECTIONS = 128  # Redis connections of short commands; more wait for a free one

log = logging.getLogger("tunefarm.gateway")


@dataclass
class Gateway:
    """What every request of one app shares: configuration, tokens, and long-lived clients
    (one Redis connection pool each for state and broker, one Celery app), so requests do not
    reconnect. Reached through `gateway()` inside a request."""

    config: ServiceConfig
    token_source: auth.TokenSource
    redis: Any
    streams: Any  # for XREAD BLOCK: its socket timeout outlasts the block
    broker: Any
    celery: Any
    store: ArtifactStore
    stream_slots: StreamSlots = field(default_factory=lambda: StreamSlots(800, 100))
    sse_keepalive_s: float = SSE_KEEPALIVE_S
    stream_recheck_s: float = STREAM_RECHECK_S
    metrics_registry: Any = field(default=None, repr=False)
    record_stores: dict[tuple[str, bool], Any] = field(default_factory=dict, repr=False)

    @classmethod
    def from_config(cls, config: ServiceConfig) -> Gateway:
        import redis

        from tunefarm.distributed.celery_app import make_app

        return cls(
            config=config,
            token_source=auth.TokenSource(config.tokens_file),
            redis=config.redis(max_connections=STATE_CONNECTIONS),
            streams=config.redis(
                socket_timeout=SSE_KEEPALIVE_S + 10, max_connections=config.max_streams + 16
            ),
            stream_slots=StreamSlots(config.max_streams, config.max_streams_per_token),
            broker=redis.Redis.from_url(config.broker_url, decode_responses=True),
            celery=make_app(config),
            store=ArtifactStore(config.artifacts),
        )

    @property
    def tokens(self) -> auth.TokenRing:
        """The tokens as of the tokens file's last change (re-read on change)."""
        return self.token_source.ring()

    @property
    def max_upload_bytes(self) -> int:
        return int(self.config.max_upload_mb * 2**20)

    def jobs(self) -> JobStore:
        return JobStore(self.config, client=self.redis)

    def stream_jobs(self) -> JobStore:
        """A JobStore for server-sent event streams (long blocking reads)."""
        return JobStore(self.config, client=self.streams)

    def tracker(self) -> Tracker:
        return Tracker(self.config, client=self.redis, broker=self.broker)

    def record_store(self, tenant: str, fleet: bool) -> Any:
        """The record store as `tenant` sees it (None: none configured); opened once per
        tenant and grant. StoreError while it cannot be opened (the next call retries)."""
        from tunefarm.store import NONE, open_store

        if self.config.store.strip().lower() == NONE:
            return None
        key = (tenant, fleet)
        if key not in self.record_stores:
            self.record_stores[key] = open_store(self.config.store, tenant, fleet)
        return self.record_stores[key]


def gateway() -> Gateway:
    """The current app's Gateway."""
    return current_app.extensions["tunefarm"]


def default_blueprints() -> list[Blueprint]:
    """The web UI's blueprint when its package is installed (`ui.blueprint`), else none.
    Only the UI package's own absence is tolerated; a UI that fails to import is an error."""
    try:
        module = importlib.import_module(UI_MODULE)
    except ModuleNotFoundError as exc:
        if exc.name == UI_MODULE:
            return []
        raise
    return [module.blueprint]


def create_app(
    config: ServiceConfig | None = None,
    blueprints: Iterable[Blueprint] | None = None,
) -> Flask:
    """The gateway app. `blueprints`: registered after the API (None: `default_blueprints()`,
    i.e. the web UI when present; [] for the API alone). Raises `auth.TokensFileError` for a
    malformed tokens file, so a bad deployment fails at startup, not on the first request."""
    from tunefarm_services.gateway import records_api  # noqa: F401  (its routes join `api`)
    from tunefarm_services.gateway.api import api

    config = config or ServiceConfig.from_env()
    app = Flask("tunefarm_services.gateway")
    state = Gateway.from_config(config)
    app.extensions["tunefarm"] = state
    # The largest body: one upload plus its form fields; the upload itself is checked exactly
    # in validation, which names the field.
    app.config["MAX_CONTENT_LENGTH"] = state.max_upload_bytes + UPLOAD_SLACK_BYTES
    app.register_blueprint(ops)
    app.register_blueprint(api, url_prefix=API_PREFIX)
    for blueprint in default_blueprints() if blueprints is None else blueprints:
        app.register_blueprint(blueprint)
    app.register_error_handler(HTTPException, _http_error)
    app.register_error_handler(Exception, _unexpected_error)
    app.after_request(_security_headers)
    if not len(state.tokens):
        log.warning("no API tokens (TUNEFARM_TOKENS_FILE unset or empty): every call is refused")
    return app


# -- errors: JSON under /api/v1, the defaults elsewhere (the UI renders its own) ---------------
def is_api_request() -> bool:
    return request.path == API_PREFIX or request.path.startswith(API_PREFIX + "/")


def json_error(status: int, message: str, /, **extra: Any) -> Response:
    """The API's error body: {"error": message, ...extra}."""
    response = jsonify({"error": message, **extra})
    response.status_code = status
    return response


def _http_error(exc: HTTPException):
    if not is_api_request():
        return exc
    if isinstance(exc, auth.AuthError):
        response = json_error(exc.code, exc.description)
        response.headers["WWW-Authenticate"] = exc.challenge()
        return response
    messages = {
        404: f"no route {request.path}",
        405: f"method {request.method} not allowed on {request.path}",
        413: f"request body too large: the upload limit is {gateway().config.max_upload_mb:g} MiB",
    }
    response = json_error(exc.code or 500, messages.get(exc.code, exc.description or exc.name))
    allowed = getattr(exc, "valid_methods", None)  # 405 tells which methods would do
    if allowed:
        response.headers["Allow"] = ", ".join(allowed)
    return response


def _unexpected_error(exc: Exception):
    """Redis down: 503 naming it (JSON for the API, a line of text for pages); anything
    else: logged, 500 without a traceback in the answer."""
    import redis

    if isinstance(exc, redis.exceptions.ConnectionError | redis.exceptions.TimeoutError):
        where = f"{escape(request.method)} {escape(request.path)}"
        log.warning("%s: Redis unavailable: %s", where, exc)
        message = f"job state store unavailable: {exc}"
        if is_api_request():
            return json_error(503, message)
        return Response(message + "\n", 503, mimetype="text/plain", headers={"Retry-After": "5"})
    log.exception("unhandled error on %s %s", escape(request.method), escape(request.path))
    if is_api_request():
        return json_error(500, "internal error (logged by the gateway)")
    return Response("internal error (logged by the gateway)\n", 500, mimetype="text/plain")


def _security_headers(response: Response) -> Response:
    """On every answer: browsers must not guess content types (an uploaded model or a
    records file rendered as HTML) nor frame any page (clickjacking)."""
    response.headers.setdefault("X-Content-Type-Options", "nosniff")
    response.headers.setdefault("X-Frame-Options", "DENY")
    if not request.path.startswith(STATIC_PREFIX):  # answers are per token: never cache them
        response.headers["Cache-Control"] = "no-store"
    return response


# -- operations endpoints: no token ---------------------------------------------------------------
ops = Blueprint("ops", __name__)


@ops.get("/healthz")
def healthz():
    """Liveness: the process answers. Always 200; no token (probes carry none)."""
    return jsonify({"status": "ok"})


@ops.get("/readyz")
def readyz():
    """Readiness: 200 when Redis (state and broker) answers PING, else 503 naming the
    problem, so Kubernetes routes no traffic to a gateway that cannot do its job. No token."""
    state = gateway()
    problems = []
    for name, client in (("redis", state.redis), ("broker", state.broker)):
        try:
            client.ping()
        except Exception as exc:  # the details (address, error) go to the log only
            log.warning("not ready: %s: %s did not answer PING: %s", name, _redact(client), exc)
            problems.append(name)
    if problems:
        message = f"{' and '.join(problems)} unavailable (the gateway's log says why)"
        return json_error(503, message, status="unavailable", problems=problems)
    return jsonify({"status": "ready"})


@ops.get("/metrics")
@auth.require(auth.METRICS)
def metrics():
    """Prometheus metrics, including jobs by state, devices and queue depths read from Redis
    at scrape time. Needs a token with the `metrics` scope (or `admin`): device keys and
    queue names map the farm. Job counts come from index sizes, so a scrape costs the same
    whatever the number of jobs."""
    from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

    # imported on first scrape, after the server prepared the multiprocess directory:
    # prometheus-client picks its value storage when it is first imported
    from tunefarm import metrics as tf_metrics
    from tunefarm.distributed.state_metrics import StateCollector

    state = gateway()
    if state.metrics_registry is None:
        state.metrics_registry = tf_metrics.registry([StateCollector(state.config)])
    return Response(generate_latest(state.metrics_registry), content_type=CONTENT_TYPE_LATEST)


def _redact(client) -> str:
    """host:port/db of a Redis client, without any password."""
    kwargs = client.connection_pool.connection_kwargs
    where = kwargs.get("path") or f"{kwargs.get('host')}:{kwargs.get('port')}"
    return f"redis at {where}/{kwargs.get('db', 0)}"
