"""The compiled-function API (in the shape of HEIR's Python frontend).

In: a Python function whose arguments are typed with ``secret_vector``/``secret_scalar``
(ciphertexts) or ``plain_vector``/``plain_scalar`` (plaintexts), as annotations or as
keyword arguments of the decorator -- or with heir_py's spelling, ``Secret[I16]``,
``Secret[Tensor[[8], I16]]`` and unwrapped ``Tensor[[8], I16]`` for plaintexts
(``eqsat.frontend.heir_types``).  Out: a ``Compiled`` object:

* ``f(*args)`` -- the optimized program evaluated in the clear (the reference);
  ``f.original`` -- the Python function as written; ``f.program`` -- the traced program;
* ``f.optimize(**options)`` -- runs the optimizer (``eqsat.pipeline.optimize``), keeps the
  result (``f.result``, ``f.report``) and returns ``f``;
* ``f.setup()`` generates the key set (optional: first use does it);
  ``f.encrypt_<arg>(value)`` -> a ciphertext handle (real encryption, BGV or CKKS);
  ``f.eval(*handles_or_plaintexts)`` runs the optimized program homomorphically;
  ``f.decrypt_result(out)`` decrypts; ``f.encrypt_run_decrypt(*args)`` does all three;
* ``repr(f)`` is one line; ``f.stats()`` a table of op counts, depth and cost before and
  after optimization.

Example::

    @eqsat.compile(scheme="bgv")
    def dot(x: eqsat.secret_vector(8), w: eqsat.plain_vector(8)):
        return sum((x * w)[i] for i in range(8))

    dot([1] * 8, list(range(8)))           # 28, in the clear
    dot.encrypt_run_decrypt([1] * 8, list(range(8)))   # 28, encrypted
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from typing import Any

from eqsat.frontend.heir_types import as_argspec
from eqsat.frontend.trace import ArgSpec, trace
from eqsat.ir import Program


class Ciphertext:
    """An encrypted argument or result of one ``Compiled`` function's key set."""

    def __init__(self, owner: Compiled, name: str, enc: object) -> None:
        self.owner, self.name, self.enc = owner, name, enc

    def __repr__(self) -> str:
        return f"<Ciphertext {self.name} of {self.owner.program.name} ({self.owner.scheme})>"


