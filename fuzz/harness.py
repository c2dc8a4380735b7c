"""What every fuzz target shares: instrumented imports, seed corpora, the libFuzzer entry.

A target module names the packages it exercises, the invariant it checks (`check`, a plain
function the regression tests call too) and the seeds it starts from (valid inputs built
by the project's own encoders, so coverage starts deep rather than at the first length
check). The seeds are written to a fresh directory that libFuzzer reads after any corpus
directory given on the command line; new inputs go to the first directory named.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import sys
import tempfile
from collections.abc import Callable, Iterable, Iterator
from typing import Any


@contextlib.contextmanager
def instrumented(*packages: str) -> Iterator[None]:
    """Instrument `packages` for coverage as they are imported. When they are loaded already
    (the regression tests import a target to call its `check`), there is nothing to
    instrument and atheris is not needed."""
    if any(name in sys.modules for name in packages):
        yield
        return
    import atheris

    with atheris.instrument_imports(include=list(packages)):
        yield


def write_seeds(directory: str, seeds: Iterable[bytes]) -> int:
    count = 0
    for seed in seeds:
        name = hashlib.sha1(seed).hexdigest()
        with open(os.path.join(directory, name), "wb") as f:
            f.write(seed)
        count += 1
    return count


def main(check: Callable[[bytes], None], seeds: Callable[[], Iterable[bytes]], argv: list[str] | None = None) -> Any:
    """Run `check` under libFuzzer with `argv` (libFuzzer's flags and corpus directories)."""
    import atheris

    args = list(sys.argv if argv is None else argv)
    inputs = [a for a in args[1:] if not a.startswith("-")]
    if inputs and all(os.path.isfile(a) for a in inputs):
        # Files named: libFuzzer runs just those (replaying a crash), no corpus.
        atheris.Setup(args, check)
        return atheris.Fuzz()
    seed_dir = tempfile.mkdtemp(prefix="odradek-fuzz-seeds-")
    count = write_seeds(seed_dir, seeds())
    print(f"fuzz: {count} seed inputs in {seed_dir}", file=sys.stderr, flush=True)
    if not inputs:
        # libFuzzer adds what it finds to the first directory: a scratch one, not the seeds.
        args.append(tempfile.mkdtemp(prefix="odradek-fuzz-corpus-"))
    args.append(seed_dir)
    atheris.Setup(args, check)
    return atheris.Fuzz()
