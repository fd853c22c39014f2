"""ctypes bindings of DYAD's C client API in libcouplet-dyad.so."""

import ctypes
import ctypes.util
import enum
import os
import pathlib


class DTLMode(enum.IntEnum):
    """DYAD's data transport layers (dyad_dtl_mode_t)."""

    DYAD_DTL_UCX = 0
    DYAD_DTL_FLUX_RPC = 1
    DYAD_DTL_MARGO = 2


_DTL_NAMES = {DTLMode.DYAD_DTL_UCX: "UCX", DTLMode.DYAD_DTL_FLUX_RPC: "FLUX_RPC", DTLMode.DYAD_DTL_MARGO: "MARGO"}


class DTLCommMode(enum.IntEnum):
    """DYAD's communication modes (dyad_dtl_comm_mode_t)."""

    DYAD_COMM_NONE = 0
    DYAD_COMM_RECV = 1
    DYAD_COMM_SEND = 2
    DYAD_COMM_END = 3


# dyad_rc_t values with names (C DYAD's dyad_rc.h).
RC_NAMES = {
    0: "DYAD_RC_OK",
    -1: "DYAD_RC_SYSFAIL",
    -1000: "DYAD_RC_NOCTX",
    -1001: "DYAD_RC_BADMETADATA",
    -1002: "DYAD_RC_BADFIO",
    -1003: "DYAD_RC_BADMANAGEDPATH",
    -1004: "DYAD_RC_BADDTLMODE",
    -1005: "DYAD_RC_UNTRACKED",
    -1007: "DYAD_RC_BAD_COMM_MODE",
    -1010: "DYAD_RC_BADBUF",
    -2000: "DYAD_RC_FLUXFAIL",
    -2001: "DYAD_RC_BADCOMMIT",
    -2002: "DYAD_RC_NOTFOUND",
    -2003: "DYAD_RC_BADFETCH",
    -2004: "DYAD_RC_BADRPC",
}


class DyadError(RuntimeError):
    """A failed DYAD call: rc is its dyad_rc_t, name the code's name."""

    def __init__(self, what, rc, message):
        self.rc = rc
        self.name = RC_NAMES.get(rc, "DYAD error %d" % rc)
        super().__init__("%s: %s: %s" % (what, self.name, message or "no details"))


class _Metadata(ctypes.Structure):
    _fields_ = [("fpath", ctypes.c_char_p), ("owner_rank", ctypes.c_uint32)]


def library_path():
    """Where libcouplet-dyad.so is: $PYDYAD_LIB, the system's library path, or the
    repository's bin/ when pydyad runs from the source tree."""
    env = os.environ.get("PYDYAD_LIB") or os.environ.get("COUPLET_DYAD_LIB")
    if env:
        return env
    found = ctypes.util.find_library("couplet-dyad")
    if found:
        return found
    here = pathlib.Path(__file__).resolve()
    for parent in here.parents:
        cand = parent / "bin" / "libcouplet-dyad.so"
        if cand.exists():
            return str(cand)
    raise OSError(
        "libcouplet-dyad.so not found: build it with `make capi` and set PYDYAD_LIB to its path"
    )


_lib = None


def _load():
    global _lib
    if _lib is not None:
        return _lib
    lib = ctypes.CDLL(library_path())
    c_bool, c_char_p, c_uint, c_int, c_void_p = ctypes.c_bool, ctypes.c_char_p, ctypes.c_uint, ctypes.c_int, ctypes.c_void_p
    md_pp = ctypes.POINTER(ctypes.POINTER(_Metadata))
    sigs = {
        "dyad_init": ([c_bool] * 6 + [c_uint] * 3 + [c_char_p] * 3 + [c_bool, c_char_p, c_int, c_void_p], c_int),
        "dyad_init_env": ([c_int, c_void_p], c_int),
        "dyad_ctx_get": ([], c_void_p),
        "dyad_finalize": ([], c_int),
        "dyad_produce": ([c_void_p, c_char_p], c_int),
        "dyad_consume": ([c_void_p, c_char_p], c_int),
        "dyad_get_metadata": ([c_void_p, c_char_p, c_bool, md_pp], c_int),
        "dyad_free_metadata": ([md_pp], c_int),
        "dyad_consume_w_metadata": ([c_void_p, c_char_p, ctypes.POINTER(_Metadata)], c_int),
        "couplet_dyad_prod_path": ([c_void_p], c_char_p),
        "couplet_dyad_cons_path": ([c_void_p], c_char_p),
        "couplet_dyad_last_error": ([], c_char_p),
    }
    for name, (args, res) in sigs.items():
        fn = getattr(lib, name)
        fn.argtypes, fn.restype = args, res
    _lib = lib
    return lib


def _enc(s):
    if s is None:
        return None
    return os.fsencode(s)


def _dtl_name(mode):
    if mode is None:
        return None
    if isinstance(mode, DTLMode):
        return _DTL_NAMES[mode]
    return str(mode)


class DyadMetadata:
    """Where a produced file lives (DYAD's dyad_metadata_t): fpath relative to the
    managed directory, owner_rank an identifier of the producer's node agent."""

    def __init__(self, ptr, lib):
        self._ptr, self._lib = ptr, lib
        self.fpath = os.fsdecode(ptr.contents.fpath)
        self.owner_rank = int(ptr.contents.owner_rank)

    def free(self):
        if self._ptr:
            self._lib.dyad_free_metadata(ctypes.byref(self._ptr))
            self._ptr = None

    def __del__(self):
        try:
            self.free()
        except Exception:
            pass

    def __repr__(self):
        return "DyadMetadata(fpath=%r, owner_rank=%d)" % (self.fpath, self.owner_rank)


