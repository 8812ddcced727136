"""Where HEIR's tools are: ``heir-opt`` / ``heir-translate`` from heir-py, or None.

In: a tool name.  Out: the path of an executable, looked up in this order:
``$HEIR_OPT_PATH`` / ``$HEIR_TRANSLATE_PATH``, PATH, the folder of the running Python
(a virtualenv's ``bin`` holds heir-py's console scripts), then the binary inside the
installed ``heir`` package (heir-py ships it as ``site-packages/heir/heir-opt``; the
console script of the same name only re-executes it).  The package is found without
importing it (its ``__init__`` installs an import hook for numba).  Used by the HEIR
experiments, the interop tests and ``examples/heir_roundtrip.py``; nothing is installed.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import sys
from pathlib import Path

_ENV = {"heir-opt": "HEIR_OPT_PATH", "heir-translate": "HEIR_TRANSLATE_PATH"}


def find_heir_tool(name: str) -> Path | None:
    """The executable ``name`` (``heir-opt`` or ``heir-translate``), or None when absent."""
    env = os.environ.get(_ENV.get(name, ""))
    if env and Path(env).is_file():
        return Path(env)
    found = shutil.which(name) or shutil.which(name, path=str(Path(sys.executable).parent))
    if found:
        return Path(found)
    spec = importlib.util.find_spec("heir")
    for loc in (spec.submodule_search_locations or []) if spec else []:
        cand = Path(loc) / name
        if cand.is_file() and os.access(cand, os.X_OK):
            return cand
    return None


def find_heir_opt() -> Path | None:
    return find_heir_tool("heir-opt")


def find_heir_translate() -> Path | None:
    return find_heir_tool("heir-translate")
