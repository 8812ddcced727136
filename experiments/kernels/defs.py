"""The suite's kernels as templates (our own definitions, written from the peers' published
benchmark descriptions; sources in ``manifest.toml``). In: nothing. Out: ``KERNELS``, the list
``build.py`` turns into MLIR files. All inputs are secret ``i16`` tensors, row-major.
"""

from __future__ import annotations

from experiments.kernels.build import Aff, Kernel, add, const, mul, sub, total, var

I, J, K, R, C = var("i"), var("j"), var("k"), var("r"), var("c")
STRAIGHT = ["unrolled", "from_elements", "swapped"]
ALL_1D = [*STRAIGHT, "loop"]
ALL_2D = [*STRAIGHT, "loop", "unrolled2d", "loop2d"]
ZERO_2D = [*STRAIGHT, "unrolled2d"]


def _stencil(weights: list[list[int]], img: str = "img") -> object:
    """A 3x3 (or 2x2) stencil centred at (r, c): sum of w * img[r+dr, c+dc], zero weights
    skipped, a weight of -1 written as a subtraction, others as a constant product."""
    h = len(weights)
    lo = -1 if h == 3 else 0

    def body(read, v):  # type: ignore[no-untyped-def]
        pos, neg = [], []
        for a, row in enumerate(weights):
            for b, w in enumerate(row):
                if w == 0:
                    continue
                x = read(img, v["r"] + (a + lo), v["c"] + (b + lo))
                if w == 1:
                    pos.append(x)
                elif w == -1:
                    neg.append(x)
                elif w > 0:
                    pos.append(mul(const(w), x))
                else:
                    neg.append(mul(const(-w), x))
        out = total(pos)
        for x in neg:
            out = sub(out, x)
        return out

    return body


BOX3 = [[1, 1, 1], [1, 1, 1], [1, 1, 1]]
GX = [[-1, 0, 1], [-2, 0, 2], [-1, 0, 1]]
GY = [[-1, -2, -1], [0, 0, 0], [1, 2, 1]]
BOX2 = [[1, 1], [1, 1]]


def _roberts(read, v):  # type: ignore[no-untyped-def]
    # Roberts cross as HECO writes it: (p[r][c] - p[r+1][c+1])^2 + (p[r+1][c] - p[r][c+1])^2
    a = sub(read("img", v["r"], v["c"]), read("img", v["r"] + 1, v["c"] + 1))
    b = sub(read("img", v["r"] + 1, v["c"]), read("img", v["r"], v["c"] + 1))
    return add(mul(a, a), mul(b, b))


def _matmul(n: int) -> Kernel:
    return Kernel(
        f"matmul_{n}x{n}",
        {"a": (n, n), "b": (n, n)},
        (n, n),
        lambda read, v: mul(read("a", v["r"], v["k"]), read("b", v["k"], v["c"])),
        red=("k", n),
        styles=ALL_2D,
        out_vars=("r", "c"),
    )


def _conv(n: int, m: int) -> Kernel:
    return Kernel(
        f"conv1d_{n}_by_{m}",
        {"sig": (n,), "ker": (m,)},
        (n - m + 1,),
        lambda read, v: mul(read("sig", v["i"] + v["k"]), read("ker", v["k"])),
        red=("k", m),
        styles=ALL_1D,
    )


def _elementwise(name: str, n: int, inputs: list[str], f) -> Kernel:  # type: ignore[no-untyped-def]
    return Kernel(
        name, {x: (n,) for x in inputs}, (n,), lambda read, v: f(*(read(x, v["i"]) for x in inputs)), styles=ALL_1D
    )


def _reduce(name: str, n: int, inputs: list[str], f) -> Kernel:  # type: ignore[no-untyped-def]
    return Kernel(
        name,
        {x: (n,) for x in inputs},
        (),
        lambda read, v: f(*(read(x, v["k"]) for x in inputs)),
        red=("k", n),
        styles=ALL_1D,
        out_vars=(),
    )


def _sq(x):  # type: ignore[no-untyped-def]
    return mul(x, x)


def _mux(c, a, b):  # type: ignore[no-untyped-def]
    # c * a + (1 - c) * b, written as b + c * (a - b): an encrypted select on a bit c
    return add(b, mul(c, sub(a, b)))


