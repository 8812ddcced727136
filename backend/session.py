"""Encrypt, evaluate and decrypt as separate steps over one key set.

In: a ``Program`` and a scheme (``bgv``/``ckks``).  Out: ``EncryptedSession`` with
``encrypt(arg, value)`` -> an ``Enc`` under the session's keys, ``eval(values)`` -> the
program's results (ciphertexts stay encrypted; plaintext arguments are given in the
clear), ``decrypt(enc)`` -> the cleartext value.  Parameters are chosen once, for the
program and inputs of magnitude up to ``input_bound``, by ``executor.choose_params``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from eqsat.backend.errors import BackendError
from eqsat.backend.executor import choose_params
from eqsat.backend.lowering import Enc, Lowering
from eqsat.interp import coerce_input
from eqsat.ir import Program


class _GivenInputs(Lowering):
    """A lowering whose ``input`` nodes take ciphertexts already encrypted."""

    def _step(self, env: dict[int, Any], i: int, inputs: Mapping[str, object] | None) -> None:
        node = self.prog.nodes[i]
        if node.op == "input" and inputs is not None and isinstance(inputs.get(str(node.attrs[0])), Enc):
            env[i] = inputs[str(node.attrs[0])]
            return
        super()._step(env, i, inputs)


class EncryptedSession:
    def __init__(self, prog: Program, scheme: str, input_bound: float = 255.0, seed: int | None = None) -> None:
        if scheme not in ("bgv", "ckks"):
            raise BackendError(f"encrypted runs use bgv or ckks, not '{scheme}'")
        self.prog, self.scheme = prog, scheme
        self.params = choose_params(prog, scheme, input_bound=input_bound)
        if scheme == "bgv":
            from eqsat.backend.bgv import BGV

            self.ev: Any = BGV(self.params, seed)
        else:
            from eqsat.backend.ckks import CKKS

            self.ev = CKKS(self.params, seed)
        self.low = _GivenInputs(prog, self.ev, scheme)
        self.types = dict(prog.args)

    def encrypt(self, arg: str, value: object) -> Enc:
        if arg not in self.types:
            raise BackendError(f"'{self.prog.name}' has no argument '{arg}'")
        ty = self.types[arg]
        if not ty.secret:
            raise BackendError(f"argument '{arg}' is a plaintext; pass it in the clear")
        val = coerce_input(arg, value, ty, self.low.t)
        return self.low._encrypt(val, ty.slots, ty.is_scalar)

    def eval(self, values: Mapping[str, object]) -> list[Any]:
        missing = [n for n, _ in self.prog.args if n not in values]
        if missing:
            raise BackendError(f"missing argument(s): {', '.join(missing)}")
        env = self.low.run(values)
        return [env[r] for r in self.prog.results]

    def decrypt(self, enc: object) -> object:
        if not isinstance(enc, Enc):
            return enc  # a plaintext result
        val, _ = self.low._decrypt(enc)
        return val
