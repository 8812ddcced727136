"""Goal tests for chosen layouts (issue 15): counts at most the best of Coyote and CHEHAB.

Each kernel is optimized with ``layouts="auto"``, run encrypted (BGV) with the client's
packing (``eqsat.run(..., layouts=...)``), and the unpacked outputs are compared with the
original program evaluated in the clear. Published counts (rotations, ct*ct muls):
Coyote's results table as republished by CHEHAB
(Modern-Compilers-Lab/CHEHAB generate_statistics_graphs/coyote_results.csv, ``*_fully``
packings) and the numbers of issue 15 (Coyote's benchmarks: 2x2 matmul 1/1, 3x3 9/1,
conv 4x2 1/1, 5x3 2/1, distances of two 4-vectors 4/2); the table with its sources is
``eqsat.testing.kernels.PUBLISHED`` (``NOT_MET``: the kernels where we stay above).
"""

from __future__ import annotations

import pytest

import eqsat
from eqsat.algebra.product_bound import min_products
from eqsat.interp import evaluate, random_inputs, results_equal
from eqsat.ir import Program
from eqsat.testing.kernels import NOT_MET, PUBLISHED, TREE_PEERS, conv1d, distances, dot, matmul


def _run_checked(prog: Program, res: object) -> dict[str, object]:
    inputs = random_inputs(prog, 7, bound=20)
    out = eqsat.run(res.program, inputs, "bgv", insecure=True, layouts=res.report["layouts"])  # type: ignore[attr-defined]
    assert out["match"]
    want = evaluate(prog, inputs, modulus=out["params"]["t"])
    assert results_equal(out["outputs"], want, modulus=out["params"]["t"])
    return out


@pytest.mark.parametrize("kernel", sorted(PUBLISHED))
def test_chosen_layouts_match_published(kernel: str) -> None:
    build, rot, mul, _source = PUBLISHED[kernel]
    prog = build()
    res = eqsat.optimize(prog, "bgv", layouts="auto")
    ops = res.report["after"]["ops"]
    assert ops.get("rotate", 0) <= rot, ops
    assert ops.get("mul", 0) <= mul, ops
    assert ops.get("extract", 0) == ops.get("insert", 0) == 0, ops
    # no program with these rotations has fewer products (eqsat.algebra.product_bound)
    assert ops.get("mul", 0) >= (min_products(prog, ops.get("rotate", 0)) or 0), ops
    _run_checked(prog, res)


@pytest.mark.parametrize("kernel", sorted(NOT_MET))
def test_not_met_yet(kernel: str) -> None:
    """Max of 5 (CHEHAB's tree and Coyote's own form) and sort of 4: the per-count best mixes
    CHEHAB's 1 rotation with Coyote's muls. Max of 5: the front holds 1 / 7, the fewest
    products any one-rotation schedule has, but the cost table takes 2 / 5 (cheaper by it, and
    than each peer: ``test_trees_against_each_published_result``). Sort of 4: no one-rotation
    program -- of any form, with any packing -- has fewer than 12 products
    (``test_sort_4_per_count_best_is_out_of_reach``); the cost table takes 3 / 6."""
    build, rot, mul, _source = NOT_MET[kernel]
    prog = build()
    res = eqsat.optimize(prog, "bgv", layouts="auto")
    ops = res.report["after"]["ops"]
    _run_checked(prog, res)
    if ops.get("rotate", 0) > rot or ops.get("mul", 0) > mul:
        pytest.xfail(f"{kernel}: {ops.get('rotate', 0)} rotations / {ops.get('mul', 0)} muls, published {rot} / {mul}")
    raise AssertionError(f"{kernel} now meets the published counts: move it to PUBLISHED")


def test_fixed_layouts_are_todays_result() -> None:
    prog = conv1d(4, 2)
    today = eqsat.optimize(prog, "bgv")
    fixed = eqsat.optimize(prog, "bgv", layouts="fixed")
    assert fixed.report["after"] == today.report["after"]
    assert fixed.program.args == today.program.args
    lay = fixed.report["layouts"]
    assert lay["arguments"]["x"]["name"] == "row-major"
    assert lay["arguments"]["x"]["slot_index"] == [[0], [1], [2], [3]]
    assert lay["results"][0]["slot_index"] == [[0], [1], [2]]