def _sort3_kernel() -> Kernel:
    """A 3-element compare-exchange network: cmp[j] is the secret bit of comparison j;
    slot i of the output is a different select tree, so the slots share no template."""

    def body(read, v):  # type: ignore[no-untyped-def]
        x = [read("x", Aff(const=t)) for t in range(3)]
        c = [read("cmp", Aff(const=t)) for t in range(3)]
        lo01, hi01 = _mux(c[0], x[0], x[1]), _mux(c[0], x[1], x[0])
        lo12, hi12 = _mux(c[1], lo01, x[2]), _mux(c[1], x[2], lo01)
        mid, top = _mux(c[2], hi01, hi12), _mux(c[2], hi12, hi01)
        return [lo12, mid, top]

    return Kernel("sort_network_3", {"x": (3,), "cmp": (3,)}, (3,), body, styles=STRAIGHT, out_vars=("i",))



def _cond(c, a, b):  # type: ignore[no-untyped-def]
    # c * a + (1 - c) * b: the select as Coyote's and CHEHAB's decision trees write it
    return add(mul(c, a), mul(sub(const(1), c), b))


def _sort_tree_kernel(n: int) -> Kernel:
    """Sorting n values as a decision tree over secret comparison bits (Coyote's sort_3,
    CHEHAB's sort): ``os[k]`` is the sorted output of the k-th ordering (orderings of 1..n in
    lexicographic order), ``cs`` the bits ``v_i <= v_j`` (i < j, in order 12, 13, .., 23, ..);
    the tree is insertion sort, value k compared with the ones before it from the largest
    down (for n = 3 exactly Coyote's sort_3 tree); n! leaves, n! - 1 selects."""
    from itertools import permutations

    perms = ["".join(str(x) for x in p) for p in permutations(range(1, n + 1))]
    pairs = [(i, j) for i in range(1, n + 1) for j in range(i + 1, n + 1)]

    def body(read, v):  # type: ignore[no-untyped-def]
        def bit(i: int, j: int):  # type: ignore[no-untyped-def]
            return read("cs", Aff(const=pairs.index((i, j))))

        def insert(order: tuple[int, ...], k: int):  # type: ignore[no-untyped-def]
            if k > n:
                return read("os", Aff(const=perms.index("".join(str(x) for x in order))))
            return place(order, k, len(order))

        def place(order: tuple[int, ...], k: int, pos: int):  # type: ignore[no-untyped-def]
            if pos == 0:
                return insert((k, *order), k + 1)
            here = insert((*order[:pos], k, *order[pos:]), k + 1)
            return _cond(bit(order[pos - 1], k), here, place(order, k, pos - 1))

        return insert((1,), 2)

    return Kernel(
        f"coyote_sort_{n}", {"cs": (len(pairs),), "os": (len(perms),)}, (), body, styles=["unrolled", "swapped"],
        out_vars=())


def _max_tree_kernel_coyote() -> Kernel:
    """The max of 5 as Coyote's ``max_5_packed_fully`` states it: ``os`` holds the five values,
    ``cs`` the ten comparison bits (1 when the first value of the pair is not smaller), in the
    order the tree first reads them (12, 13, 23, 14, 34, 24, 15, 45, 35, 25). The tree keeps the
    first two remaining candidates, compares them and recurses without the loser, so it has
    depth 4 and 15 selects, the same subtrees appearing under several parents (10 distinct)."""
    order = [(1, 2), (1, 3), (2, 3), (1, 4), (3, 4), (2, 4), (1, 5), (4, 5), (3, 5), (2, 5)]

    def body(read, v):  # type: ignore[no-untyped-def]
        def best(cands: tuple[int, ...]):  # type: ignore[no-untyped-def]
            if len(cands) == 1:
                return read("os", Aff(const=cands[0] - 1))
            i, j = cands[0], cands[1]
            bit = read("cs", Aff(const=order.index((i, j))))
            return _cond(bit, best(tuple(c for c in cands if c != j)), best(tuple(c for c in cands if c != i)))

        return best((1, 2, 3, 4, 5))

    return Kernel("coyote_max_5", {"cs": (10,), "os": (5,)}, (), body, styles=["unrolled", "swapped"], out_vars=())


