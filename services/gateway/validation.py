"""Validation of a job submission, shared by the REST API and the web UI's form.

`validate_submission` is a pure function (no Redis, no Flask): the caller passes what it
read from the request, the device keys that have a live agent, and the upload limit, and gets
back the job spec for `JobStore.create` plus one message per bad field, so the API can answer
400 JSON and the UI can show each message next to its field. Form values arrive as strings;
JSON values arrive typed; both go through the same converters.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from tunefarm.compiler.select import DEFAULT_TOP_K
from tunefarm.network import ZOO_PREFIX
from tunefarm.tune.factory import TUNER_NAMES as TUNERS

DEFAULT_TUNER = "xgb"
MAX_TRIALS = 20_000
MAX_BATCH = 64
MAX_SELECT_TOP = 8  # candidates per task timed inside the network (each: one more compile)
MAX_NAME = 200
MAX_RANK = 8  # dimensions of one input shape
UPLOAD_MODEL = "upload:model.onnx"  # spec["model"] of an uploaded network
# Every field a submission may carry; anything else is an error in the JSON API.
FIELDS = (
    "model",
    "target",
    "device_key",
    "trials",
    "tuner",
    "early_stopping",
    "select_top",
    "batch",
    "name",
    "input_shapes",
)
TOO_LARGE_STATUS = 413


class FieldErrors(dict):
    """field -> message; `status` says which HTTP status the errors call for (413 when the
    upload is over the limit, else 400), so callers need not parse messages."""

    too_large: bool = False

    @property
    def status(self) -> int:
        return TOO_LARGE_STATUS if self.too_large else 400


class _Invalid(ValueError):
    """One field's problem; the message is shown to the user as is."""


class _TooLarge(_Invalid):
    """The upload is over the limit (HTTP 413 rather than 400)."""


def validate_submission(
    fields: Mapping[str, Any],
    upload: bytes | None,
    known_device_keys: list[str],
    max_upload_bytes: int,
    upload_name: str | None = None,
) -> tuple[dict[str, Any], FieldErrors]:
    """Check a submission; returns (spec, errors). The spec is only meaningful when `errors`
    is empty. `upload` is the uploaded ONNX file (None: the model is a zoo name);
    `upload_name` is its file name, used as the job's default name."""
    spec: dict[str, Any] = {}
    errors = FieldErrors()
    checks = (
        ("model", lambda: _model(fields.get("model"), upload, max_upload_bytes)),
        ("target", lambda: _target(fields.get("target"))),
        ("device_key", lambda: _device_key(fields.get("device_key"), known_device_keys)),
        ("trials", lambda: _int(fields.get("trials"), 0, MAX_TRIALS, required=True)),
        ("tuner", lambda: _tuner(fields.get("tuner"))),
        ("early_stopping", lambda: _int(fields.get("early_stopping"), 1, None)),
        (
            "select_top",
            lambda: _int(fields.get("select_top"), 0, MAX_SELECT_TOP, default=DEFAULT_TOP_K),
        ),
        ("batch", lambda: _int(fields.get("batch"), 1, MAX_BATCH, default=1)),
        ("name", lambda: _name(fields.get("name"))),
        ("input_shapes", lambda: _input_shapes(fields.get("input_shapes"))),
    )
    for field, check in checks:
        try:
            spec[field] = check()
        except _TooLarge as exc:
            errors[field] = str(exc)
            errors.too_large = True
        except _Invalid as exc:
            errors[field] = str(exc)
    if "model" in spec and spec.get("name") is None:
        spec["name"] = _default_name(spec["model"], upload_name)
    if spec.get("input_shapes") is None:
        spec.pop("input_shapes", None)  # absent rather than null: the documented job document
    return spec, errors


def unknown_fields(fields: Mapping[str, Any]) -> FieldErrors:
    """Errors for fields no submission has (a typo such as "trial" would otherwise be
    silently ignored). The JSON API uses this; HTML forms may carry extra inputs."""
    errors = FieldErrors()
    for field in fields:
        if field not in FIELDS:
            errors[field] = f"unknown field; a submission has {', '.join(FIELDS)}"
    return errors


# -- the model ----------------------------------------------------------------------------------
def _model(value: Any, upload: bytes | None, max_upload_bytes: int) -> str:
    if upload is not None:
        if _present(value):
            raise _Invalid("give either a zoo model name or an uploaded file, not both")
        _check_onnx(upload, max_upload_bytes)
        return UPLOAD_MODEL
    if not _present(value):
        raise _Invalid("missing: give a zoo model name (e.g. 'zoo:resnet-18') or upload an .onnx")
    if not isinstance(value, str):
        raise _Invalid(f"must be a string (a zoo model name), got {_kind(value)}")
    return _zoo_model(value.strip())


def _zoo_model(text: str) -> str:
    from tunefarm.frontend import zoo

    if text.startswith("upload:"):
        raise _Invalid("to use your own model, upload it as the multipart/form-data file 'model'")
    name = text.removeprefix(ZOO_PREFIX)
    if name not in zoo.names():
        raise _Invalid(f"unknown zoo model {name!r}; known: {', '.join(zoo.names())}")
    return ZOO_PREFIX + name