def test_auto_never_worse_than_fixed() -> None:
    from eqsat.testing.kernels import hamming

    for prog in (hamming(4), dot(4)):
        fixed = eqsat.optimize(prog, "bgv", layouts="fixed")
        auto = eqsat.optimize(prog, "bgv", layouts="auto")
        assert auto.report["after"]["cost"] <= fixed.report["after"]["cost"]


def test_client_from_the_report_alone() -> None:
    """A client that knows only the JSON ``layouts`` section and the executor's raw API."""
    import json

    from eqsat.backend.executor import run_program

    prog = matmul(2)
    res = eqsat.optimize(prog, "bgv", layouts="auto")
    layouts = json.loads(json.dumps(res.report["layouts"]))
    a, b = [1, 2, 3, 4], [5, 6, 7, 8]
    values = {"a": a, "b": b}
    raw: dict[str, object] = {}
    for name, lay in layouts["arguments"].items():
        slots, cts = lay["slots"], lay["ciphertexts"]
        vecs = [[0] * slots for _ in range(cts)]
        for elem, places in enumerate(lay["slot_index"]):
            for flat in places:
                vecs[flat // slots][flat % slots] = values[name][elem]
        for arg, vec in zip(lay["ciphertext_args"], vecs, strict=True):
            raw[arg] = vec
    out = run_program(res.program, raw, "bgv", insecure=True)
    (rlay,) = layouts["results"]
    (vec,) = out["outputs"]
    got = [vec[places[0] % rlay["slots"]] for places in rlay["slot_index"]]
    t = out["params"]["t"]
    want = [sum(a[i * 2 + k] * b[k * 2 + j] for k in range(2)) % t for i in range(2) for j in range(2)]
    assert [g % t for g in got] == want


def test_printed_mlir_carries_the_layouts_and_runs_from_the_cli(tmp_path) -> None:  # type: ignore[no-untyped-def]
    import json

    from eqsat.cli import main

    prog = conv1d(5, 3)
    res = eqsat.optimize(prog, "bgv", layouts="auto")
    text = res.to_mlir()
    assert "tensor_ext.layout" in text and "eqsat.layout" in text
    (back,) = eqsat.parse_mlir(text)
    assert back.meta["layouts"] == json.loads(json.dumps(res.report["layouts"]))
    src = tmp_path / "conv.mlir"
    src.write_text(text)
    inp = tmp_path / "in.json"
    inp.write_text(json.dumps({"x": [1, 2, 3, 4, 5], "w": [1, 10, 100]}))
    assert main(["run", str(src), "--scheme", "bgv", "--insecure", "--inputs", str(inp)]) == 0


def test_cli_layouts_flag(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    import json

    from eqsat.cli import main

    src = tmp_path / "dist.mlir"
    src.write_text(eqsat.print_mlir(distances(4)))
    capsys.readouterr()
    assert main(["optimize", str(src), "--layouts", "auto", "--json"]) == 0
    out = capsys.readouterr().out
    rep = json.loads(out[out.index("{"):])  # (HiGHS may print its banner to stdout first)
    assert rep["layouts"]["arguments"]["a"]["name"].startswith("aligned")
    assert rep["after"]["ops"].get("rotate", 0) == 0 and rep["after"]["ops"]["mul"] == 1


def test_a_result_layout_flows_into_its_consumer() -> None:
    """The matmul's packed result feeds the next program: element-wise work stays packed
    (no conversion, the result keeps the layout); a rotation needs the row-major tensor,
    and that conversion is counted."""
    from eqsat.layout_search import optimize_layouts

    first = eqsat.optimize(matmul(2), "bgv", layouts="auto")
    clay = first.report["layouts"]["results"][0]
    assert clay["slots"] == 8

    @eqsat.program(c=eqsat.secret_vector(4))
    def square_plus(c):  # type: ignore[no-untyped-def]
        return c * c + 3

    @eqsat.program(c=eqsat.secret_vector(4))
    def rotated(c):  # type: ignore[no-untyped-def]
        return eqsat.rotate(c, 1)

    flow = optimize_layouts(square_plus, "bgv", {"c": clay})
    ops = flow.report["after"]["ops"]
    assert ops.get("rotate", 0) == ops.get("insert", 0) == ops.get("extract", 0) == 0 and ops["mul"] == 1
    assert flow.report["layouts"]["results"][0]["slot_index"] == clay["slot_index"]
    out = eqsat.run(flow.program, {"c": [1, 2, 3, 4]}, "bgv", insecure=True, layouts=flow.report["layouts"])
    assert out["match"] and out["outputs"] == [[4, 7, 12, 19]]
    conv = optimize_layouts(rotated, "bgv", {"c": clay})
    cops = conv.report["after"]["ops"]
    assert cops.get("rotate", 0) + cops.get("insert", 0) + cops.get("extract", 0) > 0
    out = eqsat.run(conv.program, {"c": [1, 2, 3, 4]}, "bgv", insecure=True, layouts=conv.report["layouts"])
    assert out["match"] and out["outputs"] == [[2, 3, 4, 1]]


def test_api_pack_and_unpack_helpers() -> None:
    from eqsat.backend.executor import run_program

    prog = conv1d(4, 2)
    res = eqsat.optimize(prog, "bgv", layouts="auto")
    lays = res.report["layouts"]
    raw = eqsat.pack(lays, {"x": [1, 2, 3, 4], "w": [5, 7]})
    assert set(raw) == {a for d in lays["arguments"].values() for a in d["ciphertext_args"]}
    out = run_program(res.program, raw, "bgv", insecure=True)
    assert eqsat.unpack(lays, out["outputs"]) == [[19, 31, 43]]


def _rot_mul_cost(rot: int, mul: int) -> float:
    from eqsat.models.cost import table

    t = table("bgv")
    return rot * t["rotate"] + mul * (t["mul"] + t["relinearize"])


@pytest.mark.parametrize("kernel", sorted(TREE_PEERS))
def test_trees_against_each_published_result(kernel: str) -> None:
    """The decision trees with chosen layouts (select lanes): no published result is as good
    on both counts, and each costs more by the BGV table (rotations and ct*ct muls priced)."""
    build = {**PUBLISHED, **NOT_MET}[kernel][0]
    prog = build()
    res = eqsat.optimize(prog, "bgv", layouts="auto")
    ops = res.report["after"]["ops"]
    rot, mul = ops.get("rotate", 0), ops.get("mul", 0)
    for peer, prot, pmul in TREE_PEERS[kernel]:
        assert not (prot <= rot and pmul <= mul and (prot, pmul) != (rot, mul)), (peer, rot, mul)
        assert _rot_mul_cost(rot, mul) <= _rot_mul_cost(prot, pmul), (peer, rot, mul)
    _run_checked(prog, res)


@pytest.mark.parametrize("kernel", ["max_5", "coyote_max_5"])
def test_max_5_meets_the_per_count_best_when_rotations_cost_more(kernel: str) -> None:
    """With rotations priced above 2 ct*ct muls, the search takes the one-rotation packing of
    the max of 5: 1 rotation / 7 muls, within CHEHAB's rotations and Coyote's muls at once.
    (A slot read keeps costing a rotation and a mask, and a hoisted rotation 0.57 of one, as
    in the default table: overriding ``rotate`` alone lets the hoisting saving exceed the
    cost of a slot read, and Coyote's form, which reads 13 slots of two vectors, would cost
    less than nothing in row-major.)"""
    prog = NOT_MET[kernel][0]()
    res = eqsat.optimize(prog, "bgv", layouts="auto", costs={"rotate": 100, "rotate_hoisted": 57, "extract": 102})
    ops = res.report["after"]["ops"]
    assert ops.get("rotate", 0) <= 1 and ops.get("mul", 0) <= 9, ops
    _run_checked(prog, res)


def test_sort_4_per_count_best_is_out_of_reach() -> None:
    """1 rotation and 10 products (CHEHAB's rotations with Coyote's products) for the sort of 4:
    no program computing the tree has them. Its 24 leaves' path polynomials are independent
    and sum to one, so every program needs 23 products in the slots that make the result, and
    one rotation lets two slots share them: at least 12 (``eqsat.algebra.product_bound``, any
    program, any packing). The select-lanes model (README, "Decision trees") gives the same 12
    for its schedules, and the front attains it."""
    from eqsat.layouts_sched import counts, one_rotation, select_candidates, select_dag
    from eqsat.testing.kernels import sort_tree

    prog = sort_tree(4)
    _build, rot, mul, _source = NOT_MET["sort_4"]
    assert min_products(prog, rot) == 12 > mul
    dag = select_dag(prog)
    assert dag is not None and len(dag.sel) == 23
    assert one_rotation(dag) == 12
    assert (1, 12) in [counts(c.program) for c in select_candidates(prog)]


def test_hamming_with_coyotes_output_contract() -> None:
    """Coyote's Hamming distance of 4 (1 add, 1 sub, 2 muls, 0 rotations) leaves the sum to
    the client: 4 ciphertext ops combine at most 5 of the 8 input elements into a slot, and
    its counts are one slot-wise ``a + b - 2*(a*b)`` with the 2 a ciphertext. The same
    contract -- per-element XORs, added by the client after decryption -- costs 0 rotations
    and 1 product here (the ``hamming_xor_4`` row); the single-slot distance 2 / 1 (HEIR's
    count; CHEHAB's 4 / 2 and 3 / 3, the ``hamming_distance_4`` row)."""

    @eqsat.program(a=eqsat.secret_vector(4), b=eqsat.secret_vector(4))
    def xor4(a, b):  # type: ignore[no-untyped-def]
        return eqsat.vector([a[i] + b[i] - 2 * a[i] * b[i] for i in range(4)])

    res = eqsat.optimize(xor4, "bgv", layouts="auto")
    ops = res.report["after"]["ops"]
    assert ops.get("rotate", 0) == 0 and ops.get("mul", 0) == 1, ops
    out = eqsat.run(res.program, {"a": [1, 0, 1, 1], "b": [1, 1, 0, 1]}, "bgv", insecure=True,
                    layouts=res.report["layouts"])
    assert out["match"] and sum(out["outputs"][0]) == 2


def test_coyote_sort_3_as_written_in_the_kernel_suite() -> None:
    """Coyote's own form (bits and leaves as the vectors ``cs`` and ``os``): 1 rotation and
    3 ct*ct muls with chosen layouts, against Coyote's 5 / 4; row-major needs 7 / 5."""
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "experiments/kernels/coyote_sort_3/unrolled.mlir"
    (prog,) = eqsat.parse_mlir(path.read_text())
    res = eqsat.optimize(prog, "bgv", layouts="auto")
    ops = res.report["after"]["ops"]
    assert ops.get("rotate", 0) <= 1 and ops.get("mul", 0) <= 3, ops
    assert res.report["layouts"]["arguments"]["os"]["name"] == "select-lanes"
    _run_checked(prog, res)


def test_client_from_the_report_alone_for_a_tree() -> None:
    """The select lanes of the max of 4 (scalar arguments, each in several ciphertexts of
    several slots), packed by a client that reads only the JSON section."""
    import json

    from eqsat.backend.executor import run_program
    from eqsat.testing.kernels import max_tree

    prog = max_tree(4)
    res = eqsat.optimize(prog, "bgv", layouts="auto")
    layouts = json.loads(json.dumps(res.report["layouts"]))
    assert {d["name"] for d in layouts["arguments"].values()} == {"select-lanes"}
    o = {"o1": 5, "o2": 9, "o3": 2, "o4": 7}
    values = {**o, **{f"c{i}{j}": int(o[f"o{i}"] >= o[f"o{j}"]) for i in range(1, 5) for j in range(i + 1, 5)}}
    raw: dict[str, object] = {}
    for name, lay in layouts["arguments"].items():
        slots, cts = lay["slots"], lay["ciphertexts"]
        vecs = [[0] * slots for _ in range(cts)]
        for places in lay["slot_index"]:
            for flat in places:
                vecs[flat // slots][flat % slots] = values[name]
        for arg, vec in zip(lay["ciphertext_args"], vecs, strict=True):
            raw[arg] = vec
    out = run_program(res.program, raw, "bgv", insecure=True)
    (rlay,) = layouts["results"]
    (val,) = out["outputs"]
    got = val if not isinstance(val, list) else val[rlay["slot_index"][0][0] % rlay["slots"]]
    assert got % out["params"]["t"] == 9
