#!/usr/bin/env python3
"""Makes a staged GPU bundle relocatable (called by scripts/gpu-bundle/build).

  relocate.py STAGE --map OLD=NEW... [--cuda-dir DIR] [--report FILE]

- strips every ELF file outside openmpi/ (strip --strip-unneeded) and sets its
  RUNPATH to $ORIGIN-relative paths of the bundle's library folders, keeping
  system entries that do not point into the build machine's private folders;
- copies into STAGE/lib the shared libraries the bundle needs that are neither
  in the bundle, nor glibc/libstdc++/libgcc_s, nor CUDA (toolkit or driver):
  the GPU machine provides those (docs/GPU-BUNDLE.md);
- rewrites the build machine's folders (OLD) in the CTestTestfile.cmake files to
  NEW (a @MISPC_BUNDLE@ placeholder that run-all replaces at unpack time);
- checks that every ELF file then finds its libraries with an empty
  LD_LIBRARY_PATH, apart from CUDA's, and writes what it did to --report.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys

# Found on any machine that can run the bundle: glibc, the GCC C++ runtime
# (nvcc needs g++) and CUDA (toolkit libraries and the driver's libcuda).
SYSTEM = re.compile(r"^(ld-linux.*|lib(c|m|dl|pthread|rt|util|resolv|anl|nsl|mvec)"
                    r"|libstdc\+\+|libgcc_s)\.so")
CUDA = re.compile(r"^lib(cuda|cudart|cublas|cublasLt|cusparse|cusolver|cufft|curand|nvJitLink"
                  r"|nvrtc|nvrtc-builtins|nvtx3interop|nvToolsExt|nvidia-ml|nvblas)\.so")


def is_elf(path):
    if os.path.islink(path) or not os.path.isfile(path):
        return False
    with open(path, "rb") as f:
        return f.read(4) == b"\x7fELF"


# Open MPI's optional network transports (InfiniBand, EFA, PSM2): UCX and libfabric
# load them only where that hardware and its system libraries exist.
OPTIONAL = ("openmpi/lib/openmpi/ucx", "openmpi/lib/openmpi/libfabric")


def elf_files(root, skip=OPTIONAL):
    for d, dirs, files in os.walk(root):
        rel = os.path.relpath(d, root)
        if any(rel == s or rel.startswith(s + os.sep) for s in skip):
            continue
        for f in files:
            p = os.path.join(d, f)
            if is_elf(p):
                yield p


def run(*cmd):
    return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout


def ldd(path, env):
    """[(soname, resolved path or None)] for path's whole dependency closure."""
    out = subprocess.run(["ldd", path], capture_output=True, text=True, env=env).stdout
    deps = []
    for line in out.splitlines():
        m = re.match(r"\s*(\S+) => (not found|(\S+) \(0x[0-9a-f]+\))", line)
        if m:
            deps.append((m.group(1), m.group(3)))
    return deps


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("stage")
    ap.add_argument("--map", action="append", default=[], help="OLD=NEW for CTestTestfile.cmake")
    ap.add_argument("--private", action="append", default=[],
                    help="build-machine folders whose RUNPATH entries are dropped")
    ap.add_argument("--cuda-dir", default="")
    ap.add_argument("--report", default=None)
    a = ap.parse_args()
    stage = os.path.abspath(a.stage)
    report = []
    # a fixed, clean environment: ldd must not see the build machine's LD_LIBRARY_PATH
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    os.makedirs(os.path.join(stage, "lib"), exist_ok=True)
    private = [os.path.abspath(p) for p in a.private]

    def libdirs():
        dirs = set()
        for d, _, files in os.walk(stage):
            if os.path.relpath(d, stage).split(os.sep)[0] == "openmpi":
                continue
            if any(re.search(r"\.so(\.[0-9]+)*$", f) for f in files):
                dirs.add(d)
        return sorted(dirs | {os.path.join(stage, "lib"), os.path.join(stage, "openmpi", "lib")})

    def fix(path, dirs):
        subprocess.run(["strip", "--strip-unneeded", path], check=True)
        old = run("patchelf", "--print-rpath", path).strip()
        here = os.path.dirname(path)
        new = []
        for d in dirs:
            rel = os.path.relpath(d, here)
            new.append("$ORIGIN" if rel == "." else "$ORIGIN/" + rel)
        for e in old.split(":") if old else []:
            if e.startswith("$ORIGIN") or any(e == p or e.startswith(p + "/") for p in private):
                continue
            if e not in new:
                new.append(e)  # e.g. the CUDA toolkit's lib folder on the build machine
        run("patchelf", "--set-rpath", ":".join(new), path)

    dirs = libdirs()
    elves = list(elf_files(stage, skip=("openmpi",)))
    for p in elves:
        fix(p, dirs)

    # Libraries from the build machine that the GPU machine may lack.
    copied = {}
    while True:
        extra = {}
        for p in list(elf_files(stage)):
            for name, where in ldd(p, env):
                if SYSTEM.match(name) or CUDA.match(name) or where is None:
                    continue
                if os.path.realpath(where).startswith(stage + os.sep):
                    continue
                if a.cuda_dir and os.path.realpath(where).startswith(os.path.realpath(a.cuda_dir)):
                    continue
                extra[name] = where
        extra = {k: v for k, v in extra.items() if k not in copied}
        if not extra:
            break
        for name, where in sorted(extra.items()):
            dst = os.path.join(stage, "lib", name)
            shutil.copy2(os.path.realpath(where), dst)
            os.chmod(dst, 0o755)
            fix(dst, dirs)
            copied[name] = os.path.realpath(where)
    for name, src in sorted(copied.items()):
        report.append(f"shipped system library: lib/{name} (from {src})")

    # Everything resolves inside the bundle, or is glibc / libstdc++ / CUDA.
    needed_cuda, missing = set(), []
    for p in elf_files(stage):
        for name, where in ldd(p, env):
            if CUDA.match(name):
                needed_cuda.add(name)
            elif where is None and not SYSTEM.match(name):
                missing.append(f"{os.path.relpath(p, stage)}: {name}")
    for m in missing:
        print(f"relocate: unresolved library {m}", file=sys.stderr)
    for n in sorted(needed_cuda):
        report.append(f"from the GPU machine's CUDA: {n}")

    # ctest files: build-machine folders -> placeholders.
    maps = [m.split("=", 1) for m in a.map]
    maps.sort(key=lambda kv: -len(kv[0]))  # longest first: the build folder is inside the repo
    nfiles = 0
    for d, _, files in os.walk(os.path.join(stage, "build")):
        for f in files:
            if f == "CTestTestfile.cmake":
                p = os.path.join(d, f)
                with open(p) as fh:
                    s = fh.read()
                for old, new in maps:
                    s = s.replace(old, new)
                with open(p, "w") as fh:
                    fh.write(s)
                nfiles += 1
    report.append(f"CTestTestfile.cmake files rewritten: {nfiles}")

    # Binaries that still name build-machine folders (compiled-in paths).
    for p in elf_files(stage, skip=("openmpi", "lib", "petsc")):
        with open(p, "rb") as fh:
            data = fh.read()
        hits = sorted({old for old, _ in maps if old.encode() + b"/" in data})
        if hits:
            report.append(f"compiled-in build paths: {os.path.relpath(p, stage)}")

    if a.report:
        with open(a.report, "w") as fh:
            fh.write("\n".join(report) + "\n")
    else:
        print("\n".join(report))
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