def _check_onnx(data: bytes, max_upload_bytes: int) -> None:
    """Refuse uploads over the limit and bytes that are not an ONNX model with a graph."""
    if len(data) > max_upload_bytes:
        raise _TooLarge(
            f"the upload is {len(data)} bytes, over the limit of {max_upload_bytes} bytes "
            f"({max_upload_bytes / 2**20:.3g} MiB)"
        )
    if not data:
        raise _Invalid("the uploaded file is empty")
    import onnx

    model = onnx.ModelProto()
    try:
        model.ParseFromString(data)
    except Exception as exc:  # protobuf's DecodeError and friends
        raise _Invalid(f"not an ONNX model: {exc or type(exc).__name__}") from None
    if not model.HasField("graph") or not model.graph.node:
        raise _Invalid("not an ONNX model: it has no graph with at least one node")


def _default_name(model: str, upload_name: str | None) -> str:
    if model == UPLOAD_MODEL:
        stem = re.sub(r"\.onnx$", "", (upload_name or "").strip(), flags=re.IGNORECASE)
        return stem[:MAX_NAME] or "model"
    return model.removeprefix(ZOO_PREFIX)


# -- the other fields ---------------------------------------------------------------------------
def _target(value: Any) -> str:
    from tunefarm.codegen.target import Target, TargetError

    text = _string(value, "a target such as 'cpu' or 'cpu -isa=avx2'")
    try:
        return str(Target.parse(text))
    except TargetError as exc:
        raise _Invalid(str(exc)) from None


def _device_key(value: Any, known: list[str]) -> str:
    key = _string(value, "the key of a device agent")
    if key in known:
        return key
    if not known:
        raise _Invalid(
            f"unknown device key {key!r}: no device agent is registered "
            "(start one with `tunefarm agent --key KEY --target TARGET`)"
        )
    raise _Invalid(f"unknown device key {key!r}; keys with a live agent: {', '.join(known)}")


def _tuner(value: Any) -> str:
    if not _present(value):
        return DEFAULT_TUNER
    if not isinstance(value, str) or value.strip() not in TUNERS:
        raise _Invalid(f"unknown tuner {value!r}; one of {', '.join(TUNERS)}")
    return value.strip()


def _name(value: Any) -> str | None:
    if not _present(value):
        return None
    if not isinstance(value, str):
        raise _Invalid(f"must be a string, got {_kind(value)}")
    if len(value.strip()) > MAX_NAME:
        raise _Invalid(f"at most {MAX_NAME} characters")
    return value.strip()


def _input_shapes(value: Any) -> dict[str, list[int]] | None:
    """{input name: [dims]}; a form sends it as JSON text."""
    if not _present(value):
        return None
    if isinstance(value, str):
        import json

        try:
            value = json.loads(value)
        except ValueError as exc:
            raise _Invalid(f'not valid JSON ({exc}); e.g. {{"data": [1, 3, 224, 224]}}') from None
    if not isinstance(value, dict) or not value:
        raise _Invalid('must map input names to shapes, e.g. {"data": [1, 3, 224, 224]}')
    shapes = {}
    for name, dims in value.items():
        ok = isinstance(dims, list) and 0 < len(dims) <= MAX_RANK
        if not ok or not all(isinstance(d, int) and not isinstance(d, bool) for d in dims):
            raise _Invalid(f"input {name!r}: a shape is a list of 1-{MAX_RANK} integers")
        if min(dims) < 1:
            raise _Invalid(f"input {name!r}: dimensions must be >= 1, got {dims}")
        shapes[str(name)] = dims
    return shapes


# -- converters ---------------------------------------------------------------------------------
def _present(value: Any) -> bool:
    """None and "" (an empty form field) both mean "not given"."""
    return value is not None and not (isinstance(value, str) and value.strip() == "")


def _kind(value: Any) -> str:
    return {bool: "a boolean", list: "a list", dict: "an object"}.get(
        type(value), type(value).__name__
    )


def _string(value: Any, what: str) -> str:
    if not _present(value):
        raise _Invalid(f"missing: give {what}")
    if not isinstance(value, str):
        raise _Invalid(f"must be a string ({what}), got {_kind(value)}")
    return value.strip()


def _int(
    value: Any, low: int, high: int | None, required: bool = False, default: int | None = None
) -> int | None:
    """An integer in [low, high]; form strings are converted. Absent: `default`, or an
    error when `required`."""
    if not _present(value):
        if required:
            raise _Invalid("missing: give an integer")
        return default
    if isinstance(value, str) and re.fullmatch(r"\s*[+-]?\d+\s*", value):
        value = int(value)
    if not isinstance(value, int) or isinstance(value, bool):
        raise _Invalid(f"must be an integer, got {value!r}")
    if value < low or (high is not None and value > high):
        bounds = f"between {low} and {high}" if high is not None else f">= {low}"
        raise _Invalid(f"must be {bounds}, got {value}")
    return value
