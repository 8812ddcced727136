"""Rule oracles answered from egglog relations: each distinct key calls Python once.

In: the egglog text of one compiled section as recorded (before ``rule_cse``), the name of its
ruleset, the name of the ruleset that shall fill the relations (the term analyses', which
``eqsat.egraph.session`` saturates before every rule step) and the declarations its rules
use (the term language's text).  Out: ``Tabled``: the section's text with its rules reading
their oracles' answers from relations, the declarations and fill rules of those relations,
and a ruleset ``<ruleset>-tables-drop`` deleting their rows (before a serialization).

Why: a rule calls its oracles (``eqsat.rulespec.spec.EggLang.call``) through egglog's
``PyObject`` primitives for every match, and egglog finds a match again whenever one of its
rows is re-canonicalized, so the same few keys cross into Python over and over: on a 4-slot
rotation cycle (``rr_rotation_duplicated``) 8,400 oracle calls over a few hundred distinct
argument tuples, each call two to nine crossings of 2-3 us (taking the GIL, importing
``cloudpickle`` by name, (un)pickling) -- about a third of its saturation (``perf``).

How, for a rule that matches one atom -- arguments variables or literals, e.g. ``(LinRot v p
n)`` or ``(Rot v k)`` -- with analyses of its arguments (``(= (slots v) n)``, ``(= (varies v)
1)``) and comparisons, and whose oracle facts (query facts calling an oracle) and oracle
expressions in its actions (``py-to-string`` or ``count-matches`` of calls) read variables of
base sorts (``String``, ``i64``, ...) that atom and those analyses bind (the *cover*):

* a key relation of the cover, ``K(p, n)``, filled by a rule on the cover's constructor and
  the rule's guards on analyses of its arguments (literal arguments generalized, so rules
  share it). ``K``'s rows hold only base
  values, which egglog never rebuilds: each key is new once, however often its atoms are
  re-canonicalized;
* the rule's *answers* relation ``A(p, n, o...)``, filled from ``K`` by a rule whose query is
  ``K`` and the rule's own oracle facts (in their order: its guards still cut the calls
  short) and whose action records the values ``o...`` of the actions' oracle expressions;
* the rule itself: its query's other facts and ``(A p n o...)``; its actions read ``o...``;
* where several answers relations of one key relation convert the same key column to an
  oracle's ``PyObject`` argument, a relation ``KP(p, n, pp, pn)`` of the keys with their
  converted columns, filled once per key, which those fill rules read instead of converting
  (``_Builder.finish``).

One answers atom per rule, whatever the number of its oracles: each atom of a query is one
more variant of egglog's semi-naive join, and a lookup per oracle made the rules slower than
the calls they saved.  Other rules keep their calls: one whose oracles read variables of
several atoms (``lin-add``'s ``p + q``), because a key rule on several atoms repeats the
rule's join, which cost more than the calls saved; one whose atom sits under another term
or that checks another term (``lin-neg``'s ``Neg``, ``lin-centered``'s ``Gather``), because
it reaches few of the atom's keys and answering them all cost more at load than it saved.

The fill rules run with the analyses, saturated before every rule step, so every key of the
e-graph the step matches on has its answers: the rules match and derive exactly what they
did, in the same iterations (``tests/egraph/test_oracle_tables.py`` compares the kernels'
e-graphs; the session's test for a quiet iteration reads the rules' run alone, since the
analyses' run now also takes in new keys). The oracles are total
(``eqsat.rulespec.slot_oracles``), so answering a key whose other guards fail is harmless.
Relation names carry the section's ruleset and a hash, so two sections never declare one name.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field

from eqsat.egraph.rule_cse import PY_HEADS, Sexp, _parse, _replace, _show, _show_rule

#: the heads of a maximal oracle expression and the sort of its value
VALUE_HEADS = {"py-to-string": "String", "count-matches": "i64"}
#: sorts whose values are the same in every e-graph state (never rebuilt by egglog)
BASE_SORTS = frozenset({"String", "i64", "f64", "bool"})
#: the prefix of the names of the fill rules (a run's report does not count them as rewrites)
RULE_PREFIX = "oracle-table-"

_LITERAL = re.compile(r'^(-?\d+(\.\d*)?([eE][-+]?\d+)?|".*"|true|false|NaN|inf|-inf)$')


@dataclass(frozen=True)
class Signature:
    """The argument sorts and the value sort of a declared constructor, function or relation."""

    args: tuple[str, ...]
    out: str
    kind: str  # "constructor", "function" or "relation"


@dataclass
class Tabled:
    """A section's text with its oracle tables (see the module docstring)."""

    text: str
    drop: str = ""  # the ruleset deleting the tables' rows ("" when the section has no table)
    count: int = 0  # rules reading their oracles from answers relations
    names: list[str] = field(default_factory=list)  # the answers relations


