"""Lowered functions handed from the search's featuriser to the build worker (issue 27).

The sketch search lowers every state it featurises for the cost model, and the build
worker used to lower the same candidate again to emit its source (on a Winograd conv the
lowering is a fifth of a second). The featuriser `remember`s its lowering here, in the
parent; `LocalBuilder` ships the pickled function with the build job (`pickled_for`), and
the worker hands it to the source generator for that one job only (`handed`, read back by
`handed_for`, which answers only for the very MeasureInput object of the job). A state not
remembered, a lowering that does not pickle, or a generator that does not ask: the worker
lowers it itself, as before. The key is the whole MeasureInput (task and config, as the
builder's own memo keys it), so another state never gets this one's lowering.
"""

from __future__ import annotations

import json
import pickle
import threading
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from tunefarm.measure.types import MeasureInput

# lowered functions the parent keeps (a Winograd conv's is about a megabyte of IR nodes;
# a batch is drawn from the states featurised last, so a short memory serves most of it)
MAX_REMEMBERED = 64

_remembered: OrderedDict[str, Any] = OrderedDict()
_lock = threading.Lock()  # the featuriser may run in a proposal thread beside build()
_handed: tuple[MeasureInput, Any] | None = None


def key(inp: MeasureInput) -> str:
    """The input's identity: its task and config as JSON (the builder's memo key)."""
    return json.dumps(inp.to_json(), sort_keys=True, default=repr)


def remember(inp: MeasureInput, func: Any) -> None:
    """Keep `func`, the lowering of `inp`'s schedule, for the build of `inp`."""
    k = key(inp)
    with _lock:
        _remembered[k] = func
        _remembered.move_to_end(k)
        while len(_remembered) > MAX_REMEMBERED:
            _remembered.popitem(last=False)


def pickled_for(input_key: str) -> bytes | None:
    """The remembered lowering of the input with this `key`, pickled for a build job;
    None when there is none or it does not pickle (the worker then lowers it)."""
    with _lock:
        func = _remembered.get(input_key)
    if func is None:
        return None
    try:
        return pickle.dumps(func, protocol=pickle.HIGHEST_PROTOCOL)
    except (RecursionError, pickle.PicklingError, TypeError, AttributeError):
        return None


def forget_all() -> None:
    """Drop every remembered lowering (tests; a search that is done)."""
    with _lock:
        _remembered.clear()


@contextmanager
def handed(inp: MeasureInput, pickled: bytes | None) -> Iterator[None]:
    """While the worker generates `inp`'s source, offer it the shipped lowering."""
    global _handed
    _handed = None
    if pickled is not None:
        try:
            _handed = (inp, pickle.loads(pickled))
        except Exception:  # a payload this worker cannot read: it lowers the input itself
            _handed = None
    try:
        yield
    finally:
        _handed = None


def handed_for(inp: MeasureInput) -> Any:
    """The lowering shipped with this very input's build job, else None."""
    if _handed is not None and _handed[0] is inp:
        return _handed[1]
    return None
