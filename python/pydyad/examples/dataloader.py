"""A data-loader-style consumer: a dataset of frames under DYAD_PATH_CONSUMER whose items
are read as the producer writes them (each read waits until its frame is produced and
staged to this node), in the shape of an ML training loop's data loader.

    python3 dataloader.py NFRAMES
"""

import hashlib
import os
import sys

from pydyad import Dyad, DTLCommMode, dyad_open


class FrameDataset:
    """frames/frame_%04d.bin under the consumer directory, loaded through DYAD."""

    def __init__(self, dyad, nframes):
        self.dyad, self.n = dyad, nframes

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        if not 0 <= i < self.n:
            raise IndexError(i)
        path = os.path.join(self.dyad.cons_path, "frames", "frame_%04d.bin" % i)
        with dyad_open(path, "rb", dyad_ctx=self.dyad) as f:
            return f.read()


class DataLoader:
    """Iterates over a dataset in batches, in order."""

    def __init__(self, dataset, batch_size=1):
        self.dataset, self.batch_size = dataset, batch_size

    def __iter__(self):
        batch = []
        for i in range(len(self.dataset)):
            batch.append(self.dataset[i])
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch:
            yield batch


def main():
    nframes = int(sys.argv[1])
    d = Dyad()
    d.init_env(DTLCommMode.DYAD_COMM_RECV)
    i = 0
    for batch in DataLoader(FrameDataset(d, nframes), batch_size=2):
        for frame in batch:
            print("frame %d: %d bytes sha256 %s" % (i, len(frame), hashlib.sha256(frame).hexdigest()), flush=True)
            i += 1
    d.finalize()


if __name__ == "__main__":
    main()