def signatures(text: str) -> dict[str, Signature]:
    """The constructors, functions and relations ``text`` declares (``datatype`` variants too)."""
    out: dict[str, Signature] = {}
    for _, _, form in _parse(text):
        if not isinstance(form, list) or len(form) < 2 or not isinstance(form[1], str):
            continue
        head = form[0]
        if head in ("constructor", "function") and len(form) >= 4 and isinstance(form[2], list):
            out[form[1]] = Signature(tuple(str(a) for a in form[2]), str(form[3]), str(head))
        elif head == "relation" and len(form) >= 3 and isinstance(form[2], list):
            out[form[1]] = Signature(tuple(str(a) for a in form[2]), "Unit", "relation")
        elif head == "datatype":
            for variant in form[2:]:
                if isinstance(variant, list) and variant and isinstance(variant[0], str):
                    out[variant[0]] = Signature(tuple(str(a) for a in variant[1:]), form[1], "constructor")
    return out


def _is_var(tok: str) -> bool:
    return not _LITERAL.match(tok) and not tok.startswith(":")


def _has_oracle(e: Sexp) -> bool:
    return isinstance(e, list) and bool(e) and (e[0] in PY_HEADS or any(_has_oracle(x) for x in e[1:]))


def _maximal(e: Sexp, out: list[Sexp]) -> None:
    """The maximal oracle expressions of ``e`` (outer before inner; none inside another)."""
    if isinstance(e, str) or not e:
        return
    if e[0] in PY_HEADS:
        out.append(e)
        return
    for x in e[1:]:
        _maximal(x, out)


def _sorts(query: list[Sexp], sigs: dict[str, Signature]) -> dict[str, str]:
    """The sort of each variable of ``query`` that sits in a declared argument or value position."""
    sorts: dict[str, str] = {}

    def walk(e: Sexp) -> None:
        if isinstance(e, str) or not e:
            return
        sig = sigs.get(str(e[0]))
        if sig is not None and len(e) - 1 == len(sig.args):
            for a, s in zip(e[1:], sig.args, strict=True):
                if isinstance(a, str) and _is_var(a):
                    sorts.setdefault(a, s)
        for x in e[1:]:
            walk(x)

    for f in query:
        walk(f)
        if isinstance(f, list) and len(f) == 3 and f[0] == "=":
            for var, other in ((f[1], f[2]), (f[2], f[1])):
                if isinstance(var, str) and _is_var(var) and isinstance(other, list) and other:
                    sig = sigs.get(str(other[0]))
                    if sig is not None:
                        sorts.setdefault(var, sig.out)
    return sorts


def _atoms(e: Sexp, sigs: dict[str, Signature], out: list[list[Sexp]]) -> None:
    """Every constructor application inside ``e`` (the atoms a query matches)."""
    if isinstance(e, str) or not e:
        return
    sig = sigs.get(str(e[0]))
    if sig is not None and sig.kind == "constructor" and len(e) - 1 == len(sig.args):
        out.append(e)
    for x in e[1:]:
        _atoms(x, sigs, out)


@dataclass(frozen=True)
class Cover:
    """The query whose matches hold the keys (over variables ``a0``, ``a1``, ..., ``d0``, ...)
    and the variables of its key columns, in order."""

    query: tuple[str, ...]
    columns: tuple[str, ...]


def _function_facts(structural: list[Sexp], sigs: dict[str, Signature],
                    literal: bool = False) -> list[tuple[str, str, str]]:
    """The facts ``(= (f x) y)`` of a query, ``f`` a declared function of one argument and
    ``x`` a variable: ``(f, x, y)``, for ``y`` a variable (``literal``: a literal)."""
    out: list[tuple[str, str, str]] = []
    for f in structural:
        if isinstance(f, list) and len(f) == 3 and f[0] == "=":
            for app, var in ((f[1], f[2]), (f[2], f[1])):
                if (isinstance(var, str) and _is_var(var) != literal and isinstance(app, list) and len(app) == 2
                        and isinstance(app[1], str) and _is_var(app[1]) and str(app[0]) in sigs
                        and sigs[str(app[0])].kind == "function"):
                    out.append((str(app[0]), app[1], var))
    return out


