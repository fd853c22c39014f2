"""pydyad between two node agents."""

import fcntl
import hashlib
import os
import struct
import subprocess
import sys
import threading
import uuid

import pytest

from pydyad import Dyad, DyadError, DyadMetadata, dyad_open

EXAMPLES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples")


def unique(name):
    return "%s-%s" % (uuid.uuid4().hex[:8], name)


def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)


def test_init_sets_paths(dyad, nodes):
    _, prod, cons = nodes
    assert dyad.initialized
    assert dyad.prod_path == os.path.abspath(prod)
    assert dyad.cons_path == os.path.abspath(cons)


def test_init_env(nodes, monkeypatch):
    ns, prod, cons = nodes
    monkeypatch.setenv("DYAD_KVS_NAMESPACE", ns)
    monkeypatch.setenv("DYAD_PATH_PRODUCER", prod)
    monkeypatch.delenv("DYAD_PATH_CONSUMER", raising=False)
    d = Dyad()
    d.init_env()
    assert (d.prod_path, d.cons_path) == (os.path.abspath(prod), None)
    d.finalize()


def test_init_env_errors(monkeypatch):
    monkeypatch.delenv("DYAD_KVS_NAMESPACE", raising=False)
    with pytest.raises(DyadError) as e:
        Dyad().init_env()
    assert e.value.name == "DYAD_RC_NOCTX" and "DYAD_KVS_NAMESPACE is required" in str(e.value)
    monkeypatch.setenv("DYAD_KVS_NAMESPACE", "x")
    monkeypatch.setenv("DYAD_DTL_MODE", "MARGO")
    with pytest.raises(DyadError) as e:
        Dyad().init_env()
    assert e.value.name == "DYAD_RC_BADDTLMODE" and "not available on this platform" in str(e.value)


def test_produce_consume(dyad):
    rel = unique("a.bin")
    data = os.urandom(300000)
    write(os.path.join(dyad.prod_path, rel), data)
    dyad.produce(os.path.join(dyad.prod_path, rel))
    dyad.consume(os.path.join(dyad.cons_path, rel))
    with open(os.path.join(dyad.cons_path, rel), "rb") as f:
        assert f.read() == data


def test_metadata(dyad):
    rel = "meta/" + unique("m.txt")
    cons = os.path.join(dyad.cons_path, rel)
    assert dyad.get_metadata(cons, should_wait=False) is None
    write(os.path.join(dyad.prod_path, rel), b"with metadata\n")
    dyad.produce(os.path.join(dyad.prod_path, rel))
    md = dyad.get_metadata(cons, should_wait=True)
    assert isinstance(md, DyadMetadata) and md.fpath == rel
    dyad.consume_w_metadata(cons, md)
    md.free()
    with open(cons, "rb") as f:
        assert f.read() == b"with metadata\n"


def lock_held(path):
    """Whether an OFD write lock is held on path (the consumer's per-path lock)."""
    try:
        fd = os.open(path, os.O_RDWR)
    except FileNotFoundError:
        return False
    try:
        fl = struct.pack("hhqqi", fcntl.F_WRLCK, 0, 0, 0, 0)
        res = fcntl.fcntl(fd, fcntl.F_OFD_GETLK, fl)
        return struct.unpack("hhqqi", res)[0] != fcntl.F_UNLCK
    finally:
        os.close(fd)


def test_consume_blocks_until_produced(dyad):
    rel = unique("late.bin")
    cons = os.path.join(dyad.cons_path, rel)
    lock = os.path.join(dyad.cons_path, ".couplet", "locks", rel + ".lock")
    errors = []

    def consume():
        try:
            dyad.consume(cons)
        except Exception as e:  # reported by the main thread
            errors.append(e)

    t = threading.Thread(target=consume)
    t.start()
    # The consumer is blocked: it holds its lock, has not returned, and no file exists.
    while not lock_held(lock):
        assert t.is_alive(), errors
        t.join(0.01)
    assert t.is_alive() and not os.path.exists(cons)
    data = b"produced after the consumer started\n"
    with dyad_open(os.path.join(dyad.prod_path, rel), "wb", dyad_ctx=dyad) as f:
        f.write(data)
    t.join(120)
    assert not t.is_alive() and not errors, errors
    with open(cons, "rb") as f:
        assert f.read() == data


def test_dyad_open(dyad):
    rel = "open/" + unique("o.txt")
    os.makedirs(os.path.join(dyad.prod_path, "open"), exist_ok=True)
    with dyad_open(os.path.join(dyad.prod_path, rel), "w", dyad_ctx=dyad) as f:
        f.write("text through dyad_open\n")
    with dyad_open(os.path.join(dyad.cons_path, rel), "r", dyad_ctx=dyad) as f:
        assert f.read() == "text through dyad_open\n"
    # Outside the managed directories dyad_open is plain open.
    other = os.path.join(os.path.dirname(dyad.prod_path), unique("plain.txt"))
    with dyad_open(other, "w", dyad_ctx=dyad) as f:
        f.write("x")
    with dyad_open(other, "r", dyad_ctx=dyad) as f:
        assert f.read() == "x"


def test_errors(dyad, nodes, monkeypatch):
    with pytest.raises(DyadError) as e:
        dyad.produce("/definitely/not/managed.txt")
    assert e.value.rc == -1005 and "not under the producer managed directory" in str(e.value)
    with pytest.raises(DyadError) as e:
        dyad.produce(os.path.join(dyad.prod_path, unique("missing.txt")))
    assert e.value.name == "DYAD_RC_BADFIO"
    ns, prod, cons = nodes
    monkeypatch.setenv("COUPLET_DYAD_TIMEOUT", "200ms")
    d = Dyad()
    d.init(kvs_namespace=ns, prod_managed_path=prod, cons_managed_path=cons)
    with pytest.raises(DyadError) as e:
        d.consume(os.path.join(cons, unique("never.txt")))
    assert e.value.name == "DYAD_RC_NOTFOUND" and "not produced" in str(e.value)


def test_dataloader_example(role_env):
    """The data loader, started first, reads every frame as the producer writes it."""
    n, size = 6, 100000
    loader = subprocess.Popen(
        [sys.executable, os.path.join(EXAMPLES, "dataloader.py"), str(n)],
        env=role_env("cons"), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    prod = subprocess.run(
        [sys.executable, os.path.join(EXAMPLES, "producer.py"), str(n), str(size)],
        env=role_env("prod"), capture_output=True, text=True, timeout=300,
    )
    assert prod.returncode == 0, prod.stderr
    out, err = loader.communicate(timeout=300)
    assert loader.returncode == 0, err
    sys.path.insert(0, EXAMPLES)
    from producer import frame_bytes

    want = "".join(
        "frame %d: %d bytes sha256 %s\n" % (i, size, hashlib.sha256(frame_bytes(i, size)).hexdigest())
        for i in range(n)
    )
    assert out == want