KERNELS: list[Kernel] = [
    # element-wise (CHEHAB lin_reg / poly_reg, HECO linear and quadratic polynomial)
    _elementwise("chehab_lin_reg_8", 8, ["v1", "v2"], lambda v1, v2: add(v2, add(mul(const(5), v1), const(2)))),
    _elementwise(
        "chehab_poly_reg_8", 8, ["x", "a", "b", "c"], lambda x, a, b, c: sub(c, add(mul(mul(x, x), a), mul(x, b)))
    ),
    _elementwise("heco_linear_polynomial_64", 64, ["a", "b", "x", "y"], lambda a, b, x, y: sub(sub(y, mul(a, x)), b)),
    _elementwise(
        "heco_quadratic_polynomial_64",
        64,
        ["a", "b", "c", "x", "y"],
        lambda a, b, c, x, y: sub(y, add(add(mul(a, mul(x, x)), mul(b, x)), c)),
    ),
    _elementwise("elementwise_square_add_16", 16, ["x", "y"], lambda x, y: add(mul(x, x), y)),
    _elementwise("elementwise_mux_8", 8, ["c", "a", "b"], _mux),
    # reductions (HECO dot product / hamming distance, Porcupine L2 distance, HEIR simple_sum)
    _reduce("heco_dot_product_8", 8, ["x", "y"], mul),
    _reduce("heco_hamming_distance_4", 4, ["x", "y"], lambda x, y: _sq(sub(x, y))),
    _reduce("porcupine_l2_distance_4", 4, ["x", "y"], lambda x, y: _sq(sub(x, y))),
    _reduce("heir_simple_sum_32", 32, ["x"], lambda x: x),
    _reduce("chehab_sum_squares_8", 8, ["x"], _sq),
    # stencils, wrap-around on the flattened image (Porcupine / HECO / HEIR)
    Kernel(
        "porcupine_box_blur_2x2_wrap_8x8",
        {"img": (8, 8)},
        (8, 8),
        _stencil(BOX2),
        pad="wrap",
        styles=ALL_2D,
        out_vars=("r", "c"),
    ),
    Kernel(
        "porcupine_box_blur_2x2_wrap_64x64",
        {"img": (64, 64)},
        (64, 64),
        _stencil(BOX2),
        pad="wrap",
        styles=["loop", "loop2d"],
        out_vars=("r", "c"),
    ),
    Kernel(
        "heir_box_blur_3x3_wrap_4x4",
        {"img": (4, 4)},
        (4, 4),
        _stencil(BOX3),
        pad="wrap",
        styles=ALL_2D,
        out_vars=("r", "c"),
    ),
    Kernel("heir_gx_wrap_4x4", {"img": (4, 4)}, (4, 4), _stencil(GX), pad="wrap", styles=ALL_2D, out_vars=("r", "c")),
    Kernel("heco_gy_wrap_4x4", {"img": (4, 4)}, (4, 4), _stencil(GY), pad="wrap", styles=ALL_2D, out_vars=("r", "c")),
    Kernel(
        "heir_roberts_cross_wrap_4x4", {"img": (4, 4)}, (4, 4), _roberts, pad="wrap", styles=ALL_2D, out_vars=("r", "c")
    ),
    # stencils, zero padding (Coyote / CHEHAB write them with padded borders)
    Kernel(
        "box_blur_3x3_zero_4x4",
        {"img": (4, 4)},
        (4, 4),
        _stencil(BOX3),
        pad="zero",
        styles=ZERO_2D,
        out_vars=("r", "c"),
    ),
    Kernel("gx_zero_4x4", {"img": (4, 4)}, (4, 4), _stencil(GX), pad="zero", styles=ZERO_2D, out_vars=("r", "c")),
    Kernel("gy_zero_4x4", {"img": (4, 4)}, (4, 4), _stencil(GY), pad="zero", styles=ZERO_2D, out_vars=("r", "c")),
    Kernel(
        "roberts_cross_zero_4x4", {"img": (4, 4)}, (4, 4), _roberts, pad="zero", styles=ZERO_2D, out_vars=("r", "c")
    ),
    # matrix products (Coyote / CHEHAB), convolutions and distances (Coyote)
    _matmul(2),
    _matmul(3),
    _matmul(4),
    _conv(4, 2),
    _conv(5, 3),
    Kernel(
        "coyote_pairwise_distances_4",
        {"xs": (4,), "ys": (4,)},
        (4, 4),
        lambda read, v: _sq(sub(read("xs", v["r"]), read("ys", v["c"]))),
        styles=[*STRAIGHT, "loop"],
        out_vars=("r", "c"),
    ),
    # decision trees as encrypted selects on secret comparison bits (Coyote / CHEHAB max, sort)
    Kernel(
        "max_tree_4",
        {"x": (4,), "cmp": (3,)},
        (),
        lambda read, v: _mux(
            read("cmp", Aff(const=2)),
            _mux(read("cmp", Aff(const=0)), read("x", Aff(const=0)), read("x", Aff(const=1))),
            _mux(read("cmp", Aff(const=1)), read("x", Aff(const=2)), read("x", Aff(const=3))),
        ),
        styles=["unrolled", "swapped"],
        out_vars=(),
    ),
    _sort3_kernel(),
    _sort_tree_kernel(3),
    _sort_tree_kernel(4),
    _max_tree_kernel_coyote(),
]
