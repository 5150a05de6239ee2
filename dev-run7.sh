#!/usr/bin/env bash
set -u
R=$OUT/r; mkdir -p $R
tar -C /tmp -xJf gpu-bundle-hypre/mispc-gpu-bundle.tar.xz
B=/tmp/mispc-gpu-bundle
find "$B/build" -name CTestTestfile.cmake -exec sed -i "s#@MISPC_BUNDLE@#$B#g" {} +
. "$B/env.sh"
export MISPC_REQUIRE_GPU=1
nvidia-smi -L > $R/gpu.txt
ctest --test-dir $B/build -L '^gpu$' --output-on-failure > $R/ctest-gpu.log 2>&1
ctest --test-dir $B/build -L mpi -j 8 --output-on-failure > $R/ctest-mpi.log 2>&1
M=$B/build/mispc
G="gen:grid3d27:60 gen:laplace3d:100 gen:grid2d:1024 gen:kron:21 gen:random:4194304:8 gen:path:1000000 gen:roadgrid:1000 gen:elasticity3d:60 .device/data/bcsstk13.mtx .device/data/delaunay_n14.mtx .device/data/fe_4elt2.metis.graph .device/data/PGPgiantcompo.metis.graph"
for rep in 1 2; do
  $M bench mis1 $G --reps 30 --priority degree > $R/bench-degree-$rep.log 2>&1
  $M bench mis1 $G --reps 30 > $R/bench-default-$rep.log 2>&1
done
tar -C $OUT -czf $OUT/r.tgz r
