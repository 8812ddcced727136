"""The e-graph stage's scratch folder (``eqsat.egraph.scratch``): memory-backed when there is
room, overridable, and left empty after a run."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from eqsat.egraph import scratch

ROOT = Path(__file__).resolve().parents[2]


def test_the_environment_names_the_folder(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv(scratch.ENV, str(tmp_path))
    assert scratch.root() == str(tmp_path)


def test_shared_memory_is_used_only_with_room(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(scratch.ENV, raising=False)

    class Small:
        f_bavail, f_frsize = 1000, 4096

    monkeypatch.setattr(scratch.os, "statvfs", lambda path: Small())
    assert scratch.root() is None

    class Big:
        f_bavail, f_frsize = scratch.MIN_FREE_BYTES // 4096 + 1, 4096

    monkeypatch.setattr(scratch.os, "statvfs", lambda path: Big())
    monkeypatch.setattr(scratch.os, "access", lambda path, mode: True)
    assert scratch.root() == scratch.SHM

    def missing(path: str) -> None:
        raise FileNotFoundError(path)

    monkeypatch.setattr(scratch.os, "statvfs", missing)
    assert scratch.root() is None


@pytest.mark.skipif(not hasattr(os, "fork"), reason="the e-graph worker is a fork")
def test_a_run_writes_its_files_there_and_leaves_it_empty(tmp_path: Path) -> None:
    env = {**os.environ, scratch.ENV: str(tmp_path), "EQSAT_NO_SERVER": "1"}
    seen = tmp_path / "seen"
    # the folder is watched from inside the run: the loader's table folder exists while it loads
    code = ("import os, sys, contextlib, io\n"
            "from eqsat.egraph import session\n"
            "real = session.Loader.write\n"
            "def write(self, folder):\n"
            f"    open({str(seen)!r}, 'a').write(str(folder) + '\\n')\n"
            "    return real(self, folder)\n"
            "session.Loader.write = write\n"
            "from eqsat.cli import main\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            f"    sys.exit(main(['optimize', {str(ROOT / 'examples/sum_8.mlir')!r}, '--quiet']))\n")
    p = subprocess.run([sys.executable, "-c", code], env={**env, "EQSAT_IN_PROCESS": "1"}, capture_output=True,
                       text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    folders = seen.read_text().split()
    assert folders and all(Path(f).parent == tmp_path for f in folders)
    assert sorted(x.name for x in tmp_path.iterdir()) == ["seen"]  # removed after the run
    # with the worker forked (the hand-back's folder) too
    p = subprocess.run([sys.executable, "-m", "eqsat.cli", "optimize", str(ROOT / "examples/sum_8.mlir"), "--quiet"],
                       env=env, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    assert sorted(x.name for x in tmp_path.iterdir()) == ["seen"]