def _cover(need: list[str], structural: list[Sexp], sigs: dict[str, Signature]) -> tuple[Cover, list[str]] | None:
    """A cover of the variables ``need`` (see the module docstring) and those variables in the
    order of its columns, or None when no single atom of the query binds them all.  The atom's
    arguments are generalized to variables of their own (literals too), so that rules share
    it; a cover spanning several atoms would repeat a join of its rule in the key rule, which
    cost more than the calls it saved (``rr_rotation_duplicated``: 0.78 -> 1.2 of its
    saturation without tables)."""
    atoms: list[list[Sexp]] = []
    for f in structural:
        _atoms(f, sigs, atoms)
    derived = _function_facts(structural, sigs)
    guards = [(fn, arg, lit) for fn, arg, lit in _function_facts(structural, sigs, literal=True)]
    best: tuple[int, Cover, list[str]] | None = None
    for atom in atoms:
        if not all(isinstance(x, str) for x in atom[1:]):
            continue
        names: dict[str, str] = {}
        for i, x in enumerate(atom[1:]):
            if isinstance(x, str) and _is_var(x):
                names.setdefault(x, f"a{i}")
        facts = [f"(= a ({atom[0]} {' '.join(f'a{i}' for i in range(len(atom) - 1))}))"]
        for fn, arg, var in derived:
            if arg in names and var not in names and var in need:
                names[var] = f"d{len(facts)}"
                facts.append(f"(= ({fn} {names[arg]}) {names[var]})")
        if not all(v in names for v in need):
            continue
        joins = len(facts)
        # the rule's guards on an analysis of the atom's arguments, ``(= (varies v) 1)``: keys
        # of atoms the rule never matches are not answered (a join on a small table)
        facts += sorted({f"(= ({fn} {names[arg]}) {lit})" for fn, arg, lit in guards if arg in names})
        order = sorted(need, key=lambda v: (names[v][0], int(names[v][1:])))
        cover = Cover(tuple(facts), tuple(names[v] for v in order))
        if best is None or joins < best[0]:  # fewer analysis joins first
            best = (joins, cover, order)
    return None if best is None else (best[1], best[2])


def _rename(e: Sexp, names: dict[str, str]) -> Sexp:
    if isinstance(e, str):
        return names.get(e, e)
    if e and e[0] == "py-object":
        return e
    return [e[0], *(_rename(x, names) for x in e[1:])]


def _ordered_vars(e: Sexp, out: list[str]) -> list[str]:
    """The variables of ``e`` in order of first occurrence."""
    if isinstance(e, str):
        if _is_var(e) and e not in out:
            out.append(e)
        return out
    if e and e[0] == "py-object":
        return out
    for x in e[1:]:
        _ordered_vars(x, out)
    return out


#: the conversion of a key column's value to a ``PyObject`` (an oracle's argument), per sort
CONVERSIONS = {"String": "py-from-string", "i64": "py-from-int"}


@dataclass
class _Fill:
    """One answers relation's fill rule, rendered by ``_Builder.finish``."""

    rule: str
    keys: str
    key_sorts: list[str]
    facts: list[Sexp]
    outs: list[Sexp]
    name: str
    row: list[str]