class Compiled:
    """A traced, optimizable, runnable FHE function (see the module docstring)."""

    def __init__(self, fn: Callable[..., object], args: Mapping[str, ArgSpec], scheme: str,
                 options: Mapping[str, Any]) -> None:
        self.original = fn
        self.scheme = scheme
        self.options = dict(options)
        self.program: Program = trace(fn, dict(args))
        self.result: Any = None
        self._ctx: Any = None

    # -- compile ---------------------------------------------------------------------
    def optimize(self, **options: Any) -> Compiled:
        from eqsat.pipeline import optimize

        opts = {**self.options, **options}
        self.scheme = opts.pop("scheme", self.scheme)
        self.result = optimize(self.program, scheme=self.scheme, **opts)
        self._ctx = None
        return self

    @property
    def optimized(self) -> Program:
        if self.result is None:
            self.optimize()
        return self.result.program  # type: ignore[no-any-return]

    @property
    def report(self) -> dict[str, object]:
        self.optimized  # noqa: B018 -- optimizes on first use
        return self.result.report  # type: ignore[no-any-return]

    def to_mlir(self) -> str:
        self.optimized  # noqa: B018
        return self.result.to_mlir()  # type: ignore[no-any-return]

    # -- run in the clear --------------------------------------------------------------
    def _inputs(self, args: tuple[object, ...], kwargs: Mapping[str, object]) -> dict[str, object]:
        names = [n for n, _ in self.program.args]
        if len(args) > len(names):
            raise TypeError(f"{self.program.name}() takes {len(names)} arguments ({', '.join(names)})")
        given = dict(zip(names, args, strict=False))
        for k, v in kwargs.items():
            if k not in names:
                raise TypeError(f"{self.program.name}() has no argument '{k}' (it takes {', '.join(names)})")
            given[k] = v
        missing = [n for n in names if n not in given]
        if missing:
            raise TypeError(f"{self.program.name}() is missing argument(s) {', '.join(missing)}")
        return {k: _plain(v) for k, v in given.items()}

    def __call__(self, *args: object, **kwargs: object) -> object:
        from eqsat.interp import evaluate

        out = evaluate(self.optimized, self._inputs(args, kwargs))
        return out[0] if len(out) == 1 else tuple(out)

    # -- run encrypted -----------------------------------------------------------------
    def setup(self) -> None:
        """Optimize (if not yet) and generate the key set now, as heir_py's ``setup()``; the
        ``encrypt_*`` / ``eval`` calls otherwise do it on first use."""
        self._context()

    def _context(self) -> Any:
        if self._ctx is None:
            from eqsat.backend.session import EncryptedSession

            self._ctx = EncryptedSession(self.optimized, self.scheme)
        return self._ctx

    def __getattr__(self, name: str) -> Any:
        if name.startswith("encrypt_") and name != "encrypt_run_decrypt":
            arg = name[len("encrypt_"):]
            if arg in {n for n, _ in self.program.args}:
                return lambda value: Ciphertext(self, arg, self._context().encrypt(arg, _plain(value)))
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def eval(self, *args: object, **kwargs: object) -> Ciphertext | tuple[Ciphertext, ...]:
        """Run the optimized program on ciphertext handles (and plaintext values)."""
        names = [n for n, _ in self.program.args]
        given = dict(zip(names, args, strict=False)) | dict(kwargs)
        ctx = self._context()
        values = {k: (v.enc if isinstance(v, Ciphertext) else _plain(v)) for k, v in given.items()}
        outs = [Ciphertext(self, f"result{k}", e) for k, e in enumerate(ctx.eval(values))]
        return outs[0] if len(outs) == 1 else tuple(outs)

    def decrypt_result(self, out: Ciphertext | tuple[Ciphertext, ...]) -> object:
        ctx = self._context()
        if isinstance(out, tuple):
            return tuple(ctx.decrypt(o.enc) for o in out)
        return ctx.decrypt(out.enc)

    def encrypt_run_decrypt(self, *args: object, **kwargs: object) -> object:
        inputs = self._inputs(args, kwargs)
        secret = {n for n, t in self.program.args if t.secret}
        handles = {k: (getattr(self, f"encrypt_{k}")(v) if k in secret else v) for k, v in inputs.items()}
        return self.decrypt_result(self.eval(**handles))

    # -- show ------------------------------------------------------------------------------
    def __repr__(self) -> str:
        sig = ", ".join(f"{n}: {t}" for n, t in self.program.args)
        state = "not optimized" if self.result is None else (
            f"optimized: cost {self.result.report['before']['cost']:g} -> {self.result.report['after']['cost']:g}")
        return f"<eqsat.Compiled {self.program.name}({sig}) scheme={self.scheme}, {state}>"

    def stats(self) -> str:
        """A table: op counts, depth and cost before and after optimization."""
        rep = self.report
        before, after = rep["before"], rep["after"]
        ops = sorted(set(before["ops"]) | set(after["ops"]))  # type: ignore[index]
        rows = [f"{'':<12}{'before':>8}{'after':>8}"]
        rows += [f"{o:<12}{before['ops'].get(o, 0):>8}{after['ops'].get(o, 0):>8}" for o in ops]  # type: ignore[index]
        rows.append(f"{'depth':<12}{before['depth']:>8}{after['depth']:>8}")  # type: ignore[index]
        rows.append(f"{'cost':<12}{before['cost']:>8g}{after['cost']:>8g}")  # type: ignore[index]
        rows.append(f"time {rep['time_s']} s, extraction {rep['extraction']}, scheme {rep['scheme']}")
        return "\n".join(rows)


def _plain(v: object) -> object:
    """numpy arrays and scalars as Python lists and numbers."""
    tolist = getattr(v, "tolist", None)
    return tolist() if callable(tolist) else v


def compile(scheme: str = "bgv", **types_and_options: Any) -> Callable[[Callable[..., object]], Compiled]:
    """Decorator: ``@eqsat.compile(scheme="bgv")`` over a function whose arguments are
    annotated with ``secret_vector(n)``/``plain_vector(n)``/... (or typed by keyword:
    ``@eqsat.compile(x=eqsat.secret_vector(8))``).  Other keywords are optimizer options."""
    types = {k: v for k, v in types_and_options.items() if isinstance(v, ArgSpec)}
    options = {k: v for k, v in types_and_options.items() if not isinstance(v, ArgSpec)}

    def deco(fn: Callable[..., object]) -> Compiled:
        try:
            ann = inspect.get_annotations(fn, eval_str=True)
        except NameError as exc:  # string annotations name something not in the function's globals
            raise TypeError(f"cannot read the argument types of {fn.__name__}: {exc} (import the types at module "
                            "level, or give them to the decorator: compile(x=eqsat.secret_vector(8)))") from exc
        specs = {k: as_argspec(v) for k, v in ann.items() if k != "return"}
        args = {k: v for k, v in specs.items() if v is not None} | types
        return Compiled(fn, args, scheme, options)

    return deco
