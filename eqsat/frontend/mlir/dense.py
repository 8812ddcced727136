"""Big ``arith.constant dense<[...]>`` literals read with numpy before xDSL parses the text.

In: MLIR text.  Out: ``DensePrepass``: the text with every large, well-formed dense literal of
an ``arith.constant`` replaced by a placeholder of the same length (a zero splat written as
a hex string, ``dense<"0x0000"`` for ``i16``, then blanks, every newline kept, so each later
position -- and each diagnostic's line:col -- is unchanged; xDSL expands a hex splat by
copying bytes, a decimal splat value by value), and ``values``: the position of each such
constant's op name -> its values as a numpy array of the declared shape (int64, or float64
rounded through the declared float width, exactly what xDSL's ``get_values()`` gives).

Why: xDSL 0.74 parses a dense literal token by token in Python (a 256 x 256 weight: about
7 s; 4096 x 4096 was out of reach), and the lowering then turned every value into a Python
object.  Here a literal costs a few passes of C code (``str.translate``, ``numpy.fromstring``).

Only literals this module can check completely are replaced: the op written as
``%name = arith.constant dense<...> : tensor<AxBx...xT>`` on one line's start (no generic
form, no comment or string before it), a nested list whose brackets match the shape exactly,
decimal integers within what xDSL accepts for ``iN`` (``[-2^(N-1), 2^N)``, the upper half
read as negative, as xDSL does), or MLIR float literals (a digit before the point, an exponent
only after a point) for ``f16``/``f32``/``f64``.  Anything else stays in the text for xDSL,
which parses it -- or reports its error -- as before.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

import numpy as np

#: literals shorter than this are left to xDSL, whose time is negligible there (xDSL took 8 ms
#: of a 14 ms parse for a 16x16 weight matrix of 957 characters, 1-2 ms for an 8x8 one of 237;
#: 2048 before); the test of equal values runs with every literal long enough for a placeholder
MIN_LITERAL_CHARS = 64

_OPEN = re.compile(r"dense<")
_LINE_START = re.compile(r"[ \t]*%[\w$.\-]+[ \t]*=[ \t]*(arith\.constant)[ \t]+$")
_TYPE = re.compile(r"[ \t]*>[ \t]*:[ \t]*tensor<((?:\d+x)+)(i8|i16|i32|i64|f16|f32|f64)>")
_INT_CHARS = str.maketrans("", "", "0123456789- \t\r\n")
_FLOAT_CHARS = str.maketrans("", "", "0123456789-+.eE \t\r\n")
_UNBRACKET = str.maketrans("[]", "  ")
#: float tokens xDSL would read differently from numpy's reader: a leading '+', '.' or 'e'
#: without a digit before it, an exponent in a number without a point
_BAD_FLOAT = re.compile(r"(?:^|[\s,\[])(?:\+|\.|[eE])|(?:^|[\s,\[])-?\d+[eE]|-(?![\d])")
#: a sign not followed by a digit (numpy's reader takes ``- 2`` as -2; MLIR does not)
_BAD_INT = re.compile(r"-(?!\d)")
_I64 = np.iinfo(np.int64)
_FLOAT_DTYPES = {"f16": np.float16, "f32": np.float32, "f64": np.float64}
#: bytes per element of the element types read here (the hex placeholder's length)
_BYTES = {"i8": 1, "i16": 2, "i32": 4, "i64": 8, "f16": 2, "f32": 4, "f64": 8}


@dataclass
class DensePrepass:
    text: str
    values: dict[int, np.ndarray] = field(default_factory=dict)


def prepass(text: str, min_chars: int | None = None) -> DensePrepass:
    """Replace the dense literals of ``text`` of at least ``min_chars`` characters (default
    ``MIN_LITERAL_CHARS``; see the module docstring)."""
    min_chars = MIN_LITERAL_CHARS if min_chars is None else min_chars
    if len(text) < min_chars or "dense<" not in text:
        return DensePrepass(text)
    out: list[str] = []
    values: dict[int, np.ndarray] = {}
    done = 0
    for m in _OPEN.finditer(text):
        start = m.end()  # first character of the body
        if start < done:
            continue
        end = text.find(">", start)
        if end < 0 or end - start < min_chars:
            continue
        line_start = text.rfind("\n", 0, m.start()) + 1
        head = _LINE_START.fullmatch(text, line_start, m.start())
        ty = _TYPE.match(text, end)
        if head is None or ty is None:
            continue
        placeholder = '"0x' + "00" * _BYTES[ty.group(2)] + '"'
        if end - start < len(placeholder):
            continue
        shape = tuple(int(d) for d in ty.group(1)[:-1].split("x"))
        arr = _read(text[start:end], shape, ty.group(2))
        if arr is None:
            continue
        values[head.start(1)] = arr
        out.append(text[done:start])
        out.append(placeholder + _blank(text, start + len(placeholder), end))
        done = end
    if not values:
        return DensePrepass(text)
    out.append(text[done:])
    return DensePrepass("".join(out), values)


def _blank(text: str, start: int, end: int) -> str:
    """``text[start:end]`` as blanks, its newlines kept."""
    body = text[start:end]
    if "\n" not in body:
        return " " * len(body)
    return "\n".join(" " * len(part) for part in body.split("\n"))


def _skeleton(shape: tuple[int, ...]) -> str:
    """The brackets and commas of a nested list of ``shape`` with the numbers left out."""
    inner = ""
    for d in reversed(shape):
        inner = "[" + ",".join([inner] * d) + "]"
    return inner


def _read(body: str, shape: tuple[int, ...], elem: str) -> np.ndarray | None:
    """The values of a literal body of ``shape``, or None when it is not one this module reads."""
    count = math.prod(shape)
    if count == 0 or count > 1 << 28:
        return None
    is_float = elem in _FLOAT_DTYPES
    rest = body.translate(_FLOAT_CHARS if is_float else _INT_CHARS)
    if rest != _skeleton(shape):
        return None
    numbers = body.translate(_UNBRACKET)
    if (_BAD_FLOAT if is_float else _BAD_INT).search(numbers):
        return None
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a short read is detected by its count below
        try:
            flat = np.fromstring(numbers, dtype=np.float64 if is_float else np.int64, sep=",")
        except ValueError:
            return None
    if flat.size != count:
        return None
    if is_float:
        with np.errstate(over="ignore"):
            narrow = flat.astype(_FLOAT_DTYPES[elem]).astype(np.float64)
        if not np.all(np.isfinite(narrow)):  # out of the type's range: xDSL's own error
            return None
        return narrow.reshape(shape)
    width = int(elem[1:])
    if flat.max() == _I64.max or flat.min() == _I64.min:
        return None  # numpy's reader clamps what int64 cannot hold: xDSL decides
    if width == 64:
        return flat.reshape(shape)
    if flat.min() < -(1 << (width - 1)) or flat.max() >= 1 << width:
        return None
    flat = np.where(flat >= 1 << (width - 1), flat - (1 << width), flat)  # xDSL's signless reading
    return flat.reshape(shape)
