"""Which BLAS torch's CPU matrix products run on. Debian's python3-torch is built with
BLAS_INFO=generic: it calls whatever libblas.so.3 the system's alternatives select, and the
reference BLAS (package libblas3, /usr/lib/<triplet>/blas/) is ~10x slower than OpenBLAS for the
worker's products (a 2048x512x512 product: ~3 GFLOP/s against 41-50 on 2 cores). The loaded library
is read from /proc/self/maps: no timing, so a busy machine cannot trigger the warning."""
import os
from typing import Optional

FAST = ("openblas", "blis", "mkl", "atlas", "flexiblas")


def loaded_blas() -> Optional[str]:
    """The path of the libblas/libopenblas/... mapped into this process, or None (not Linux, or none)."""
    try:
        with open("/proc/self/maps") as f:
            paths = {line.split()[-1] for line in f if "/" in line}
    except OSError:
        return None
    libs = sorted(p for p in paths if any(k in os.path.basename(p) for k in ("blas", "mkl_rt", "libblis")))
    if not libs:
        return None
    fast = [p for p in libs if any(k in os.path.realpath(p).lower() for k in FAST)]
    return (fast or libs)[0]


def is_reference(lib: Optional[str]) -> bool:
    """True for a BLAS that is none of the optimised ones (the reference libblas3 is /usr/lib/<triplet>/blas/)."""
    return lib is not None and not any(k in os.path.realpath(lib).lower() for k in FAST)


def warning() -> Optional[str]:
    """A one-line warning when torch runs its CPU products on the reference BLAS, else None."""
    import torch
    cfg = torch.__config__.show()
    if "BLAS_INFO=generic" not in cfg:
        return None  # torch brings its own (MKL, OpenBLAS): nothing to check
    torch.ones(2, 2) @ torch.ones(2, 2)  # make sure the library is loaded
    lib = loaded_blas()
    if not is_reference(lib):
        return None
    return ("torch's CPU matrix products run on the reference BLAS (%s), about 10x slower than OpenBLAS:"
            " install libopenblas0-pthread (Debian/Ubuntu) or set the libblas.so.3 alternative to OpenBLAS"
            % os.path.realpath(lib))