class _Builder:
    """The key relations and answer relations of one section, their fill and drop rules."""

    def __init__(self, ruleset: str, fill: str) -> None:
        self.ruleset = ruleset
        self.fill = fill
        self.drop = f"{ruleset}-tables-drop"
        self.decls: list[str] = []
        self.covers: dict[Cover, str] = {}  # a cover -> its key relation
        self.rules: list[str] = []
        self.drops: list[str] = []
        self.names: list[str] = []
        self.fills: list[_Fill] = []

    def _name(self, kind: str, canon: str) -> str:
        return f"oracle-{kind}-{hashlib.sha256(f'{self.ruleset}|{canon}'.encode()).hexdigest()[:12]}"

    def keys(self, cover: Cover, sorts: list[str]) -> str:
        """The key relation of ``cover``: declared, filled and dropped once."""
        name = self.covers.get(cover)
        if name is not None:
            return name
        name = self._name("keys", repr(cover))
        self.covers[cover] = name
        self.decls.append(f"(relation {name} ({' '.join(sorts)}))")
        cols = cover.columns
        self.rules.append(f"(rule ({' '.join(cover.query)})\n      (({name} {' '.join(cols)}))\n"
                          f"        :ruleset {self.fill} :name \"{RULE_PREFIX}{name}\")")
        self._drop(name, len(cols))
        return name

    def answers(self, rule: str, keys: str, key_sorts: list[str], facts: list[Sexp], outs: list[Sexp],
                out_sorts: list[str]) -> str:
        """The relation of one rule's oracle answers: a row ``keys... outs...`` for every key of
        ``keys`` that passes the rule's oracle ``facts`` (over ``x0``, ``x1``, ...), with the
        values of the expressions ``outs`` its actions read. Its fill rule is made by ``finish``."""
        query: list[Sexp] = [[keys, *(f"x{i}" for i in range(len(key_sorts)))], *facts]
        query += [["=", f"o{j}", e] for j, e in enumerate(outs)]
        row = [*(f"x{i}" for i in range(len(key_sorts))), *(f"o{j}" for j in range(len(outs)))]
        q = "\n       ".join(_show(f) for f in query)
        name = self._name("answers", f"{q}|{rule}")
        self.names.append(name)
        self.decls.append(f"(relation {name} ({' '.join([*key_sorts, *out_sorts])}))")
        self.fills.append(_Fill(rule, keys, key_sorts, facts, outs, name, row))
        self._drop(name, len(row))
        return name

    def finish(self) -> None:
        """The fill rules of the answers relations. Where the fill rules of one key relation
        convert a key column to a ``PyObject`` (an oracle's argument) more than once between
        them, the conversion is made once per key: a relation ``oracle-pykeys-...`` holds each
        key with its converted columns (``p0``, ``p1``...; filled from the keys, dropped with
        them) and those fill rules read it instead of the key relation. Why: each conversion
        is a crossing into Python (egglog takes the GIL and pickles the value: ~1 us), and the
        fill rules of one key relation convert the same columns -- on
        rr_reduce_add_and_mul_32's first analysis 2,400 conversions for ~350 keys."""
        uses: dict[str, dict[int, int]] = {}
        for f in self.fills:
            text = " ".join(_show(e) for e in [*f.facts, *f.outs])
            counts = uses.setdefault(f.keys, {})
            for i, sort in enumerate(f.key_sorts):
                if sort in CONVERSIONS and f"({CONVERSIONS[sort]} x{i})" in text:
                    counts[i] = counts.get(i, 0) + 1
        converted: dict[str, tuple[str, list[int]]] = {}
        for f in self.fills:
            if f.keys in converted or f.keys not in uses:
                continue
            cols = sorted(i for i, n in uses[f.keys].items() if n >= 2)
            if not cols:
                continue
            name = self._name("pykeys", f.keys)
            xs = [f"x{i}" for i in range(len(f.key_sorts))]
            self.decls.append(f"(relation {name} ({' '.join([*f.key_sorts, *('PyObject' for _ in cols)])}))")
            conv = " ".join(f"({CONVERSIONS[f.key_sorts[i]]} x{i})" for i in cols)
            self.rules.append(f"(rule (({f.keys} {' '.join(xs)}))\n      (({name} {' '.join(xs)} {conv}))\n"
                              f"        :ruleset {self.fill} :name \"{RULE_PREFIX}{name}\")")
            self._drop(name, len(xs) + len(cols))
            converted[f.keys] = (name, cols)
        for f in self.fills:
            xs = [f"x{i}" for i in range(len(f.key_sorts))]
            head: Sexp = [f.keys, *xs]
            facts, outs = f.facts, f.outs
            if f.keys in converted:
                name, cols = converted[f.keys]
                head = [name, *xs, *(f"p{i}" for i in cols)]
                for i in cols:
                    target = f"({CONVERSIONS[f.key_sorts[i]]} x{i})"
                    facts = [_replace(e, target, f"p{i}") for e in facts]
                    outs = [_replace(e, target, f"p{i}") for e in outs]
            query: list[Sexp] = [head, *facts, *(["=", f"o{j}", e] for j, e in enumerate(outs))]
            q = "\n       ".join(_show(e) for e in query)
            self.rules.append(f"(rule ({q})\n      (({f.name} {' '.join(f.row)}))\n"
                              f"        :ruleset {self.fill} :name \"{RULE_PREFIX}{f.rule}\")")

    def _drop(self, name: str, arity: int) -> None:
        xs = " ".join(f"x{i}" for i in range(arity))
        self.drops.append(f"(rule (({name} {xs}))\n      ((delete ({name} {xs})))\n"
                          f"        :ruleset {self.drop} :name \"{RULE_PREFIX}{name}-drop\")")

    def header(self) -> str:
        return "\n".join([f"(ruleset {self.drop})", *self.decls])


