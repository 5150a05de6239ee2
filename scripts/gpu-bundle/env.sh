# Sourced from an unpacked GPU bundle (scripts/gpu-bundle/run-all does it):
#   . mispc-gpu-bundle/env.sh
# Puts the bundle's Open MPI, PETSc and mispc first on PATH and LD_LIBRARY_PATH,
# adds the CUDA libraries of the nvcc on PATH, and allows Open MPI to run as root.
_b=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export MISPC_BUNDLE_DIR="$_b"
export OPAL_PREFIX="$_b/openmpi"
export PATH="$_b/openmpi/bin:$_b/build:$PATH"
_l="$_b/build:$_b/build/petsc_plugin:$_b/petsc/lib:$_b/lib:$_b/openmpi/lib:$_b/openmpi/lib/openmpi"
# PETSc and mispc use the GPU machine's CUDA toolkit (libcudart, cuBLAS, cuSPARSE, ...):
# the lib folder next to nvcc's, wherever the toolkit is installed.
if command -v nvcc >/dev/null 2>&1; then
  _c=$(dirname "$(dirname "$(readlink -f "$(command -v nvcc)")")")
  for _d in "$_c/lib64" "$_c/lib" "$_c/targets/x86_64-linux/lib"; do
    [ -d "$_d" ] && _l="$_l:$_d"
  done
fi
export LD_LIBRARY_PATH="$_l${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export PRTE_MCA_rmaps_default_mapping_policy=:oversubscribe
# The wheel's Open MPI is not CUDA-aware: PETSc must not pass device pointers to MPI.
case " ${PETSC_OPTIONS:-} " in
  *" -use_gpu_aware_mpi "*) ;;
  *) export PETSC_OPTIONS="-use_gpu_aware_mpi 0${PETSC_OPTIONS:+ $PETSC_OPTIONS}" ;;
esac
# The test programs name the build machine's source folder for their data
# (MISPC_TEST_DATA, compiled in): where that folder is missing here (a bundle
# built from another checkout), it becomes a link to the bundle's sources.
if [ -f "$_b/source-root.txt" ]; then
  _s=$(cat "$_b/source-root.txt")
  if [ -n "$_s" ] && [ ! -e "$_s/tests/data" ] && [ ! -e "$_s" ]; then
    mkdir -p "$(dirname "$_s")" 2>/dev/null && ln -s "$_b/src" "$_s" 2>/dev/null ||
      echo "env.sh: cannot link $_s to the bundle's sources: tests that read tests/data will fail" >&2
  fi
fi
unset _b _l _c _d _s
