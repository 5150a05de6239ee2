set -o pipefail; mkdir -p $OUT
scripts/test-gpu build-gpu 2>&1 | tee $OUT/test-gpu.log | grep -E "tests passed|Failed|CHECK" | tail -5 || exit 1
cmake -S . -B build-gpu4 -G Ninja -DMISPC_PERSISTENT_PER_SM=4 -DMISPC_BUILD_TESTS=OFF >/dev/null && cmake --build build-gpu4 -j 16 --target mispc_cli >/dev/null || exit 1
G1="gen:laplace3d:100 gen:grid2d:1024 gen:kron:21 gen:random:4194304:8 gen:grid3d27:60"
G2="gen:laplace3d:100 gen:elasticity3d:60 gen:kron:21"
for b in build-gpu build-gpu4; do echo "== $b"; $b/mispc bench mis1 $G1 --reps 20 | grep -v "^#"; $b/mispc bench mis2 $G2 --reps 10 | grep -v "^#"; done 2>&1 | tee $OUT/sweep.txt
