"""The pages a served request writes, learned from one request and written ahead by the next
request's processes while they wait for it.

In: ``prewrite(kind, stop)``, called by a process forked ahead of a request (``eqsat serve``'s
spare request child, ``kind`` ``"request"``, and its early e-graph worker, ``"worker"``) while
it waits, until ``stop()`` says the request came; ``record()``, called by the same process once
its request is done (its result sent).  Out: nothing a command sees.  Beside the server's
socket, a small file per kind (``serve-KEY.pages-KIND``): the page ranges the last requests'
processes held as their own copies, at most ``BUDGET_BYTES`` of them.

Why: every process of a served request is a fork of the server (the spare, then its e-graph
worker), sharing the server's memory copy-on-write.  The first write to each shared page --
CPython writes the reference count of every object it touches, glibc malloc its free lists,
egglog its tables of the prepared e-graph -- copies it in a page fault, inside the request:
measured on ``rr_rotation_duplicated``, its e-graph worker took ~1,480 faults while loading and
~1,100 while saturating (a process that ran the same work before takes ~0).  The server's
processes are forks of one process, so a page's address is the same in each: the pages one
request's processes wrote are, to a large part, the pages the next one's write.  Each
process reads, as its request ends, which pages of the memory it inherited it owns by then
(``/proc/self/pagemap``: present and mapped exclusively, bit 56), and the next process of its
kind makes its own copies of those (``madvise(MADV_POPULATE_WRITE)``: the kernel breaks the
sharing as a write would, the contents stay as they are) before its request comes.  Nothing
of it reaches a result: no byte of memory changes, only which process owns a copy of it.

Linux only (``/proc/self/pagemap``, ``MADV_POPULATE_WRITE`` since 5.14); elsewhere, or when
a step fails, both functions do nothing.
"""

from __future__ import annotations

import contextlib
import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

PAGE = 4096
MADV_POPULATE_WRITE = 23
#: the most one process of a kind writes ahead (and so the most memory an idle one holds more)
BUDGET_BYTES = 20 << 20
#: the most a process of a kind grows its heap ahead (``pregrow``)
GROW_BUDGET_BYTES = 10 << 20
#: pages made one's own between two looks at ``stop()``
CHUNK_PAGES = 64

#: the kinds of process that learn their pages: a spare request child, its early e-graph worker
KINDS = ("request", "worker")
#: the files' common stem (``.../serve-KEY``; set by the server before it forks its spares):
#: None outside a server, and then nothing is learned or written ahead
STEM: str | None = None
#: this process's kind and pid when it wrote ahead (``prewrite``): ``record`` records only then,
#: in that process (not in a fork of it: an e-graph worker's checkpoints)
_MINE: tuple[str, int] | None = None
#: the private writable mappings this process had when it waited (start, end): the pages
#: recorded are those in them (what a request maps anew is not in the next process)
_MAPPINGS: list[tuple[int, int]] = []
#: the end of the heap (``sbrk(0)``) when this process began to wait, before it grew it
_HEAP_END = 0


def path(kind: str) -> str | None:
    return None if STEM is None else f"{STEM}.pages-{kind}"


def mappings() -> list[tuple[int, int]]:
    """This process's private writable mappings (start, end), the stack's excepted."""
    out = []
    with open("/proc/self/maps") as f:
        for line in f:
            parts = line.split()
            if len(parts) < 2 or parts[1] != "rw-p" or (len(parts) >= 6 and parts[5].startswith("[stack")):
                continue
            lo, hi = parts[0].split("-")
            out.append((int(lo, 16), int(hi, 16)))
    return out


