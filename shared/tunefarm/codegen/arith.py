"""Integer arithmetic analysis: affine forms, interval bounds and simplification.

Bound inference (which region of a producer does a loop tile read?), guard elimination
(is `x < 56` always true here?) and vectorisation (is this load contiguous in the vector
lane?) all reduce to the same two questions about index expressions: what is its affine form
in the loop variables, and what interval can it take. This module answers both.
"""

from __future__ import annotations

import dataclasses
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
                if e2 is e or e2 == e:
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
    kind = type(e)
    if kind is Const:
        return Affine(const=int(e.value))  # type: ignore[attr-defined]
    if kind is Var:
        return Affine({e.name: 1})  # type: ignore[attr-defined]
    if kind is not Binary:
        return Affine(opaque=[(e, 1)])
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
        # id(node) -> (node, its free variables, whether it holds a -0.0): one walk answers
        # both, since every node `_go` visits is asked the first and every var-free one the
        # second
        self._info: dict[int, tuple[Expr, frozenset[str], bool]] = {}
        self._simplified: dict[int, tuple[Expr, Expr]] = {}
        self._affine: AffineMemo = {}
        self._by_value: dict[Expr, Expr] = {}
        # (id(chain), var) -> (chain, its `_Shift` or None where `var` is not a plain term)
        self._shifts: dict[tuple[int, str], tuple[Expr, _Shift | None]] = {}
        # (id(chain), var) -> (chain, its affine form with `var` left a variable, or None)
        self._linear: dict[tuple[int, str], tuple[Expr, Affine | None]] = {}
        self._step = partial(_simplify_node, ranges=self.ranges, memo=self._affine)

    def clear(self) -> None:
        """Drop the memos (they hold every node seen; the emitter is done with them)."""
        self._info.clear()
        self._simplified.clear()
        self._affine.clear()
        self._by_value.clear()
        self._shifts.clear()
        self._linear.clear()

    def __call__(self, e: Expr, var: str, value: Expr) -> Expr:
        # a constant (every unrolled copy's value) is its own `simplify`
        return self._go(e, var, value if type(value) is Const else simplify(value, self.ranges))

    def _go(self, node: Expr, var: str, value: Expr) -> Expr:
        # a method, not a closure over itself: no reference cycle holds the memos, so they
        # are freed as soon as the emitter drops the simplifier
        info = self._info.get(id(node)) or self._walk(node)
        if var not in info[1]:
            hit = self._simplified.get(id(node))
            return hit[1] if hit is not None else self._simplify_new(node, info[2])
        if type(node) is Var:
            return value
        if _affine_op(node):
            if type(value) is Const:
                shift = self._shift(node, var)  # type: ignore[arg-type]
                if shift is not None:
                    return self._shifted(shift, int(value.value), node.dtype)
            form, out = self._form(node, var, value)  # type: ignore[arg-type]
            return out if out is not None else self._materialize(form, node.dtype)
        node = rebuild_children(node, lambda c: self._go(c, var, value))
        out = _simplify_node(node, self.ranges, self._affine)
        return node if out is None else out

    # An index is a chain of integer sums and products, and `simplify` rebuilds each link of
    # the chain from its affine form only for its parent to read that form back from the
    # memo: n links built n times over. `_form` gives the parent the form directly and
    # builds the expression once, at the chain's top (`_materialize`), exactly as the
    # link-by-link rewrite would have built it there.

    def _form(self, node: Binary, var: str, value: Expr) -> tuple[Affine, Expr | None]:
        """`to_affine(self._go(node, ...))` of a sum or product containing `var`, and the
        rewritten node itself where it had to be built (a product of two non-constants,
        which is its own opaque term)."""
        fa, ea = self._child_form(node.a, var, value)
        fb, eb = self._child_form(node.b, var, value)
        if node.op == "+":
            return fa.plus(fb), None
        if node.op == "-":
            return fa.plus(fb.scaled(-1)), None
        if fb.is_const:
            return fa.scaled(fb.const), None
        if fa.is_const:
            return fb.scaled(fa.const), None
        ea = ea if ea is not None else self._materialize(fa, node.a.dtype)
        eb = eb if eb is not None else self._materialize(fb, node.b.dtype)
        built = Binary(node.op, ea, eb, node.dtype)
        form = Affine(opaque=[(built, 1)])
        self._affine[id(built)] = (built, form)
        return form, built

    def _child_form(self, c: Expr, var: str, value: Expr) -> tuple[Affine, Expr | None]:
        if _affine_op(c) and var in self.free_vars(c):
            form, out = self._form(c, var, value)  # type: ignore[arg-type]
            if out is None and not _round_trips(form):
                # the parent would read the built chain's own structure, not this form
                out = self._materialize(form, c.dtype)
                return to_affine(out, self._affine), out
            return form, out
        out = self._go(c, var, value)
        return to_affine(out, self._affine), out

    def _materialize(self, form: Affine, dtype: str) -> Expr:
        """What `_simplify_binary` builds from a sum's form (`from_affine`), its form kept
        in the memo and every node it builds entered in `_info` on the way (its variables
        are its terms'), which the next unrolled level would otherwise walk to find."""
        return self._with_const(self._chain(form, dtype), form, dtype)

    def _chain(self, form: Affine, dtype: str) -> _Chain | None:
        """The sum of `form`'s terms without its constant, as `from_affine` builds it (None:
        no terms), with its variables and -0.0 flag, each node built entered in `_info`."""
        info = self._info
        terms: list[_Chain] = []
        for v, c in form.coefs.items():
            t: Expr = Var(v, dtype)
            names = frozenset((v,))
            info[id(t)] = (t, names, False)
            if c != 1:
                t = Binary("*", t, Const(c), dtype)
                info[id(t)] = (t, names, False)
            terms.append((t, names, False))
        for e, c in form.opaque:
            _, names, negzero = info.get(id(e)) or self._walk(e)
            if c != 1:
                e = Binary("*", e, Const(c), dtype)
                info[id(e)] = (e, names, negzero)
            terms.append((e, names, negzero))
        if not terms:
            return None
        out, names, negzero = terms[0]
        for t, t_names, t_negzero in terms[1:]:
            out = Binary("+", out, t, dtype)
            names, negzero = names | t_names, negzero or t_negzero
            info[id(out)] = (out, names, negzero)
        return out, names, negzero

    def _with_const(self, chain: _Chain | None, form: Affine, dtype: str) -> Expr:
        """`chain` (the terms of `form`) plus `form`'s constant, as `from_affine` adds it."""
        if chain is None:
            out: Expr = Const(form.const, dtype)
        else:
            out, names, negzero = chain
            if form.const:
                op = "+" if form.const > 0 else "-"
                out = Binary(op, out, Const(abs(form.const)), dtype)
                self._info[id(out)] = (out, names, negzero)
        if _round_trips(form):
            self._affine[id(out)] = (out, form)
        return out

    # An unrolled loop variable is, in nearly every index, one term of the index's sum
    # (`i * 64 + ... + k`): each copy's simplified index is the same sum with only its
    # constant moved by slope * k. `_shift` finds such chains once per (chain, variable):
    # their affine form with the variable left symbolic, and the sum of their other terms,
    # built once and shared by every copy (`_shifted` adds the copy's constant). Only
    # chains whose every step is a sum, a difference or a product by a non-zero constant
    # qualify, so the form is the one `_form` computes with the variable a constant (the
    # same terms in the same order, the constant linear in k): the same tree, same C.

    def _shift(self, node: Binary, var: str) -> _Shift | None:
        """The memoised `_Shift` of a chain in `var`, or None where `var` is not a term."""
        key = (id(node), var)
        hit = self._shifts.get(key)
        if hit is not None:
            return hit[1]
        shift = self._shift_of_offset(node, var)
        if shift is not None:
            self._shifts[key] = (node, shift)
            return shift
        form = self._linear_form(node, var)
        shift = None
        if form is not None:
            rest = Affine({v: c for v, c in form.coefs.items() if v != var}, 0, form.opaque)
            chain = self._chain(rest, node.dtype)
            slope, trips = form.coefs.get(var, 0), _round_trips(form)
            fixed = trips and self._fixed(chain)
            shift = _Shift(rest, form.const, slope, chain, trips, fixed)
        self._shifts[key] = (node, shift)
        return shift

    def _shift_of_offset(self, node: Binary, var: str) -> _Shift | None:
        """`chain + c` or `chain - c` (what the copies of an outer unrolled loop are) shares
        `chain`'s `_Shift`, terms and built sum, its constant moved by c: the form `_form`
        computes for it has `chain`'s terms in their order. None: not that shape."""
        a, b = node.a, node.b
        if type(b) is not Const or node.op not in ("+", "-") or not _affine_op(a):
            return None
        if a.dtype != node.dtype or var not in self.free_vars(a):
            return None
        inner = self._shift(a, var)  # type: ignore[arg-type]
        if inner is None or not inner.round_trips:  # `_linear_child` would refuse it
            return None
        c = int(b.value) if node.op == "+" else -int(b.value)
        return dataclasses.replace(inner, const=inner.const + c)

    def _shifted(self, shift: _Shift, k: int, dtype: str) -> Expr:
        """The copy of a `_shift`ed chain where its variable is `k`, entered as simplified
        already where it is (the next unrolled level then need not simplify it again)."""
        rest = shift.rest
        form = Affine(rest.coefs, shift.const + shift.slope * k, rest.opaque)
        out = self._with_const(shift.chain, form, dtype)
        if shift.simplified:
            self._simplified[id(out)] = (out, out)
        return out

    def _fixed(self, chain: _Chain | None) -> bool:
        """Whether `simplify` gives back a tree equal to `chain` (a sum of terms whose form
        round-trips): then it gives back `chain + c` too, the form of `chain` plus c built
        the same way. Trees with a -0.0 stay out (equal to 0.0, printed otherwise)."""
        if chain is None:
            return True
        out, _, negzero = chain
        return not negzero and self.simplified(out) == out

    def _linear_form(self, node: Binary, var: str) -> Affine | None:
        """`node`'s affine form with `var` a variable (memoised), or None unless every step
        from `var` to `node` is a sum, a difference or a product by a non-zero constant."""
        key = (id(node), var)
        hit = self._linear.get(key)
        if hit is not None:
            return hit[1]
        fa, fb = self._linear_child(node.a, var), self._linear_child(node.b, var)
        form = None
        if fa is not None and fb is not None:
            if node.op == "+":
                form = fa.plus(fb)
            elif node.op == "-":
                form = fa.plus(fb.scaled(-1))
            else:
                form = _scaled_by_constant(fa, fb, var in self.free_vars(node.a))
        self._linear[key] = (node, form)
        return form

    def _linear_child(self, c: Expr, var: str) -> Affine | None:
        """A child's form for `_linear_form`: var-free children as `_form` reads them."""
        if var not in self.free_vars(c):
            return to_affine(self.simplified(c), self._affine)
        if type(c) is Var:
            return Affine({var: 1})
        if not _affine_op(c):
            return None
        form = self._linear_form(c, var)  # type: ignore[arg-type]
        return form if form is not None and _round_trips(form) else None

    def _walk(self, node: Expr) -> tuple[Expr, frozenset[str], bool]:
        """Fill the `_info` memo for `node` and its unseen subtrees."""
        kind = type(node)
        if kind is Var:
            names, negzero = frozenset((node.name,)), False
        elif kind is Const:
            names = _NO_VARS
            negzero = node.value == 0 and math.copysign(1.0, node.value) < 0
        else:
            names, negzero = _NO_VARS, False
            for c in children(node):
                sub = self._info.get(id(c)) or self._walk(c)
                if sub[1]:
                    names = sub[1] if not names else names | sub[1]
                negzero = negzero or sub[2]
        hit = self._info[id(node)] = (node, names, negzero)
        return hit

    def free_vars(self, node: Expr) -> frozenset[str]:
        return (self._info.get(id(node)) or self._walk(node))[1]

    def coefficient(self, e: Expr, var: str) -> int | None:
        """`coefficient`, reading forms and variables from the memos: the vector paths ask
        it of every load and store of every unrolled copy, whose chains the memos hold."""
        aff = to_affine(e, self._affine)
        for x, _ in aff.opaque:
            if var in self.free_vars(x):
                return None
        return aff.coefs.get(var, 0)

    def has_negative_zero(self, node: Expr) -> bool:
        """`_has_negative_zero`, memoised by node like `free_vars`: asked of every var-free
        subtree, which share their own subtrees."""
        return (self._info.get(id(node)) or self._walk(node))[2]

    def simplified(self, node: Expr) -> Expr:
        hit = self._simplified.get(id(node))
        if hit is not None:
            return hit[1]
        return self._simplify_new(node, self.has_negative_zero(node))

    def _simplify_new(self, node: Expr, negzero: bool) -> Expr:
        # an equal tree built by another copy: same result (equality ignores only 1 vs
        # 1.0, which print alike, and 0.0 vs -0.0, which do not: such trees stay out)
        out = None if negzero else self._by_value.get(node)
        if out is None:
            # one step of `simplify` over the children's memoised results, not a fresh
            # `rewrite`: an outer copy's new load or select holds index sums simplified
            # already (`_shifted`), which the rewrite walked and rebuilt again per copy
            kids = rebuild_children(node, self.simplified)
            out = self._step(kids)
            out = kids if out is None else out
            if not negzero:
                self._by_value[node] = out
        self._simplified[id(node)] = (node, out)
        return out


def _affine_op(node: Expr) -> bool:
    """An integer sum, difference or product: `_simplify_binary` replaces it by the
    expression of its affine form."""
    return type(node) is Binary and node.op in ("+", "-", "*") and not is_float(node.dtype)  # type: ignore[attr-defined]


_Chain = tuple[Expr, frozenset[str], bool]  # an expression, its variables, has a -0.0


@dataclass(frozen=True)
class _Shift:
    """A chain's form in an unrolled variable: `rest` (its other terms, constant 0), its
    constant and the variable's coefficient, `rest` built once (`_chain`), and whether
    the whole form has no zero coefficient (`_round_trips`)."""

    rest: Affine
    const: int
    slope: int
    chain: _Chain | None
    round_trips: bool
    simplified: bool = False  # its copies are their own `simplify` (`_fixed`)


def _scaled_by_constant(fa: Affine, fb: Affine, var_in_a: bool) -> Affine | None:
    """The product of a side holding the variable and a non-zero constant side, which
    `_form` scales the same way whether the variable is a constant or not; else None."""
    var_side, other = (fa, fb) if var_in_a else (fb, fa)
    if not other.is_const or not other.const:
        return None
    return var_side.scaled(other.const)


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