def _one_atom(structural: list[Sexp], sigs: dict[str, Signature]) -> bool:
    """Whether the query matches one atom whose arguments are variables or literals, with
    analyses of them and comparisons: then the rule reaches every key of the atom's rows (as
    its key relation does), not the few under some other term (``lin-neg``'s ``Neg``,
    ``lin-centered``'s ``Gather``), for which answering every key of the atom cost more at
    load (``hamming_distance_1024``) than the calls it saved."""
    atoms = 0
    for f in structural:
        found: list[list[Sexp]] = []
        _atoms(f, sigs, found)
        if any(not all(isinstance(x, str) for x in a[1:]) for a in found):
            return False
        atoms += len(found)
        if isinstance(f, list) and f and sigs.get(str(f[0]), Signature((), "", "")).kind == "relation":
            return False
    return atoms == 1


def _tabulate(form: list[Sexp], sigs: dict[str, Signature], b: _Builder) -> list[Sexp] | None:
    """The rule ``form`` reading its oracle answers from one relation (see the module
    docstring), or None when it calls no oracle or no single cover binds what they read."""
    if len(form) < 3 or form[0] != "rule" or isinstance(form[1], str) or isinstance(form[2], str):
        return None
    query: list[Sexp] = list(form[1])
    actions: list[Sexp] = list(form[2])
    oracle_facts = [f for f in query if _has_oracle(f)]
    structural = [f for f in query if not _has_oracle(f)]
    found: list[Sexp] = []
    for a in actions:
        _maximal(a, found)
    outs = list({_show(e): e for e in found}.values())
    if not oracle_facts and not outs:
        return None
    if any(not isinstance(e, list) or e[0] not in VALUE_HEADS for e in outs):
        return None
    if not _one_atom(structural, sigs):
        return None
    need: list[str] = []
    for f in [*oracle_facts, *outs]:
        _ordered_vars(f, need)
    sorts = _sorts(query, sigs)
    if not need or any(sorts.get(v) not in BASE_SORTS for v in need):
        return None
    cover = _cover(need, structural, sigs)
    if cover is None:
        return None
    spec, keys = cover
    key_sorts = [sorts[k] for k in keys]
    names = {k: f"x{i}" for i, k in enumerate(keys)}
    rule = next((str(form[i + 1]) for i in range(3, len(form) - 1) if form[i] == ":name"), _show(form))
    rel = b.answers(rule.strip('"'), b.keys(spec, key_sorts), key_sorts, [_rename(f, names) for f in oracle_facts],
                    [_rename(e, names) for e in outs], [VALUE_HEADS[str(e[0])] for e in outs])
    out_vars = [f"__ans{j}" for j in range(len(outs))]
    for e, v in zip(outs, out_vars, strict=True):
        actions = [_replace(a, _show(e), v) for a in actions]
    return ["rule", [*structural, [rel, *keys, *out_vars]], actions, *form[3:]]


def rewrite(text: str, ruleset: str, fill: str, declarations: str = "") -> Tabled:
    """``text`` (a section as recorded, its rules in ``ruleset``) with its rules' oracles
    answered from relations that the rules of the ruleset ``fill`` (declared elsewhere) fill;
    ``declarations``: other text declaring the constructors and functions its rules use."""
    if "(py-" not in text:
        return Tabled(text)
    sigs = signatures(declarations)
    sigs.update(signatures(text))
    b = _Builder(ruleset, fill)
    out: list[str] = []
    pos = 0
    total = 0
    for start, end, form in _parse(text):
        if isinstance(form, list) and form and form[0] == "rule":
            new = _tabulate(form, sigs, b)
            if new is not None:
                out.append(text[pos:start])
                out.append(_show_rule(new))
                pos = end
                total += 1
    out.append(text[pos:])
    if not total:
        return Tabled(text)
    # the relations are declared before the rules that read them; their fill rules come last
    # (a cover may use what the section itself declares)
    body = "".join(out)
    b.finish()
    return Tabled(f"{b.header()}\n{body}\n" + "\n".join(b.rules + b.drops) + "\n", b.drop, total, b.names)