def owned_pages(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The pages of ``spans`` this process holds as its own (present and mapped by it alone),
    as ranges (first page's address, page count)."""
    import numpy as np

    chunks, firsts = [], []
    with open("/proc/self/pagemap", "rb", buffering=0) as f:
        for lo, hi in spans:
            f.seek(lo // PAGE * 8)
            chunks.append(f.read((hi - lo) // PAGE * 8))
            firsts.append(lo // PAGE)
    bits = np.frombuffer(b"".join(chunks), dtype="<u8")
    mine = ((bits >> np.uint64(63)) & (bits >> np.uint64(56)) & np.uint64(1)).astype(bool)
    # each entry's page number: the span's first page plus its place in the span
    sizes = np.array([len(c) // 8 for c in chunks], dtype=np.int64)
    offsets = np.repeat(np.array(firsts, dtype=np.int64) - (np.cumsum(sizes) - sizes), sizes)
    pages = np.flatnonzero(mine)
    pages = pages + offsets[pages]
    if not len(pages):
        return []
    breaks = np.flatnonzero(np.diff(pages) != 1) + 1  # runs of consecutive pages
    starts = np.concatenate(([0], breaks))
    ends = np.concatenate((breaks, [len(pages)]))
    return [(int(pages[a]) * PAGE, int(b - a)) for a, b in zip(starts.tolist(), ends.tolist(), strict=True)]


def record() -> int:
    """Write down the pages this process owns in the mappings it had while it waited (see the
    module docstring), at most ``BUDGET_BYTES``; how many pages."""
    if _MINE is None or _MINE[1] != os.getpid() or not _MAPPINGS:
        return 0
    target = path(_MINE[0])
    if target is None:
        return 0
    try:
        os.nice(19)  # its work is done (the result sent): what still runs of the request goes first
        ranges = owned_pages(_MAPPINGS)
        budget, kept = BUDGET_BYTES // PAGE, []
        for addr, n in ranges:
            if budget <= 0:
                break
            kept.append((addr, min(n, budget)))
            budget -= kept[-1][1]
        grown = max(0, _sbrk0() - _HEAP_END) if _HEAP_END else 0
        tmp = f"{target}.{os.getpid()}"
        with open(tmp, "w") as f:
            f.write(f"grow {grown}\n" + "".join(f"{addr:x} {n}\n" for addr, n in kept))
        os.replace(tmp, target)
        return sum(n for _, n in kept)
    except Exception:
        return 0


def _madvise() -> Callable[[int, int, int], int] | None:
    with contextlib.suppress(Exception):
        import ctypes

        fn = _libc().madvise
        fn.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
        fn.restype = ctypes.c_int
        return fn  # type: ignore[no-any-return]
    return None


def prewrite(kind: str, stop: Callable[[], bool]) -> int:
    """Make this process's own copies of the pages the last request's process of ``kind``
    owned (see the module docstring), those of them in this process's private writable
    mappings, until ``stop()``; how many pages.  Marks this process as one that ``record``s."""
    global _MINE, _MAPPINGS, _HEAP_END
    if not sys.platform.startswith("linux"):
        return 0
    source = path(kind)
    if source is None:
        return 0
    try:
        _MAPPINGS = mappings()
    except OSError:
        return 0
    _MINE = (kind, os.getpid())
    _HEAP_END = _sbrk0()
    try:
        with open(source) as f:
            grow = int(f.readline().split()[1])
            wanted = [(int(a, 16), int(n)) for a, n in (line.split() for line in f)]
    except (OSError, ValueError, IndexError):
        return 0
    madvise = _madvise()
    if madvise is None:
        return 0
    spans = sorted(_MAPPINGS)
    done, k = 0, 0
    for addr, n in sorted(wanted):
        end = addr + n * PAGE
        while k < len(spans) and spans[k][1] <= addr:
            k += 1
        j = k
        while j < len(spans) and spans[j][0] < end:  # the part of the range in each mapping
            lo, hi = max(addr, spans[j][0]), min(end, spans[j][1])
            while lo < hi:
                if stop():
                    return done
                step = min(hi, lo + CHUNK_PAGES * PAGE)
                if madvise(lo, step - lo, MADV_POPULATE_WRITE) != 0:
                    break
                done += (step - lo) // PAGE
                lo = step
            j += 1
    if grow and not stop():
        done += pregrow(min(grow, GROW_BUDGET_BYTES), stop) // PAGE
    return done


def _libc() -> Any:
    import ctypes

    return ctypes.CDLL(None, use_errno=True)


def _sbrk0() -> int:
    """The end of the heap (glibc malloc's main arena); 0 when unknown."""
    try:
        import ctypes

        sbrk = _libc().sbrk
        sbrk.argtypes = [ctypes.c_ssize_t]
        sbrk.restype = ctypes.c_void_p
        return int(sbrk(0) or 0)
    except Exception:
        return 0


#: glibc's ``mallopt`` parameter: how much more than asked the heap grows by, and keeps when trimmed
M_TOP_PAD = -2
#: the blocks ``pregrow`` allocates: below glibc's least threshold for a block of its own (mmap)
GROW_BLOCK = 64 << 10


def pregrow(nbytes: int, stop: Callable[[], bool]) -> int:
    """Grow the heap (glibc malloc's main arena) by ``nbytes`` of pages written now, and keep
    them there for this process's later allocations; how many bytes.

    Why: what a request's process allocates beyond the heap it inherited comes from pages the
    kernel zero-fills on first touch, a fault each (``rr_rotation_duplicated``'s e-graph worker:
    ~490 in saturation once its inherited pages were written ahead).  Blocks allocated and
    written here, then freed, join the top of the heap; ``M_TOP_PAD`` keeps that much of it when
    glibc trims the heap (else it returns it to the kernel at once), so the request's
    allocations land on pages already there.  Only glibc's allocation layout changes (and glibc's
    threshold for giving large blocks their own mapping stops adapting, as with any ``mallopt``):
    no value a program computes."""
    if nbytes <= 0:
        return 0
    try:
        import ctypes

        libc = _libc()
        libc.mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
        libc.malloc.restype = ctypes.c_void_p
        libc.malloc.argtypes = [ctypes.c_size_t]
        libc.free.argtypes = [ctypes.c_void_p]
        if not libc.mallopt(M_TOP_PAD, nbytes):
            return 0
        blocks = []
        try:
            for _ in range(nbytes // GROW_BLOCK):
                if stop():
                    break
                p = libc.malloc(GROW_BLOCK)
                if not p:
                    break
                ctypes.memset(p, 0, GROW_BLOCK)
                blocks.append(p)
        finally:
            for p in reversed(blocks):
                libc.free(p)
        return len(blocks) * GROW_BLOCK
    except Exception:
        return 0