class Dyad:
    """DYAD's Python client: init (or init_env), then produce and consume files under
    the managed directories (prod_path, cons_path)."""

    def __init__(self):
        self.dyad_core_lib = _load()
        self.ctx = None
        self.initialized = False
        self.prod_path = None
        self.cons_path = None

    def _check(self, what, rc):
        if rc != 0:
            msg = self.dyad_core_lib.couplet_dyad_last_error()
            raise DyadError(what, rc, os.fsdecode(msg) if msg else "")

    def _after_init(self):
        self.ctx = self.dyad_core_lib.dyad_ctx_get()
        self.initialized = True
        prod = self.dyad_core_lib.couplet_dyad_prod_path(self.ctx)
        cons = self.dyad_core_lib.couplet_dyad_cons_path(self.ctx)
        self.prod_path = os.fsdecode(prod) if prod else None
        self.cons_path = os.fsdecode(cons) if cons else None

    def init(
        self,
        debug=False,
        check=False,
        shared_storage=False,
        reinit=False,
        async_publish=False,
        fsync_write=False,
        key_depth=3,
        key_bins=1024,
        service_mux=1,
        kvs_namespace=None,
        prod_managed_path=None,
        cons_managed_path=None,
        relative_to_managed_path=False,
        dtl_mode=None,
        dtl_comm_mode=DTLCommMode.DYAD_COMM_RECV,
        flux_handle=None,
    ):
        """Initialise DYAD from arguments (flux_handle is accepted and ignored)."""
        rc = self.dyad_core_lib.dyad_init(
            debug, check, shared_storage, reinit, async_publish, fsync_write,
            key_depth, key_bins, service_mux, _enc(kvs_namespace),
            _enc(prod_managed_path), _enc(cons_managed_path), relative_to_managed_path,
            _enc(_dtl_name(dtl_mode)), int(dtl_comm_mode), None,
        )
        self._check("dyad_init", rc)
        self._after_init()

    def init_env(self, dtl_comm_mode=DTLCommMode.DYAD_COMM_RECV, flux_handle=None):
        """Initialise DYAD from the DYAD_* environment."""
        self._check("dyad_init_env", self.dyad_core_lib.dyad_init_env(int(dtl_comm_mode), None))
        self._after_init()

    def _need_ctx(self, what):
        if not self.initialized:
            raise DyadError(what, -1000, "call init or init_env first")

    def produce(self, fname):
        """Publish fname (a file under the producer directory)."""
        self._need_ctx("dyad_produce")
        self._check("dyad_produce " + os.fsdecode(fname), self.dyad_core_lib.dyad_produce(self.ctx, _enc(fname)))

    def consume(self, fname):
        """Block until fname (under the consumer directory) is produced and staged locally."""
        self._need_ctx("dyad_consume")
        self._check("dyad_consume " + os.fsdecode(fname), self.dyad_core_lib.dyad_consume(self.ctx, _enc(fname)))

    def get_metadata(self, fname, should_wait=False, raw=False):
        """The metadata of fname, or None when it is not produced (and should_wait is
        false). With raw, the ctypes pointer to dyad_metadata_t is returned instead."""
        self._need_ctx("dyad_get_metadata")
        ptr = ctypes.POINTER(_Metadata)()
        rc = self.dyad_core_lib.dyad_get_metadata(self.ctx, _enc(fname), bool(should_wait), ctypes.byref(ptr))
        if rc == -2002 and not should_wait:
            return None
        self._check("dyad_get_metadata " + os.fsdecode(fname), rc)
        if raw:
            return ptr
        return DyadMetadata(ptr, self.dyad_core_lib)

    def free_metadata(self, metadata):
        """Free metadata from get_metadata (also done when it is garbage collected)."""
        if isinstance(metadata, DyadMetadata):
            metadata.free()
        elif metadata:
            self.dyad_core_lib.dyad_free_metadata(ctypes.byref(metadata))

    def consume_w_metadata(self, fname, metadata):
        """Stage fname with metadata from get_metadata, without asking the locator."""
        self._need_ctx("dyad_consume_w_metadata")
        ptr = metadata._ptr if isinstance(metadata, DyadMetadata) else metadata
        if not ptr:
            raise DyadError("dyad_consume_w_metadata", -1001, "metadata already freed")
        rc = self.dyad_core_lib.dyad_consume_w_metadata(self.ctx, _enc(fname), ptr)
        self._check("dyad_consume_w_metadata " + os.fsdecode(fname), rc)

    def finalize(self):
        """Release DYAD's context."""
        if self.initialized:
            self.dyad_core_lib.dyad_finalize()
        self.initialized = False
        self.ctx = None

    def under_prod(self, path):
        """Whether path is under the producer directory."""
        return _under(self.prod_path, path)

    def under_cons(self, path):
        """Whether path is under the consumer directory."""
        return _under(self.cons_path, path)


def _under(d, path):
    if not d:
        return False
    p = os.path.normpath(os.path.abspath(os.fsdecode(path)))
    return p.startswith(d.rstrip("/") + "/") and p != d
