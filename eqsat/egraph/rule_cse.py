"""Each oracle call of a rule made once per match: shared ``PyObject`` expressions bound in the query.

In: egglog program text (a compiled section, ``eqsat.egraph.compiled``).  Out: the same
program with every ``rule`` rewritten so that

* an oracle expression -- ``py-call``, ``py-to-string``, ``py-from-string``, ``py-from-int``
  or ``count-matches`` -- that the rule's query computes and that occurs more than once in
  the rule (a guard on an oracle's answer and the right side built from the same answer; one
  argument converted for several oracles) is computed once, bound to a fresh variable by a
  query fact ``(= __cseK expr)``, and the variable is used everywhere instead;
* a conversion of a constant, ``(py-from-int 3)`` or ``(py-from-string "x")``, is the
  literal ``(py-object "...")`` of its pickle (decoded in Rust, never calling Python).

Why: egglog evaluates every such primitive by calling into Python (taking the GIL, importing
``cloudpickle`` by name, pickling or unpickling), 2-6 us a call, and it evaluates a rule's
actions separately from its query, so the answer a guard tested was computed again for the
right side.  On the 32-slot sum-and-product these calls were over half of the saturation's
time.  The rules mean exactly what they did: the expressions are pure (the oracles are
deterministic, ``eqsat.rulespec.slot_oracles``), a variable bound to one is equal to it, and
the constants' literals hold the bytes the conversion would have produced.

Other forms (declarations, rules without such expressions) are left as they are, text and all.
"""

from __future__ import annotations

import base64
import re
from typing import TypeAlias

#: the primitives that call into Python (and ``count-matches``, which wraps an oracle's
#: unary answer: ``eqsat.rulespec.spec.EggLang.call_int``)
PY_HEADS = frozenset({"py-call", "py-to-string", "py-from-string", "py-from-int", "count-matches"})
PREFIX = "__cse"

Sexp: TypeAlias = "str | list[Sexp]"

_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|;[^\n]*|[()]|[^\s()";]+')


def _parse(text: str) -> list[tuple[int, int, Sexp]]:
    """Top-level forms of ``text`` with their spans (comments dropped inside forms)."""
    forms: list[tuple[int, int, Sexp]] = []
    stack: list[list[Sexp]] = []
    start = 0
    for m in _TOKEN.finditer(text):
        tok = m.group()
        if tok.startswith(";"):
            continue
        if tok == "(":
            if not stack:
                start = m.start()
            stack.append([])
        elif tok == ")":
            done = stack.pop()
            if stack:
                stack[-1].append(done)
            else:
                forms.append((start, m.end(), done))
        elif stack:
            stack[-1].append(tok)
    return forms


def _show(e: Sexp) -> str:
    return e if isinstance(e, str) else "(" + " ".join(_show(x) for x in e) + ")"


def _subterms(e: Sexp, out: list[str]) -> None:
    """Every oracle subexpression of ``e`` (by its text), outer before inner, with repeats."""
    if isinstance(e, str):
        return
    if e and e[0] in PY_HEADS:
        out.append(_show(e))
    for x in e[1:]:
        _subterms(x, out)


def _replace(e: Sexp, target: str, name: str) -> Sexp:
    if isinstance(e, str):
        return e
    if _show(e) == target:
        return name
    return [_replace(x, target, name) for x in e]


def _constant(e: Sexp) -> Sexp:
    """``e`` with conversions of literal ints and strings replaced by ``py-object`` literals."""
    if isinstance(e, str):
        return e
    if len(e) == 2 and e[0] in ("py-from-int", "py-from-string") and isinstance(e[1], str):
        lit = e[1]
        value: int | str | None = None
        if e[0] == "py-from-int" and re.fullmatch(r"-?\d+", lit):
            value = int(lit)
        elif e[0] == "py-from-string" and lit.startswith('"') and "\\" not in lit:
            value = lit[1:-1]
        if value is not None:
            return ["py-object", '"' + base64.b64encode(_dumps(value)).decode() + '"']
    return [_constant(x) for x in e]


def _dumps(value: int | str) -> bytes:
    """The bytes egglog stores for ``value`` (it pickles through ``cloudpickle.dumps``)."""
    import cloudpickle

    return bytes(cloudpickle.dumps(value))


def rewrite_rule(form: list[Sexp]) -> list[Sexp] | None:
    """The rule ``form`` (``["rule", query, actions, *options]``) with its shared oracle
    expressions bound once and its constant conversions as literals; None when unchanged."""
    if len(form) < 3 or form[0] != "rule" or isinstance(form[1], str) or isinstance(form[2], str):
        return None
    query: list[Sexp] = [_constant(f) for f in form[1]]
    actions: list[Sexp] = [_constant(a) for a in form[2]]
    count = 0
    while True:
        in_query: list[str] = []
        for f in query:
            _subterms(f, in_query)
        everywhere = list(in_query)
        for a in actions:
            _subterms(a, everywhere)
        # the longest (outermost) expression the query computes that occurs more than once
        shared = [t for t in dict.fromkeys(in_query) if everywhere.count(t) > 1]
        if not shared:
            break
        target = max(shared, key=len)
        name = f"{PREFIX}{count}"
        count += 1
        first = None
        for i, f in enumerate(query):
            found: list[str] = []
            _subterms(f, found)
            if target in found:
                first = i if first is None else first
        assert first is not None
        expr = _find(query[first], target)
        query = [_replace(f, target, name) for f in query]
        actions = [_replace(a, target, name) for a in actions]
        query.insert(first, ["=", name, expr])
    new = ["rule", query, actions, *form[3:]]
    return new if _show(new) != _show(form) else None


def _find(e: Sexp, target: str) -> Sexp:
    if isinstance(e, str):
        raise KeyError(target)
    if _show(e) == target:
        return e
    for x in e:
        try:
            return _find(x, target)
        except KeyError:
            pass
    raise KeyError(target)


def rewrite(text: str) -> str:
    """``text`` with every rule rewritten by ``rewrite_rule`` (see the module docstring)."""
    if "(py-" not in text:
        return text
    out: list[str] = []
    pos = 0
    for start, end, form in _parse(text):
        if isinstance(form, list) and form and form[0] == "rule":
            new = rewrite_rule(form)
            if new is not None:
                out.append(text[pos:start])
                out.append(_show_rule(new))
                pos = end
    out.append(text[pos:])
    return "".join(out)


def _show_rule(form: list[Sexp]) -> str:
    query, actions, options = form[1], form[2], form[3:]
    assert isinstance(query, list) and isinstance(actions, list)
    q = "\n       ".join(_show(f) for f in query)
    a = "\n       ".join(_show(x) for x in actions)
    return f"(rule ({q})\n      ({a})\n        {' '.join(_show(o) for o in options)})"
