"""Shared fixtures for the backend tests: small insecure parameter sets (fast)."""

from __future__ import annotations

import pytest

from eqsat.backend.params import Params, make_params


@pytest.fixture(scope="session")
def bgv_params() -> Params:
    return make_params("bgv", 64, 3, insecure=True)


@pytest.fixture(scope="session")
def ckks_params() -> Params:
    return make_params("ckks", 64, 3, insecure=True)
