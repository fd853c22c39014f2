"""dyad_open: open() that consumes before reading and produces after writing."""

import contextlib
import io
import os

from pydyad.bindings import Dyad, DTLCommMode

_global_dyad = None


def _default_dyad():
    global _global_dyad
    if _global_dyad is None:
        d = Dyad()
        d.init_env(DTLCommMode.DYAD_COMM_RECV)
        _global_dyad = d
    return _global_dyad


@contextlib.contextmanager
def dyad_open(*args, dyad_ctx=None, register_dyad_ctx=False, **kwargs):
    """Like open(). A file opened for reading under the consumer directory is consumed
    first (waiting until it is produced); a file opened for writing under the producer
    directory is produced when the block ends (its parent directories are created).
    dyad_ctx is a Dyad; by default one is
    initialised from the environment (and kept with register_dyad_ctx)."""
    global _global_dyad
    d = dyad_ctx if dyad_ctx is not None else _default_dyad()
    if register_dyad_ctx:
        _global_dyad = d
    fname = args[0] if args else kwargs["file"]
    mode = args[1] if len(args) > 1 else kwargs.get("mode", "r")
    writing = any(c in mode for c in "wax+")
    if not writing and d.under_cons(fname):
        d.consume(fname)
    if writing and d.under_prod(fname):
        # C DYAD left missing parent directories to the program; create them.
        os.makedirs(os.path.dirname(os.path.abspath(fname)), exist_ok=True)
    f = io.open(*args, **kwargs)
    try:
        yield f
    finally:
        f.close()
    if writing and d.under_prod(fname):
        d.produce(fname)
