"""Bulk loading: a program's nodes as rows of one TSV table per constructor, read by egglog.

In: rows ``(node id, fields...)`` per constructor (``LOAD_COLUMNS``: T = a node id, I = i64,
F = f64, S = String), unions, result markers. Out: the TSV files and the egglog commands
(``input``) that load them, each row with the analyses' facts of its term (``Tables.write``);
``declarations()``: the row tables and the rules that build terms from rows level by level
(``ld_ref``: node id -> term), apply the unions and mark results, set the facts, and empty
the tables (``ld_name`` keeps each program value's class); ``schedule()``: the commands that
run those rules, only the filled tables' (one ruleset a table, combined per load).

Measured on box blur 64x64 (82k nodes): one ``let`` command per value took 141 s (egglog
13.2 makes every global ``let`` a table, and each command re-parses spans holding its
chunk's text); the tables load in well under a second.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from itertools import chain
from pathlib import Path
from typing import Any


def _quote(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


# Columns of each constructor in the load tables: T = a node id (a T value), I = i64,
# F = f64, S = String.
LOAD_COLUMNS: dict[str, str] = {
    "In": "SI", "Num": "II", "NumF": "FI", "Dense": "SI", "Mask": "SI",
    "Add": "TT", "Sub": "TT", "Mul": "TT", "Neg": "T", "Encode": "T", "Decode": "T",
    "Rot": "TI", "Ext": "TI", "Ins": "TTI", "Place": "TII", "Splat": "TI",
    "LinRot": "TSI", "LinMap": "TSI", "ProdRot": "TSI", "Gather": "TISI",
    "AddI": "TT", "SubI": "TT", "MulI": "TT", "NegI": "T", "ExtI": "TI",
}


_SORT = {"T": "i64", "I": "i64", "F": "f64", "S": "String"}


Arg = int | float | str


#: the tables besides the constructors' rows, their columns' sorts and the rule of each
EXTRA_TABLES: dict[str, tuple[str, str]] = {
    "union": ("i64 i64", "((ld_union a b) (= x (ld_ref a)) (= y (ld_ref b))) ((union x y))"),
    "root": ("i64 i64", "((ld_root k a) (= x (ld_ref a))) ((union (Root k) x))"),
    "src": ("i64", "((ld_src a) (= x (ld_ref a))) ((src_rot x))"),
    "alias": ("i64 i64", "((ld_alias i a) (= x (ld_ref a))) ((set (ld_name i) x))"),
}
#: every table, in the order of their rules
TABLES = [*LOAD_COLUMNS, *EXTRA_TABLES]


def declarations() -> str:
    """egglog text: the node table ``ld_ref``, the row tables (``TABLES``; a constructor's rows
    end in the slot count and ``varies`` of their term, -1 where not known: ``Tables.write``);
    per table ``t`` a ruleset ``ldr-t`` holding its rule (for a constructor's: build its
    terms from rows whose children's terms are built), for a constructor's ``ldf-t`` holding
    the rules that set its terms' facts, and ``ldc-t`` holding the rule that empties it;
    ``ld``, ``ld-facts`` and ``ld-clean`` run them all (``schedule`` only the filled tables')."""
    out = ["(function ld_ref (i64) T :merge old)", "(function ld_name (i64) T :merge old)"]
    for table in TABLES:
        if table in EXTRA_TABLES:
            sorts, rule = EXTRA_TABLES[table]
            row = rule[1:rule.index(")") + 1]
            out.append(f"(relation ld_{table} ({sorts}))")
        else:
            cols = LOAD_COLUMNS[table]
            names = [f"a{j}" for j in range(len(cols))]
            out.append(f"(relation ld_{table} (i64 {' '.join(_SORT[c] for c in cols)} i64 i64))")
            refs = " ".join(f"(= x{j} (ld_ref a{j}))" for j, c in enumerate(cols) if c == "T")
            args = " ".join(f"x{j}" if c == "T" else f"a{j}" for j, c in enumerate(cols))
            row = f"(ld_{table} id {' '.join(names)} n v)"
            rule = f"({row} {refs}) ((set (ld_ref id) ({table} {args})))"
            out.append(f"(ruleset ldf-{table})")
            out.append(f"(rule ({row} (!= v -1) (= x (ld_ref id))) ((set (slots x) n) (set (varies x) v)) "
                       f":ruleset ldf-{table} :name \"ld-facts-{table}\")")
            out.append(f"(rule ({row} (= v -1) (!= n -1) (= x (ld_ref id))) ((set (slots x) n)) "
                       f":ruleset ldf-{table} :name \"ld-slots-{table}\")")
        out.append(f"(ruleset ldr-{table}) (ruleset ldc-{table})")
        out.append(f"(rule {rule} :ruleset ldr-{table} :name \"ld-{table}\")")
        out.append(f"(rule ({row}) ((delete {row})) :ruleset ldc-{table} :name \"ld-clean-{table}\")")
    # ``ld_name`` keeps each program value's class; the node table is forgotten
    out.append("(ruleset ldc-ref)")
    out.append('(rule ((= x (ld_ref a))) ((delete (ld_ref a))) :ruleset ldc-ref :name "ld-clean-ref")')
    out.append(f"(unstable-combined-ruleset ld {' '.join(f'ldr-{t}' for t in TABLES)})")
    out.append(f"(unstable-combined-ruleset ld-facts {' '.join(f'ldf-{t}' for t in LOAD_COLUMNS)})")
    out.append(f"(unstable-combined-ruleset ld-clean {' '.join(f'ldc-{t}' for t in TABLES)} ldc-ref)")
    return "\n".join(out)


def schedule(filled: list[str] | None = None, facts: bool = True, late_unions: bool = True) -> str:
    """egglog text: load the written tables (``filled``: their names, ``TABLES``; None: all)
    to their fixpoint, then (with ``facts``) set the analyses' facts the rows carry in one
    iteration, and empty the tables.

    Only the filled tables' rules run, combined into one ruleset per load (an iteration, one
    level of the terms, costs egglog a fixed time per rule of its ruleset, filled or not).
    With ``late_unions`` the unions (``ld_union``) are applied in one iteration once every
    term is built instead of as soon as both sides are: a union makes egglog re-canonicalize
    the term tables after that iteration, every level again (rr_reduce_add_and_mul_32: 371
    unions over 51 levels; the load rules 7.1 -> 4.2 ms). Congruence closure joins the same
    classes either way; the classes' numbers can differ where two rows' terms became one
    only through a union (one kernel of 75: two classes' numbers swapped, the same result).
    The facts are set after the terms are built and joined: set with each term, the
    analysis tables were re-canonicalized after every iteration's unions too (slower than
    the analysis iterations saved)."""
    if filled is None:
        return "(run-schedule (saturate (run ld)))\n" + ("(run ld-facts 1)\n" if facts else "") + "(run ld-clean 1)"
    chosen = [t for t in TABLES if t in set(filled)]
    late = late_unions and "union" in chosen
    build = [t for t in chosen if not (late and t == "union")]
    # after the terms, in one iteration (egglog matches every rule of an iteration before it
    # applies any action): the late unions, the facts, and the rules emptying the tables
    after = [*(["ldr-union"] if late else []), *(f"ldf-{t}" for t in chosen if t in LOAD_COLUMNS and facts),
             *(f"ldc-{t}" for t in chosen), "ldc-ref"]
    name = "ld-" + "-".join(str(TABLES.index(t)) for t in chosen)
    text = ""
    for suffix, members, run in (("build", [f"ldr-{t}" for t in build], "(run-schedule (saturate (run {})))"),
                                 ("after", after, "(run {} 1)")):
        if not members:
            continue
        ruleset = members[0]
        if len(members) > 1:
            ruleset = f"{name}-{suffix}"
            text += f"(unstable-combined-ruleset {ruleset} {' '.join(members)})\n"
        text += run.format(ruleset) + "\n"
    return text


def _field(v: Arg, col: str) -> str:
    if col == "F":
        return repr(float(v))
    text = str(v)
    if "\t" in text or "\n" in text:
        raise ValueError(f"cannot load {text!r}: tabs and newlines are not allowed in names and keys")
    return text


def _line(row: tuple[Arg, ...], cols: str) -> str:
    """One TSV line: ``_field`` of each value, joined at once where no column is a float (a
    tab or newline inside a value, which ``_field`` refuses, shows as a wrong count)."""
    if "F" not in cols:
        line = "\t".join(map(str, row))
        if line.count("\t") == len(cols) - 1 and "\n" not in line and len(row) == len(cols):
            return line + "\n"
    return "\t".join(_field(v, c) for v, c in zip(row, cols, strict=True)) + "\n"


def _text(rows: list[tuple[Arg, ...]], cols: str) -> str:
    """The TSV text of ``rows`` (``_line`` of each): where no column is a float, formatted at once
    and checked as a whole -- every row as long as ``cols`` and, in all, one tab fewer per row
    than columns and one newline per row (a tab or newline inside a value shows as a wrong
    count: then line by line, where ``_field`` refuses it)."""
    if "F" not in cols and rows and set(map(len, rows)) == {len(cols)}:
        # one %-format of every value (``%s`` is ``str``): no Python per row or value
        line = "\t".join(["%s"] * len(cols)) + "\n"
        text = (line * len(rows)) % tuple(chain.from_iterable(rows))
        if text.count("\t") == len(rows) * (len(cols) - 1) and text.count("\n") == len(rows):
            return text
    return "".join(_line(row, cols) for row in rows)


#: the argument holding the slot count of a leaf or summary
_N_COLUMN = {"In": 1, "Num": 1, "NumF": 1, "Dense": 1, "Mask": 1, "Place": 2, "Splat": 1, "LinRot": 2, "LinMap": 2,
             "ProdRot": 2, "Gather": 3}
#: the slot count and ``varies`` of a term not known (``Tables.facts``)
_UNKNOWN: tuple[Arg, int] = (-1, -1)
#: ``varies`` of a leaf (summaries have none)
_VARIES_LEAF = {"In": 1, "Num": 0, "NumF": 0, "Dense": 0, "Mask": 0}
#: the constructors whose facts derive from their children's: the child whose ``slots`` is
#: theirs (None: ``Ext``'s 1 or their own count) and those whose ``varies`` (the maximum) is
_DERIVED: dict[str, tuple[int | None, tuple[int, ...]]] = {
    **{op: (0, (0, 1)) for op in ("Add", "Sub", "Mul", "AddI", "SubI", "MulI")},
    **{op: (0, (0,)) for op in ("Neg", "Encode", "Decode", "NegI", "Rot")},
    "Ins": (1, (0, 1)), "Ext": (None, (0,)), "ExtI": (None, (0,)), "Place": (None, (0,)), "Splat": (None, (0,)),
}


def _fact_rule(op: str) -> tuple[int, int, int]:
    """How ``Tables.node`` derives the facts of an ``op`` row, as ``(kind, slots, varies)``
    (``_DERIVED``, ``_N_COLUMN``, ``_VARIES_LEAF`` read once per constructor, not per row):
    kind 0, a leaf or summary: the slot count is argument ``slots``, ``varies`` is ``varies``;
    kind 1 (2): the slot count and ``varies`` are child 0's (``varies`` the maximum of
    children 0 and 1's); kind 3: the slot count is child 1's, ``varies`` children 0 and 1's
    (``Ins``); kind 4: the slot count is argument ``slots`` (-1: 1, ``Ext``'s), ``varies``
    child 0's."""
    derived = _DERIVED.get(op)
    if derived is None:
        return 0, _N_COLUMN[op], _VARIES_LEAF.get(op, -1)
    child, varying = derived
    if child is None:
        return 4, -1 if op[:3] == "Ext" else _N_COLUMN[op], 0
    if child == 1:
        return 3, 0, 0
    return (1 if len(varying) == 1 else 2), 0, 0


#: ``_fact_rule`` of every constructor
_FACT_RULES: dict[str, tuple[int, int, int]] = {op: _fact_rule(op) for op in LOAD_COLUMNS}


def _derived(get: Callable[..., Any], op: str, args: tuple[Arg, ...]) -> tuple[Arg, int]:
    """The slot count and ``varies`` of the term ``op(args)`` from its children's (``get``:
    ``Tables.facts.get``), by ``op``'s ``_fact_rule``."""
    kind, col, v = _FACT_RULES[op]
    if kind == 0:  # a leaf's or a summary's (summaries have no ``varies``)
        return args[col], v
    f0 = get(args[0], _UNKNOWN)
    if kind == 1:
        return f0  # type: ignore[no-any-return]
    if kind == 4:
        return (1 if col < 0 else args[col]), f0[1]
    f1 = get(args[1], _UNKNOWN)
    v0, v1 = f0[1], f1[1]
    return (f0[0] if kind == 2 else f1[0]), (-1 if v0 < 0 or v1 < 0 else v0 if v0 > v1 else v1)


class Tables:
    """The rows being written: one list per constructor (``LOAD_COLUMNS``, then the term's
    slot count and ``varies``: ``write``), unions, result
    markers, source rotations, and each program value's node id (``name``). Node ids below
    ``first_id`` are the program's own; ``node`` numbers new rows after them."""

    def __init__(self, first_id: int) -> None:
        self.rows: dict[str, list[tuple[Arg, ...]]] = {op: [] for op in LOAD_COLUMNS}
        self.unions: list[tuple[int, int]] = []
        self.root_rows: list[tuple[int, int]] = []
        self.src_rots: list[int] = []
        self.name: dict[int, int] = {}  # IR node id -> node id of its term
        # node id -> the slot count and ``varies`` of its term (-1: not known; ``write``)
        self.facts: dict[Arg, tuple[Arg, int]] = {}
        self.write_facts = True  # False: the rows' facts written as -1 (not known)
        self.filled: list[str] = []  # the tables ``write`` wrote (``TABLES`` names), for ``schedule``
        self._next = first_id

    def node(self, op: str, *args: Arg, at: int | None = None) -> int:
        """A row for ``op(args)`` (T columns are node ids) and the slot count and ``varies`` of
        its term (``facts``: -1 where not known, see ``write``); its node id (``at``, or fresh)."""
        if at is None:
            at = self._next
            self._next += 1
        n, v = _derived(self.facts.get, op, args)
        self.facts[at] = (n, v)
        self.rows[op].append((at, *args, n, v))
        return at

    def nodes(self, rows: Iterable[tuple[str, tuple[Arg, ...]]]) -> int:
        """``node(op, *args)`` for every ``(op, args)`` of ``rows`` in order, each with a fresh
        node id: the same rows and facts, in one call (``linrot_load.DryRun.replay`` writes a
        realization's rows, 394 for the 32-slot sum-and-product: the calls were half its time);
        the next fresh node id after them."""
        at = self._next
        facts = self.facts
        get = facts.get
        tables = self.rows
        for op, args in rows:
            n, v = facts[at] = _derived(get, op, args)
            tables[op].append((at, *args, n, v))
            at += 1
        self._next = at
        return at

    def write(self, directory: Path) -> list[str]:
        """Write the tables as TSV files under ``directory``; the egglog commands that load them.
        ``filled``: the names (``TABLES``) of the tables written, for ``schedule``.

        Each constructor's row ends in the slot count and ``varies`` of its term, where known
        and ``write_facts`` (else -1): ``schedule`` sets them once the terms are built, so that the
        analyses at load (``eqsat.term.slots_analysis``) find them in place instead of
        deriving them one term level an iteration. ``node`` derives them as the analysis
        does: a leaf's ``slots`` and ``varies``, a summary's ``slots`` (summaries get no
        ``varies``), the others' from their children's -- but without the unions. That is
        sound: ``slots`` is the same for every term of a class (``merge`` keeps the first),
        and ``varies`` is min-merged over a class: its analysis ends at the greatest
        assignment (undefined above every value) at which no class's value exceeds what one
        of its terms derives from its children's, and a start at or above that one and
        defined only where it is ends there too -- a term's own value, from its children's
        terms' rather than their classes' (a class's is the minimum over its terms), is such
        a start; where a union lowers a class's value, the rules lower its parents' (a few
        iterations). The analyses' tables then hold the same rows, in another order.
        """
        cmds = []
        tables: dict[str, tuple[str, list[tuple[Arg, ...]]]] = {
            op: ("T" + cols + "II", rows if self.write_facts else [(*row[:-2], -1, -1) for row in rows])
            for op, cols in LOAD_COLUMNS.items() for rows in [self.rows[op]]
        }
        tables["union"] = ("TT", list(self.unions))
        tables["root"] = ("IT", list(self.root_rows))
        tables["src"] = ("T", [(a,) for a in self.src_rots])
        tables["alias"] = ("IT", sorted(self.name.items()))
        self.filled = []
        for table, (cols, rows) in tables.items():
            if not rows:
                continue
            path = directory / f"ld_{table}.tsv"
            with open(path, "w") as f:
                f.write(_text(rows, cols))
            cmds.append(f"(input ld_{table} {_quote(str(path))})")
            self.filled.append(table)
        return cmds
