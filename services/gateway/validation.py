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
from tunefarm.distributed.fairshare import PRIORITY_DEFAULT, PRIORITY_MAX, PRIORITY_MIN
from tunefarm.frontend.models import ZOO_PREFIX
from tunefarm.recipe.reuse import DEFAULT_MIN_TRIALS, REUSE_MODES
from tunefarm.tune.factory import TUNER_NAMES as TUNERS
from tunefarm.tune.policy import POLICIES

DEFAULT_TUNER = "xgb"
DEFAULT_POLICY = "template"
MAX_TRIALS = 20_000
MAX_BATCH = 64
MAX_SELECT_TOP = 8  # candidates per task timed inside the network (each: one more compile)
MAX_NAME = 200
MAX_RANK = 8  # dimensions of one input shape
MAX_DIGITS = 18  # digits of a form integer: far beyond every bound, far below int()'s limit
MAX_INPUTS = 64  # entries of input_shapes
MAX_DIM = 1 << 31  # one dimension; the importer's tensor budget checks the product
UPLOAD_MODEL = "upload:model.onnx"  # spec["model"] of an uploaded network
# Every field a submission may carry; anything else is an error in the JSON API.
FIELDS = (
    "model",
    "target",
    "device_key",
    "trials",
    "tuner",
    "policy",
    "early_stopping",
    "select_top",
    "batch",
    "name",
    "input_shapes",
    "quantize",
    "reuse",
    "reuse_min_trials",
    "priority",
)
QUANTIZE = ("int8",)  # the only scheme a job can ask for: the packed (vta) flow's
PACKED_TARGETS = ("vta", "vta -config=1x32x32")  # offered by the submit form (the presets)
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
    device_targets: Mapping[str, set[str]],
    max_upload_bytes: int,
    upload_name: str | None = None,
) -> tuple[dict[str, Any], FieldErrors]:
    """Check a submission; returns (spec, errors). The spec is only meaningful when `errors`
    is empty. `device_targets` maps each device key with a live agent to the targets its
    agents serve. `upload` is the uploaded ONNX file (None: the model is a zoo name);
    `upload_name` is its file name, used as the job's default name."""
    spec: dict[str, Any] = {}
    errors = FieldErrors()
    checks = (
        ("model", lambda: _model(fields.get("model"), upload, max_upload_bytes)),
        ("target", lambda: _target(fields.get("target"))),
        ("device_key", lambda: _device_key(fields.get("device_key"), sorted(device_targets))),
        ("trials", lambda: _int(fields.get("trials"), 0, MAX_TRIALS, required=True)),
        ("tuner", lambda: _tuner(fields.get("tuner"))),
        ("policy", lambda: _policy(fields.get("policy"))),
        ("early_stopping", lambda: _int(fields.get("early_stopping"), 1, None)),
        (
            "select_top",
            lambda: _int(fields.get("select_top"), 0, MAX_SELECT_TOP, default=DEFAULT_TOP_K),
        ),
        ("batch", lambda: _int(fields.get("batch"), 1, MAX_BATCH, default=1)),
        ("name", lambda: _name(fields.get("name"))),
        ("input_shapes", lambda: _input_shapes(fields.get("input_shapes"))),
        ("quantize", lambda: _quantize(fields.get("quantize"))),
        ("reuse", lambda: _reuse(fields.get("reuse"))),
        (
            "reuse_min_trials",
            lambda: _int(fields.get("reuse_min_trials"), 1, None, default=DEFAULT_MIN_TRIALS),
        ),
        ("priority", lambda: _priority(fields.get("priority"))),
    )
    for field, check in checks:
        try:
            spec[field] = check()
        except _TooLarge as exc:
            errors[field] = str(exc)
            errors.too_large = True
        except _Invalid as exc:
            errors[field] = str(exc)
    if "target" in spec and "quantize" in spec:
        _check_packed(spec, errors)
    if "target" in spec and "device_key" in spec:
        served = device_targets[spec["device_key"]]
        if spec["target"] not in served:
            errors["target"] = (
                f"device key {spec['device_key']!r} is served by agents of target "
                f"{', '.join(repr(t) for t in sorted(served))}, not {spec['target']!r}"
            )
    if "model" in spec and spec.get("name") is None:
        spec["name"] = _default_name(spec["model"], upload_name)
    for optional in ("input_shapes", "quantize"):
        if spec.get(optional) is None:
            spec.pop(optional, None)  # absent rather than null: the documented job document
    return spec, errors


