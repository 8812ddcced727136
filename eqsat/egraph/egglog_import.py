"""egglog's Rust bindings without its Python layer, until something asks for that layer.

In: nothing.  Out: ``bindings()``, the module ``egglog.bindings`` (egglog's low-level
``EGraph``: parse and run egglog text, serialize), loaded without running the package's
``__init__``.

Why: the e-graph stage only sends egglog text (``eqsat.egraph.compiled``) through the
bindings, but ``import egglog.bindings`` first runs ``egglog/__init__.py``, which imports
egglog's whole Python layer (the expression DSL, its conversion and pretty-printer, and with
them ``black``, ``graphviz`` and ``opentelemetry``): measured 0.2-0.4 s of every cold command
that never calls any of it.  So the package ``egglog`` is put in ``sys.modules`` as a lazy
module (``importlib.util.LazyLoader``, the standard library's recipe): its ``__init__`` runs on
the first attribute access -- which every later ``import egglog`` or ``from egglog import X``
makes, so code that uses the Python layer (building the compiled rule text, the tests) gets
the complete package as usual -- and the extension module ``egglog.bindings`` is found by
the standard path finder inside the package's folder and loaded on its own (it imports no
Python module of egglog).  When the package has been imported already this is a plain
``import egglog.bindings``.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import sys
from types import ModuleType

_PACKAGE = "egglog"
_NAME = "egglog.bindings"


def package_folders() -> list[str]:
    """The folders of the package ``egglog``, found without loading it (``find_spec`` on our
    lazy package would read its ``__spec__`` and so load it); empty when it is missing."""
    package = sys.modules.get(_PACKAGE)
    # without the package: a top-level name, so ``find_spec`` finds it and imports nothing
    spec = object.__getattribute__(package, "__spec__") if package is not None else importlib.util.find_spec(_PACKAGE)
    return list(spec.submodule_search_locations or []) if spec is not None else []


def bindings() -> ModuleType:
    """The module ``egglog.bindings``, with ``egglog``'s Python layer left unloaded when it is
    not loaded yet (see the module docstring)."""
    from eqsat.egraph import pyobject_pickle

    pyobject_pickle.install()  # egglog pickles our oracles' values through cloudpickle: faster, same bytes
    done = sys.modules.get(_NAME)
    if done is not None:
        return done
    package = sys.modules.get(_PACKAGE)
    if package is None:
        spec = importlib.util.find_spec(_PACKAGE)  # a top-level name: finds, does not import
        if spec is None or spec.loader is None or not spec.submodule_search_locations:
            raise ModuleNotFoundError(f"no module named {_PACKAGE!r}", name=_PACKAGE)
        spec.loader = importlib.util.LazyLoader(spec.loader)
        package = importlib.util.module_from_spec(spec)
        sys.modules[_PACKAGE] = package
        spec.loader.exec_module(package)  # lazy: runs ``__init__`` on the first attribute access
        locations = list(spec.submodule_search_locations)
    elif type(package) is ModuleType:  # a loaded package (its ``__init__`` ran, or is running)
        import egglog.bindings as loaded

        return loaded
    else:  # our lazy package, not loaded yet: its spec without touching it
        locations = list(object.__getattribute__(package, "__spec__").submodule_search_locations)
    spec = importlib.machinery.PathFinder.find_spec(_NAME, locations)
    if spec is None or spec.loader is None:
        raise ModuleNotFoundError(f"no module named {_NAME!r}", name=_NAME)
    module = importlib.util.module_from_spec(spec)
    sys.modules[_NAME] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[_NAME]
        raise
    package.bindings = module  # type: ignore[attr-defined]  # as the import system does (no load)
    return module
