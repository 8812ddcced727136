"""Suite-wide checks: no encrypted run of any test may measure more noise than a model predicts."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

# a command that finds no server starts one in the background (``eqsat.client.start_in_background``):
# not for the suite's commands, which would leave servers running after it (the tests of that
# behaviour ask for it explicitly)
os.environ["EQSAT_AUTOSTART"] = "0"


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