def unknown_fields(fields: Mapping[str, Any]) -> FieldErrors:
    """Errors for fields no submission has (a typo such as "trial" would otherwise be
    silently ignored). The JSON API uses this; HTML forms may carry extra inputs."""
    errors = FieldErrors()
    for field in fields:
        if field not in FIELDS:
            errors[field] = f"unknown field; a submission has {', '.join(FIELDS)}"
    return errors


def _priority(value: Any) -> int:
    return _int(value, PRIORITY_MIN, PRIORITY_MAX, default=PRIORITY_DEFAULT)


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
        raise _Invalid(f"unknown zoo model {_show(name)}; known: {', '.join(zoo.names())}")
    return ZOO_PREFIX + name


def _check_onnx(data: bytes, max_upload_bytes: int) -> None:
    """Refuse uploads over the limit and bytes that are not an ONNX model with a graph,
    without external data and within the tensor budget (see `upload_check`)."""
    if len(data) > max_upload_bytes:
        raise _TooLarge(
            f"the upload is {len(data)} bytes, over the limit of {max_upload_bytes} bytes "
            f"({max_upload_bytes / 2**20:.3g} MiB)"
        )
    if not data:
        raise _Invalid("the uploaded file is empty")
    from tunefarm.distributed.upload_check import UploadProblem, check_upload

    try:
        check_upload(data)  # in a child with a memory limit: never parsed in the gateway
    except UploadProblem as exc:
        raise _Invalid(str(exc)) from None


def _default_name(model: str, upload_name: str | None) -> str:
    if model == UPLOAD_MODEL:
        stem = re.sub(r"\.onnx$", "", (upload_name or "").strip(), flags=re.IGNORECASE)
        return stem[:MAX_NAME] or "model"
    return model.removeprefix(ZOO_PREFIX)


# -- the other fields ---------------------------------------------------------------------------
def _target(value: Any) -> str:
    """A canonical target whose backend compiles networks, or packs them (vta: checked with
    `quantize` in `_check_packed`)."""
    from tunefarm.backends import TargetError, canonical, network_target_error, parse_target

    text = _string(value, "a target such as 'cpu' or 'cpu -isa=avx2'")
    try:
        _rest_target(text)
        target = canonical(text)
    except TargetError as exc:
        raise _Invalid(str(exc)) from None
    problem = network_target_error(parse_target(target).kind)
    if problem and not _packs(target):
        raise _Invalid(f"target {target!r}: {problem}")
    return target


def _rest_target(text: str) -> None:
    """What a target given over the network may not do, checked before any backend parses
    its options: name an unknown kind, or name a file (`vta -config=FILE.json` reads the
    file: from a request that would be a file-existence oracle, a leak of its first key, or
    /dev/zero read until the gateway runs out of memory). Files are for the CLI; here only
    the presets shipped with tunefarm."""
    from tunefarm.backends import TargetError, kinds, usage
    from tunefarm.target import split_target

    kind, options = split_target(text)
    if kind not in kinds():
        raise TargetError(
            f"target {text[:80]!r}: no backend for {kind[:40]!r}; targets that exist: {usage()}"
        )
    for key, value in options.items():
        if _names_file(value):
            raise TargetError(
                f"option -{key[:40]}: over the API an option takes a name (e.g. a preset such "
                "as vta -config=1x32x32), not a file path; config files are for the CLI"
            )


def _names_file(value: str) -> bool:
    """Whether an option value would be read as a file (a path, or a name ending .json)."""
    return (
        any(c in value for c in "/\\\0")
        or value.startswith(("~", "."))
        or value.lower().endswith(".json")
    )


def _packs(target: str) -> bool:
    """Whether the target's backend runs networks packed (graph_pack), as vta does."""
    from tunefarm.backends import get_backend, parse_target

    return hasattr(get_backend(parse_target(target).kind), "pack_blocks")


def _quantize(value: Any) -> str | None:
    if not _present(value):
        return None
    if not isinstance(value, str) or value.strip() not in QUANTIZE:
        raise _Invalid(f"unknown quantization {_show(value)}; one of {', '.join(QUANTIZE)}")
    return value.strip()


