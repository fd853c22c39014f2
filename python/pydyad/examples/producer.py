"""Produce frames: frame_0000.bin ... under DYAD_PATH_PRODUCER, each published as it is
closed (a simulation writing its output steps).

    python3 producer.py NFRAMES [FRAME_BYTES]
"""

import hashlib
import os
import sys

from pydyad import Dyad, DTLCommMode, dyad_open


def frame_bytes(i, n):
    """Frame i's deterministic content of n bytes."""
    seed = hashlib.sha256(b"frame %d" % i).digest()
    return (seed * (n // len(seed) + 1))[:n]


def main():
    nframes = int(sys.argv[1])
    size = int(sys.argv[2]) if len(sys.argv) > 2 else 1 << 16
    d = Dyad()
    d.init_env(DTLCommMode.DYAD_COMM_SEND)
    for i in range(nframes):
        with dyad_open(os.path.join(d.prod_path, "frames", "frame_%04d.bin" % i), "wb", dyad_ctx=d) as f:
            f.write(frame_bytes(i, size))
    d.finalize()


if __name__ == "__main__":
    main()
