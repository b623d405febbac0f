"""Integer arithmetic analysis: affine forms, interval bounds and simplification.

Bound inference (which region of a producer does a loop tile read?), guard elimination
(is `x < 56` always true here?) and vectorisation (is this load contiguous in the vector
lane?) all reduce to the same two questions about index expressions: what is its affine form
in the loop variables, and what interval can it take. This module answers both.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import partial

from tunefarm.ir.expr import (
    Binary,
    Compare,
    Const,
    Expr,
    Logical,
    Select,
    Var,
    is_float,
)
from tunefarm.ir.tensor import children, walk
from tunefarm.ir.transform import free_vars, rebuild_children, rewrite

Range = tuple[float, float]  # inclusive [lo, hi]; may be infinite
INF = math.inf


@dataclass
class Affine:
    """sum(coefs[v] * v) + sum(c * opaque_expr) + const, over int32 variables."""

    coefs: dict[str, int] = field(default_factory=dict)
    const: int = 0
    opaque: list[tuple[Expr, int]] = field(default_factory=list)

    def scaled(self, k: int) -> Affine:
        return Affine(
            {v: c * k for v, c in self.coefs.items()},
            self.const * k,
            [(e, c * k) for e, c in self.opaque],
        )

    def plus(self, other: Affine) -> Affine:
        coefs = dict(self.coefs)
        for v, c in other.coefs.items():
            coefs[v] = coefs.get(v, 0) + c
        opaque = list(self.opaque)
        for e, c in other.opaque:
            for i, (e2, c2) in enumerate(opaque):
                if e2 == e:
                    opaque[i] = (e2, c2 + c)
                    break
            else:
                opaque.append((e, c))
        return Affine(
            {v: c for v, c in coefs.items() if c},
            self.const + other.const,
            [(e, c) for e, c in opaque if c],
        )

    @property
    def is_const(self) -> bool:
        return not self.coefs and not self.opaque


AffineMemo = dict[int, tuple[Expr, Affine]]  # id(node) -> (node, its affine form)


def to_affine(e: Expr, memo: AffineMemo | None = None) -> Affine:
    """Affine form of an integer expression; non-affine parts become opaque terms. With a
    memo, forms of nodes seen before (by identity) are reused; the forms are never mutated."""
    if memo is None:
        return _to_affine(e, None)
    hit = memo.get(id(e))
    return _to_affine(e, memo) if hit is None else hit[1]


def _to_affine(e: Expr, memo: AffineMemo | None) -> Affine:
    if isinstance(e, Const):
        return Affine(const=int(e.value))
    if isinstance(e, Var):
        return Affine({e.name: 1})
    if isinstance(e, Binary) and e.op in ("+", "-"):
        a, b = to_affine(e.a, memo), to_affine(e.b, memo)
        return a.plus(b if e.op == "+" else b.scaled(-1))
    if isinstance(e, Binary) and e.op == "*":
        a, b = to_affine(e.a, memo), to_affine(e.b, memo)
        if b.is_const:
            return a.scaled(b.const)
        if a.is_const:
            return b.scaled(a.const)
    return Affine(opaque=[(e, 1)])


def from_affine(a: Affine, dtype: str = "int32") -> Expr:
    terms: list[Expr] = []
    for v, c in a.coefs.items():
        terms.append(Var(v, dtype) if c == 1 else Binary("*", Var(v, dtype), Const(c), dtype))
    for e, c in a.opaque:
        terms.append(e if c == 1 else Binary("*", e, Const(c), dtype))
    if not terms:
        return Const(a.const, dtype)
    out = terms[0]
    for t in terms[1:]:
        out = Binary("+", out, t, dtype)
    if a.const > 0:
        out = Binary("+", out, Const(a.const), dtype)
    elif a.const < 0:
        out = Binary("-", out, Const(-a.const), dtype)
    return out


def _mul_range(a: Range, b: Range) -> Range:
    cands = []
    for x in a:
        for y in b:
            cands.append(0.0 if (x == 0 or y == 0) else x * y)
    return (min(cands), max(cands))


def bounds(e: Expr, ranges: Mapping[str, Range]) -> Range:
    """Interval of an integer expression given inclusive ranges of its variables."""
    if isinstance(e, Const):
        return (e.value, e.value)
    if isinstance(e, Var):
        return ranges.get(e.name, (-INF, INF))
    if isinstance(e, Binary):
        a, b = bounds(e.a, ranges), bounds(e.b, ranges)
        if e.op == "+":
            return (a[0] + b[0], a[1] + b[1])
        if e.op == "-":
            return (a[0] - b[1], a[1] - b[0])
        if e.op == "*":
            return _mul_range(a, b)
        if e.op == "min":
            return (min(a[0], b[0]), min(a[1], b[1]))
        if e.op == "max":
            return (max(a[0], b[0]), max(a[1], b[1]))
        if e.op in ("//", "%") and isinstance(e.b, Const) and e.b.value > 0 and a[0] >= 0:
            c = e.b.value
            if e.op == "//":
                return (a[0] // c, a[1] // c)
            if a[1] - a[0] < c and a[0] % c <= a[1] % c:
                return (a[0] % c, a[1] % c)
            return (0, c - 1)
    if isinstance(e, Select):
        t, f = bounds(e.true_value, ranges), bounds(e.false_value, ranges)
        return (min(t[0], f[0]), max(t[1], f[1]))
    return (-INF, INF)


def _fold_div_mod(
    e: Binary, ranges: Mapping[str, Range], memo: AffineMemo | None = None
) -> Expr | None:
    """(q*c + r) // c -> q and (q*c + r) % c -> r when 0 <= r < c."""
    if not (isinstance(e.b, Const) and e.b.value > 0):
        return None
    c = int(e.b.value)
    if c == 1:
        return e.a if e.op == "//" else Const(0)
    num = to_affine(e.a, memo)
    q = Affine({v: k // c for v, k in num.coefs.items() if k % c == 0}, num.const // c)
    q.opaque = [(x, k // c) for x, k in num.opaque if k % c == 0]
    r = Affine({v: k for v, k in num.coefs.items() if k % c}, num.const % c)
    r.opaque = [(x, k) for x, k in num.opaque if k % c]
    lo, hi = bounds(from_affine(r), ranges)
    if 0 <= lo and hi < c:
        return from_affine(q) if e.op == "//" else from_affine(r)
    return None


def _decide(e: Compare, ranges: Mapping[str, Range], memo: AffineMemo | None = None) -> bool | None:
    lo, hi = bounds(simplify_int(Binary("-", e.a, e.b, "int32"), ranges, memo), ranges)
    table = {
        "<": (hi < 0, lo >= 0),
        "<=": (hi <= 0, lo > 0),
        ">": (lo > 0, hi <= 0),
        ">=": (lo >= 0, hi < 0),
        "==": (lo == hi == 0, lo > 0 or hi < 0),
        "!=": (lo > 0 or hi < 0, lo == hi == 0),
    }
    true, false = table[e.op]
    return True if true else False if false else None


def simplify_int(e: Expr, ranges: Mapping[str, Range], memo: AffineMemo | None = None) -> Expr:
    return from_affine(to_affine(e, memo), e.dtype)


def simplify(e: Expr, ranges: Mapping[str, Range] | None = None) -> Expr:
    """Constant folding, affine canonicalisation, div/mod folding, provable conditions.

    The rewrite is post-order, so each sum or product node's affine form is built from its
    simplified children's: the memo (by identity, for this call) keeps those forms, and a
    chain of n terms costs O(n) rather than re-walking every subtree, O(n^2). Same result
    as without it (`SubstSimplifier` relies on the same memo)."""
    ranges = ranges or {}
    memo: AffineMemo = {}
    return rewrite(e, lambda node: _simplify_node(node, ranges, memo))


def _simplify_node(
    node: Expr, ranges: Mapping[str, Range], memo: AffineMemo | None = None
) -> Expr | None:
    """One step of `simplify` on a node whose children are simplified already."""
    if isinstance(node, Binary):
        return _simplify_binary(node, ranges, memo)
    if isinstance(node, Compare) and not is_float(node.a.dtype):
        decided = _decide(node, ranges, memo)
        return None if decided is None else Const(int(decided), "bool")
    if isinstance(node, Logical):
        return _simplify_logical(node)
    if isinstance(node, Select) and isinstance(node.cond, Const):
        return node.true_value if node.cond.value else node.false_value
    return None


_NO_VARS: frozenset[str] = frozenset()


def _has_negative_zero(e: Expr) -> bool:
    return any(
        isinstance(n, Const) and n.value == 0 and math.copysign(1.0, n.value) < 0 for n in walk(e)
    )


class SubstSimplifier:
    """`simplify(substitute(e, {var: value}), ranges)` for many (var, value) pairs over the
    same trees, as explicit unrolling asks: once per copy and per unrolled level.

    `simplify` is a post-order rewrite whose step looks only at the node and its already
    simplified children, so a subtree's result depends on the subtree alone. A subtree
    without `var` is unchanged by the substitution, and its simplified form is the same in
    every copy: it is computed once and kept, by object identity (the memo holds the node,
    so its id is not reused). Only the paths from `var` to the roots are redone per copy.
    The result is the same tree `simplify(substitute(...))` builds (same C text)."""

    def __init__(self, ranges: Mapping[str, Range] | None):
        self.ranges = ranges or {}
        self._free: dict[int, tuple[Expr, frozenset[str]]] = {}
        self._simplified: dict[int, tuple[Expr, Expr]] = {}
        self._affine: AffineMemo = {}
        self._by_value: dict[Expr, Expr] = {}
        self._negzero: dict[int, tuple[Expr, bool]] = {}

    def clear(self) -> None:
        """Drop the memos (they hold every node seen; the emitter is done with them)."""
        self._free.clear()
        self._simplified.clear()
        self._affine.clear()
        self._by_value.clear()
        self._negzero.clear()

    def __call__(self, e: Expr, var: str, value: Expr) -> Expr:
        return self._go(e, var, simplify(value, self.ranges))

    def _go(self, node: Expr, var: str, value: Expr) -> Expr:
        # a method, not a closure over itself: no reference cycle holds the memos, so they
        # are freed as soon as the emitter drops the simplifier
        if var not in self.free_vars(node):
            return self.simplified(node)
        if isinstance(node, Var):
            return value
        node = rebuild_children(node, lambda c: self._go(c, var, value))
        out = _simplify_node(node, self.ranges, self._affine)
        return node if out is None else out

    def free_vars(self, node: Expr) -> frozenset[str]:
        hit = self._free.get(id(node))
        if hit is None:
            if isinstance(node, Var):
                names = frozenset((node.name,))
            else:
                names = _NO_VARS
                for c in children(node):
                    sub = self.free_vars(c)
                    names = sub if not names else names | sub if sub else names
            hit = self._free[id(node)] = (node, names)
        return hit[1]

    def has_negative_zero(self, node: Expr) -> bool:
        """`_has_negative_zero`, memoised by node like `free_vars`: asked of every var-free
        subtree, which share their own subtrees."""
        hit = self._negzero.get(id(node))
        if hit is None:
            if isinstance(node, Const):
                found = node.value == 0 and math.copysign(1.0, node.value) < 0
            else:
                found = any(self.has_negative_zero(c) for c in children(node))
            hit = self._negzero[id(node)] = (node, found)
        return hit[1]

    def simplified(self, node: Expr) -> Expr:
        hit = self._simplified.get(id(node))
        if hit is None:
            # an equal tree built by another copy: same result (equality ignores only 1 vs
            # 1.0, which print alike, and 0.0 vs -0.0, which do not: such trees stay out)
            keyed = not self.has_negative_zero(node)
            out = self._by_value.get(node) if keyed else None
            if out is None:
                out = rewrite(node, partial(_simplify_node, ranges=self.ranges, memo=self._affine))
                if keyed:
                    self._by_value[node] = out
            hit = self._simplified[id(node)] = (node, out)
        return hit[1]


def _simplify_binary(
    node: Binary, ranges: Mapping[str, Range], memo: AffineMemo | None = None
) -> Expr | None:
    a, b = node.a, node.b
    if is_float(node.dtype):
        if isinstance(a, Const) and isinstance(b, Const) and node.op in ("+", "-", "*"):
            val = {"+": a.value + b.value, "-": a.value - b.value, "*": a.value * b.value}
            return Const(float(val[node.op]), node.dtype)
        return _float_identities(node)
    if node.op in ("+", "-", "*"):
        form = to_affine(node, memo)
        out = from_affine(form, node.dtype)
        if memo is not None and _round_trips(form):
            memo[id(out)] = (out, form)  # the parent's to_affine need not walk `out` again
        return out
    if node.op in ("//", "%"):
        if isinstance(a, Const) and isinstance(b, Const) and b.value > 0:
            return Const(a.value // b.value if node.op == "//" else a.value % b.value)
        return _fold_div_mod(node, ranges, memo)
    if node.op in ("min", "max"):
        ra, rb = bounds(a, ranges), bounds(b, ranges)
        if node.op == "min":
            return a if ra[1] <= rb[0] else b if rb[1] <= ra[0] else None
        return a if ra[0] >= rb[1] else b if rb[0] >= ra[1] else None
    return None


def _round_trips(a: Affine) -> bool:
    """Whether `to_affine(from_affine(a))` gives `a` back, same terms in the same order:
    true unless a coefficient is zero (a sum drops zero terms, a lone product keeps them)."""
    return all(a.coefs.values()) and all(c for _, c in a.opaque)


def _float_identities(node: Binary) -> Expr | None:
    """x*0 -> 0, x*1 -> x, x+0 -> x, x-0 -> x. Constant coefficient tables (Winograd's
    transforms) unroll into terms with zero and unit coefficients, and C compilers keep them:
    without -ffast-math, x*0 is not 0 for x = inf or NaN. The fold treats them as exact."""
    a, b = node.a, node.b
    zero = [isinstance(x, Const) and x.value == 0 for x in (a, b)]
    one = [isinstance(x, Const) and x.value == 1 for x in (a, b)]
    if node.op == "*":
        if any(zero):
            return Const(0.0, node.dtype)
        if one[0] and b.dtype == node.dtype:
            return b
        if one[1] and a.dtype == node.dtype:
            return a
    elif node.op == "+":
        if zero[0] and b.dtype == node.dtype:
            return b
        if zero[1] and a.dtype == node.dtype:
            return a
    elif node.op == "-" and zero[1] and a.dtype == node.dtype:
        return a
    return None


def _simplify_logical(node: Logical) -> Expr | None:
    a, b = node.a, node.b
    if node.op == "not":
        return Const(int(not a.value), "bool") if isinstance(a, Const) else None
    for x, y in ((a, b), (b, a)):
        if isinstance(x, Const):
            if node.op == "and":
                return y if x.value else Const(0, "bool")
            return Const(1, "bool") if x.value else y
    return None


def coefficient(e: Expr, var: str) -> int | None:
    """Coefficient of `var` in `e` if `e` is affine in it (var absent from opaque parts)."""
    aff = to_affine(e)
    for x, _ in aff.opaque:
        if var in free_vars(x):
            return None
    return aff.coefs.get(var, 0)