def _check_packed(spec: dict[str, Any], errors: FieldErrors) -> None:
    """A packing target (vta) runs networks quantized to int8 only, with template tuning;
    other targets take no `quantize` in a job (their int8 flow is the CLI's for now)."""
    target, quantize = spec["target"], spec["quantize"]
    if not _packs(target):
        if quantize is not None:
            errors["quantize"] = (
                f"quantize {quantize!r} is for packed targets (vta) only; target {target!r} "
                "runs the float network (for its int8 flow use `tunefarm tune --quantize int8`)"
            )
        return
    if quantize != "int8":
        errors["quantize"] = (
            f"target {target!r} runs networks quantized to int8 and packed for the "
            "accelerator (graph_pack): give quantize 'int8'"
        )
    if spec.get("policy", DEFAULT_POLICY) != DEFAULT_POLICY:
        errors["policy"] = (
            f"target {target!r} tunes its packed convs with templates only: give policy "
            f"{DEFAULT_POLICY!r}, not {spec['policy']!r}"
        )


def _device_key(value: Any, known: list[str]) -> str:
    key = _string(value, "the key of a device agent")
    if key in known:
        return key
    if not known:
        raise _Invalid(
            f"unknown device key {_show(key)}: no device agent is registered "
            "(start one with `tunefarm agent --key KEY --target TARGET`)"
        )
    raise _Invalid(f"unknown device key {_show(key)}; keys with a live agent: {', '.join(known)}")


def _tuner(value: Any) -> str:
    if not _present(value):
        return DEFAULT_TUNER
    if not isinstance(value, str) or value.strip() not in TUNERS:
        raise _Invalid(f"unknown tuner {_show(value)}; one of {', '.join(TUNERS)}")
    return value.strip()


def _policy(value: Any) -> str:
    if not _present(value):
        return DEFAULT_POLICY
    if not isinstance(value, str) or value.strip() not in POLICIES:
        raise _Invalid(f"unknown policy {_show(value)}; one of {', '.join(POLICIES)}")
    return value.strip()


def _reuse(value: Any) -> str:
    """How the job uses the record store (recipe.reuse): best, warm (default) or off."""
    if not _present(value):
        return "warm"
    if not isinstance(value, str) or value.strip() not in REUSE_MODES:
        raise _Invalid(f"unknown reuse {_show(value)}; one of {', '.join(REUSE_MODES)}")
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
        except RecursionError:
            raise _Invalid("nested too deeply to be a shape map") from None
        except ValueError as exc:
            raise _Invalid(f'not valid JSON ({exc}); e.g. {{"data": [1, 3, 224, 224]}}') from None
    if not isinstance(value, dict) or not value:
        raise _Invalid('must map input names to shapes, e.g. {"data": [1, 3, 224, 224]}')
    if len(value) > MAX_INPUTS:
        raise _Invalid(f"at most {MAX_INPUTS} inputs, got {len(value)}")
    shapes = {}
    for name, dims in value.items():
        shown = str(name)[:MAX_NAME]
        ok = isinstance(dims, list) and 0 < len(dims) <= MAX_RANK
        if not ok or not all(isinstance(d, int) and not isinstance(d, bool) for d in dims):
            raise _Invalid(f"input {shown!r}: a shape is a list of 1-{MAX_RANK} integers")
        if min(dims) < 1:
            raise _Invalid(f"input {shown!r}: dimensions must be >= 1, got {_show(dims)}")
        if max(dims) > MAX_DIM:
            raise _Invalid(f"input {shown!r}: dimensions must be <= {MAX_DIM}, got {_show(dims)}")
        shapes[str(name)] = dims
    return shapes


# -- converters ---------------------------------------------------------------------------------
def _present(value: Any) -> bool:
    """None and "" (an empty form field) both mean "not given"."""
    return value is not None and not (isinstance(value, str) and value.strip() == "")


def _show(value: Any) -> str:
    """A short repr for a message: a hostile value can be huge or nested thousands deep."""
    import reprlib

    short = reprlib.Repr()
    short.maxlevel, short.maxstring, short.maxother = 3, 60, 60
    short.maxlist = short.maxdict = 8
    return short.repr(value)


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
        if len(value.strip().lstrip("+-")) > MAX_DIGITS:  # int() refuses > 4,300 digits
            raise _Invalid(f"must be an integer of at most {MAX_DIGITS} digits")
        value = int(value)
    if not isinstance(value, int) or isinstance(value, bool):
        raise _Invalid(f"must be an integer, got {_show(value)}")
    if value < low or (high is not None and value > high):
        bounds = f"between {low} and {high}" if high is not None else f">= {low}"
        raise _Invalid(f"must be {bounds}, got {value}")
    return value
