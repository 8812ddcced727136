"""The exact CKKS twin follows the encrypted ciphertexts slot for slot (within their noise)."""

from __future__ import annotations

import numpy as np
import pytest

from eqsat.backend.ckks import CKKS
from eqsat.backend.params import make_params
from eqsat.backend.shadow import ExactCKKS, ciphertext_error


@pytest.mark.parametrize("seed", range(3))
def test_exact_twin_tracks_every_slot_of_a_random_op_sequence(seed: int) -> None:
    params = make_params("ckks", 64, 3, insecure=True)
    ev, ex = CKKS(params, seed), ExactCKKS(params)
    rng = np.random.default_rng(seed)
    rows = [rng.uniform(-1, 1, params.N // 2) for _ in range(2)]
    a, b = (ev.encrypt(r) for r in rows)
    xa, xb = (ex.encrypt(r) for r in rows)
    steps = [
        (lambda e, x, y: e.add(x, y)),
        (lambda e, x, y: e.sub(x, e.rotate(y, 3))),
        (lambda e, x, y: e.rescale(e.relinearize(e.mul(x, y)))),
        (lambda e, x, y: e.add_plain(e.neg(x), [0.5] * (params.N // 2))),
        (lambda e, x, y: e.rescale(e.mul_plain(x, list(rows[1])))),
    ]
    for k in rng.permutation(len(steps)):
        f = steps[k]
        c, xc = f(ev, a, b), f(ex, xa, xb)
        assert (c.level, c.degree) == (xc.level, xc.degree)
        assert abs(c.scale / xc.scale - 1) < 1e-12
        assert ciphertext_error(ev, c, xc) < 1e-3  # noise, not a misplaced slot
        if c.level == a.level:
            a, xa = c, xc


def test_a_wrong_twin_is_caught() -> None:
    params = make_params("ckks", 64, 3, insecure=True)
    ev, ex = CKKS(params, 0), ExactCKKS(params)
    row = np.arange(params.N // 2) / params.N
    c = ev.rotate(ev.encrypt(row), 1)
    assert ciphertext_error(ev, c, ex.rotate(ex.encrypt(row), 1)) < 1e-4
    assert ciphertext_error(ev, c, ex.rotate(ex.encrypt(row), -1)) > 1e-2
