"""Parameter selection: NTT-friendly primes, the HE Standard table, factor balancing."""

from __future__ import annotations

import galois
import pytest
from hypothesis import given
from hypothesis import strategies as st

from eqsat.backend import BackendError
from eqsat.backend.params import (
    HE_STANDARD,
    balance_factors,
    is_prime,
    make_params,
    ntt_primes,
    plaintext_modulus,
    security_level,
)


def test_primes_are_ntt_friendly() -> None:
    for n in (64, 4096, 32768):
        ps = ntt_primes(n, 30, 4)
        assert len(set(ps)) == 4
        for p in ps:
            assert galois.is_prime(p) and p % (2 * n) == 1 and p < 2**31
    t = plaintext_modulus(8192)
    assert t == 65537 and galois.is_prime(t)


@given(st.integers(2, 10**7))
def test_is_prime_agrees_with_galois(n: int) -> None:
    assert is_prime(n) == galois.is_prime(n)


def test_security_table_is_enforced() -> None:
    assert security_level(8192, 218) == 128
    assert security_level(8192, 219) == 0
    assert security_level(8192, 150) == 192
    assert security_level(512, 10) == 0
    with pytest.raises(BackendError, match="128-bit"):
        make_params("bgv", 1024, 1)  # 3 primes of 30 bits > 27 bits allowed
    with pytest.raises(BackendError, match="insecure"):
        make_params("bgv", 256, 1)  # N below the table
    p = make_params("bgv", 8192, 5)
    assert p.security_bits == 128 and p.log_q <= HE_STANDARD[8192][0]
    with pytest.raises(BackendError):
        make_params("bgv", 8192, 6)
    weak = make_params("bgv", 8192, 6, insecure=True)
    assert weak.security_bits == 0 and weak.report()["security_bits"] == 0


@given(st.integers(1, 65536), st.integers(1, 65536))
def test_balance_factors(f1: int, f2: int) -> None:
    t = 65537
    a, b = balance_factors(f1, f2, t)
    assert (a * f1 - b * f2) % t == 0
    assert a % t and b % t
    assert max(abs(a), abs(b)) <= 2 * int(t**0.5) + 2
