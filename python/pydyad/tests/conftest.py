"""Fixtures: two node agents standing for two nodes, each with its own managed directory.

When PYDYAD_TEST_NODES holds {"namespace": ..., "prod": DIR, "cons": DIR} (the Go test
that runs this suite starts the agents), those are used. Otherwise two `couplet agent`
processes are started ($COUPLET_BIN, else built with `go build`). Either way each agent's
socket follows the agent socket rule (DIR/.couplet/agent.sock), so one process can
produce on one node and consume on the other.
"""

import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile

import pytest

HERE = pathlib.Path(__file__).resolve().parent
PKG = HERE.parent
REPO = PKG.parent.parent
sys.path.insert(0, str(PKG))
os.environ.pop("COUPLET_AGENT_SOCKET", None)


def _build_lib(tmp):
    if os.environ.get("PYDYAD_LIB"):
        return
    built = REPO / "bin" / "libcouplet-dyad.so"
    if not built.exists():
        out = pathlib.Path(tmp) / "libcouplet-dyad.so"
        src = sorted(str(p) for p in (REPO / "capi" / "dyad" / "src").glob("*.c"))
        subprocess.run(
            ["cc", "-O2", "-std=gnu11", "-fPIC", "-fvisibility=hidden", "-shared",
             "-I" + str(REPO / "capi" / "dyad" / "include"), "-o", str(out)] + src + ["-lpthread"],
            check=True,
        )
        built = out
    os.environ["PYDYAD_LIB"] = str(built)


def _start_agent(binary, d, kvs=None):
    cmd = [binary, "agent", d, "--socket", os.path.join(d, ".couplet", "agent.sock")]
    if kvs:
        cmd += ["--kvs", kvs]
    env = dict(os.environ, COUPLET_AGENT_TOKEN="pydyad-test-token")
    p = subprocess.Popen(cmd, env=env, stderr=subprocess.PIPE, text=True)
    for line in p.stderr:  # blocks until the agent says it is serving
        if line.startswith("couplet agent:"):
            kvs_url = line.rsplit("kvs ", 1)[1].strip()
            return p, kvs_url
    raise RuntimeError("agent %s did not start (exit %s)" % (cmd, p.wait()))


@pytest.fixture(scope="session")
def nodes():
    """(namespace, producer dir, consumer dir) of two running agents."""
    spec = os.environ.get("PYDYAD_TEST_NODES")
    tmp = tempfile.mkdtemp(prefix="pydyad-")
    _build_lib(tmp)
    procs = []
    try:
        if spec:
            s = json.loads(spec)
            yield s["namespace"], s["prod"], s["cons"]
            return
        binary = os.environ.get("COUPLET_BIN")
        if not binary:
            binary = os.path.join(tmp, "couplet")
            subprocess.run(["go", "build", "-o", binary, "./cmd/couplet"], cwd=REPO, check=True)
        prod, cons = os.path.join(tmp, "prod"), os.path.join(tmp, "cons")
        for d in (prod, cons):
            os.makedirs(os.path.join(d, ".couplet"))
        p1, kvs = _start_agent(binary, prod)
        procs.append(p1)
        p2, _ = _start_agent(binary, cons, kvs)
        procs.append(p2)
        yield "pydyad-test", prod, cons
    finally:
        for p in reversed(procs):
            p.terminate()
            p.wait()
        shutil.rmtree(tmp, ignore_errors=True)


@pytest.fixture
def dyad(nodes):
    """A Dyad initialised for both roles: producing on one node, consuming on the other."""
    from pydyad import Dyad

    ns, prod, cons = nodes
    d = Dyad()
    d.init(kvs_namespace=ns, prod_managed_path=prod, cons_managed_path=cons)
    yield d
    d.finalize()


@pytest.fixture
def role_env(nodes):
    """The environment of a subprocess in one role ("prod" or "cons")."""
    ns, prod, cons = nodes

    def env(role):
        e = {k: v for k, v in os.environ.items() if not k.startswith("DYAD_")}
        e.update(DYAD_KVS_NAMESPACE=ns, PYTHONPATH=str(PKG))
        if role == "prod":
            e["DYAD_PATH_PRODUCER"] = prod
        else:
            e["DYAD_PATH_CONSUMER"] = cons
        return e

    return env
