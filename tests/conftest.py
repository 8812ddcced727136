"""Suite-wide checks: no encrypted run of any test may measure more noise than a model predicts."""

from __future__ import annotations

from collections.abc import Iterator

import pytest


@pytest.fixture(autouse=True)
def _noise_models_hold_on_every_run() -> Iterator[None]:
    import sys

    executor = sys.modules.get("eqsat.backend.executor")
    before = len(executor.MODEL_VIOLATIONS) if executor else 0
    yield
    executor = sys.modules.get("eqsat.backend.executor")
    if executor is not None and len(executor.MODEL_VIOLATIONS) > before:
        new = executor.MODEL_VIOLATIONS[before:]
        pytest.fail("noise model below measured noise:\n" + "\n".join(new), pytrace=False)
