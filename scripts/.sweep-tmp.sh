set -o pipefail
for t in 0 256 1024; do
  cmake -S . -B build-t$t -G Ninja -DMISPC_MIS1_TAIL=$t -DMISPC_BUILD_TESTS=OFF >/dev/null && cmake --build build-t$t -j 16 --target mispc_cli >/dev/null || exit 1
done
G="gen:laplace3d:100 gen:grid2d:1024 gen:kron:21 gen:random:4194304:8 gen:grid3d27:60 gen:path:1000000 gen:roadgrid:1024:0.3"
for rep in 1 2; do for t in 0 256 1024; do echo "== tail $t (pass $rep)"; build-t$t/mispc bench mis1 $G --reps 30 | grep -v "^#" | awk '{print $1, $4, $8, $11}'; done; done
build-t256/mispc bench agg gen:laplace3d:100 gen:elasticity3d:60 gen:kron:20 --reps 10 | grep -v "^#"
