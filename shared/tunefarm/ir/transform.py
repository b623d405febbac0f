"""Generic rewriting of expression trees.

`rewrite(e, fn)` rebuilds a tree bottom-up, letting `fn` replace any node; every pass that
substitutes variables, inlines stages or retargets loads is a small `fn` on top of it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping

from tunefarm.ir.expr import (
    Binary,
    Call,
    Cast,
    Compare,
    Expr,
    Load,
    Logical,
    Reduce,
    Select,
    Var,
)
from tunefarm.ir.tensor import walk


def _rebuild(e: Expr, go: Callable[[Expr], Expr]) -> Expr:
    kind = type(e)
    if kind is Binary or kind is Compare:
        a, b = go(e.a), go(e.b)  # type: ignore[attr-defined]
        if a is e.a and b is e.b:  # type: ignore[attr-defined]
            return e
        # the constructor, not dataclasses.replace: this runs for every node an unrolled
        # copy rebuilds, and replace costs three times the call
        return kind(e.op, a, b, e.dtype)  # type: ignore[attr-defined]
    if isinstance(e, Logical):
        a = go(e.a)
        b = None if e.b is None else go(e.b)
        return e if a is e.a and b is e.b else Logical(e.op, a, b, e.dtype)
    if isinstance(e, Select):
        c, t, f = go(e.cond), go(e.true_value), go(e.false_value)
        return Select(c, t, f, e.dtype)
    if isinstance(e, Cast):
        return dataclasses.replace(e, value=go(e.value))
    if isinstance(e, Call):
        return dataclasses.replace(e, args=tuple(go(a) for a in e.args))
    if isinstance(e, Load):
        return dataclasses.replace(e, indices=tuple(go(i) for i in e.indices))
    if isinstance(e, Reduce):
        return dataclasses.replace(e, source=go(e.source))
    rebuild_children = getattr(e, "rebuild_children", None)
    if rebuild_children is not None:  # codegen-level nodes (e.g. BufferLoad) opt in
        return rebuild_children(go)
    return e


def rebuild_children(e: Expr, go: Callable[[Expr], Expr]) -> Expr:
    """The node with `go` applied to each direct child (the node itself when none changed,
    for most node kinds): one step of `rewrite`, for passes that drive their own recursion."""
    return _rebuild(e, go)


def rewrite(e: Expr, fn: Callable[[Expr], Expr | None]) -> Expr:
    """Post-order rewrite: children first, then `fn(node)`; None keeps the node."""

    def go(node: Expr) -> Expr:
        node = _rebuild(node, go)
        out = fn(node)
        return node if out is None else out

    return go(e)


def substitute(e: Expr, mapping: Mapping[str, Expr]) -> Expr:
    """Replace variables by name."""
    if not mapping:
        return e

    def fn(node: Expr) -> Expr | None:
        if isinstance(node, Var) and node.name in mapping:
            return mapping[node.name]
        return None

    return rewrite(e, fn)


def free_vars(e: Expr) -> set[str]:
    return {n.name for n in walk(e) if isinstance(n, Var)}
