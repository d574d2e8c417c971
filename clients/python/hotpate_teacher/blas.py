"""Which BLAS torch's CPU matrix products run on. Debian's python3-torch is built with
BLAS_INFO=generic: it calls whatever libblas.so.3 the system's alternatives select, and the
reference BLAS (package libblas3, /usr/lib/<triplet>/blas/) is ~10x slower than OpenBLAS for the
worker's products (a 2048x512x512 product: ~3 GFLOP/s against 41-50 on 2 cores). The loaded library
is read from /proc/self/maps: no timing, so a busy machine cannot trigger the warning.

Of Debian's two OpenBLAS builds the OpenMP one (libopenblas0-openmp) is the one to use with torch:
torch runs its element-wise kernels on OpenMP threads, and the pthread build (libopenblas0-pthread)
keeps a second pool of its own whose threads spin after each product, so on 2 cores three threads
take turns. Measured with the worker's bench on the demo model (docs/llm-teachers.md, "Measured"):
the same wall-clock rate within this machine's noise, but 0.32-0.42 of the matrix-product rate per
CPU-second on the OpenMP build against 0.22-0.30 on the pthread build (CPU the job next to the
worker needs); and at d 96 the pthread build took 1.5 ms for a [256 x 96] x [96 x 512] product
(0.24 ms for [96 x 640], 0.27 ms on one thread). With both installed, Debian's alternatives select
the pthread build's libopenblas.so.0 even under the OpenMP build's libblas.so.3."""
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
    # the implementation before a wrapper: Debian's openblas-openmp/libblas.so.3 loads whichever
    # libopenblas.so.0 its own alternative selects, which may be the pthread build's
    impl = [p for p in fast if os.path.basename(p).startswith(("libopenblas", "libmkl", "libblis"))]
    return (impl or fast or libs)[0]


def build() -> Optional[str]:
    """The BLAS build torch's CPU products run on: the loaded implementation's directory
    (openblas-openmp, openblas-pthread; blas for the reference one), "torch's own" when torch
    brings one, None when none is found."""
    import torch
    if "BLAS_INFO=generic" not in torch.__config__.show():
        return "torch's own"
    torch.ones(2, 2) @ torch.ones(2, 2)  # make sure the library is loaded
    lib = loaded_blas()
    return os.path.basename(os.path.dirname(os.path.realpath(lib))) if lib else None


def is_reference(lib: Optional[str]) -> bool:
    """True for a BLAS that is none of the optimised ones (the reference libblas3 is /usr/lib/<triplet>/blas/)."""
    return lib is not None and not any(k in os.path.realpath(lib).lower() for k in FAST)


def is_pthread_openblas(lib: Optional[str]) -> bool:
    """True for Debian's pthread build of OpenBLAS (/usr/lib/<triplet>/openblas-pthread/)."""
    return lib is not None and "openblas-pthread" in os.path.realpath(lib).lower()


def warning() -> Optional[str]:
    """A one-line warning when torch runs its CPU products on the reference BLAS or on OpenBLAS's
    pthread build with more than one thread, else None."""
    import torch
    cfg = torch.__config__.show()
    if "BLAS_INFO=generic" not in cfg:
        return None  # torch brings its own (MKL, OpenBLAS): nothing to check
    torch.ones(2, 2) @ torch.ones(2, 2)  # make sure the library is loaded
    lib = loaded_blas()
    if is_pthread_openblas(lib) and torch.get_num_threads() > 1:
        return ("torch's CPU matrix products run on OpenBLAS's pthread build (%s), whose threads compete with"
                " torch's OpenMP threads: install libopenblas0-openmp and remove libopenblas0-pthread (Debian/Ubuntu),"
                " or select it with update-alternatives --set libopenblas.so.0-%s %s" % (
                    os.path.realpath(lib), _triplet(lib), _openmp_path(lib)))
    if not is_reference(lib):
        return None
    return ("torch's CPU matrix products run on the reference BLAS (%s), about 10x slower than OpenBLAS:"
            " install libopenblas0-openmp (Debian/Ubuntu) or set the libblas.so.3 alternative to OpenBLAS"
            % os.path.realpath(lib))


def _triplet(lib: str) -> str:
    """x86_64-linux-gnu from /usr/lib/x86_64-linux-gnu/openblas-pthread/libblas.so.3."""
    parts = os.path.realpath(lib).split("/")
    i = next((k for k, p in enumerate(parts) if p.startswith("openblas-")), 0)
    return parts[i - 1] if i > 0 else "x86_64-linux-gnu"


def _openmp_path(lib: str) -> str:
    d = os.path.dirname(os.path.realpath(lib)).replace("openblas-pthread", "openblas-openmp")
    return os.path.join(d, "libopenblas.so.0")
