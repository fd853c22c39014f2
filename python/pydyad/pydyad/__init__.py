"""pydyad: DYAD's Python API (Dyad, dyad_open) over couplet's libcouplet-dyad.so.

Standard library only: ctypes over DYAD's C client API.
"""

from pydyad.bindings import (
    Dyad,
    DyadError,
    DyadMetadata,
    DTLCommMode,
    DTLMode,
    library_path,
)
from pydyad.context import dyad_open

__all__ = [
    "Dyad",
    "DyadError",
    "DyadMetadata",
    "DTLCommMode",
    "DTLMode",
    "dyad_open",
    "library_path",
]
