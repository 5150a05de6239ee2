#!/usr/bin/env bash
# -pc_gamg_type mispc on aijcusparse: the type's setup steps copy between host
# and device only what PETSc's matrices and GAMG's data need, counted in
# -log_view's CpuToGpu / GpuToCpu columns:
#   - MispcGAMGGraph, MispcGAMGCoarsen, MispcGAMGProlMat, MispcGAMGEigEst:
#     no copies at all;
#   - MispcGAMGSmoothP and GAMG's PtAP (mispc's product): only those of
#     MispcMatFromCSR, where each P and coarse operator made from mispc's
#     device CSR has its pattern copied down (PETSc's AIJ keeps it on the host)
#     and uploaded again by PETSc with its (unset) host values (PETSc has no
#     public way to take a device CSR); mispc's values are copied on the device;
#   - MispcGAMGProlQR: GAMG's coarse near-null space comes down once a level;
#     B goes up only on level 0 and only when it is not the constant
#     (Laplace3D: no upload; Elasticity3D's rigid-body modes: one).
# The rest of PCSetUp (PETSc's level smoothers: Jacobi's diagonal, Chebyshev's
# estimates) is printed, not checked: it is the same for GAMG's own types.
#   gamg_copies.sh SOLVE [OPTIONS...]   (-mat_type aijcusparse -vec_type cuda)
set -uo pipefail
solve=$1
shift
fail=0
# event NAME LOG -> "up_count up_mb down_count down_mb" (0 0 0 0 if absent)
event() {
  awk -v e="$1" '{ l = $0; sub(/^ +/, "", l) } index(l, e " ") == 1 && NF > 20 && $(NF-5) ~ /^[0-9.e+-]+$|^n\/a$/ {
                   print $(NF-4), $(NF-3), $(NF-2), $(NF-1); f = 1; exit }
                 END { if (!f) print 0, 0, 0, 0 }' <<<"$2"
}
for spec in "laplace3d 40 0" "elasticity3d 16 1"; do
  read -r problem n b_uploads <<<"$spec"
  out=$("$solve" -problem "$problem" -n "$n" -pcs gamg -pc_gamg_type mispc -log_view "$@" 2>&1)
  grep -qE "converged$" <<<"$out" || { echo "FAIL: $problem did not converge" >&2; tail -30 <<<"$out" >&2; fail=1; continue; }
  echo "$problem $n (copies up, MB up, copies down, MB down):"
  for e in PCSetUp MispcGAMGGraph MispcGAMGCoarsen MispcGAMGProlQR MispcGAMGProlMat MispcGAMGEigEst \
    MispcGAMGSmoothP "GAMG PtAP" MispcMatFromCSR; do
    printf "  %-18s %s\n" "$e" "$(event "$e" "$out")"
  done
  for e in MispcGAMGGraph MispcGAMGCoarsen MispcGAMGProlMat MispcGAMGEigEst; do
    [ "$(event "$e" "$out")" = "0 0.00e+00 0 0.00e+00" ] || { echo "FAIL: $problem: $e copies" >&2; fail=1; }
  done
  read -r sp_u _ sp_d _ <<<"$(event MispcGAMGSmoothP "$out")"
  read -r pt_u _ pt_d _ <<<"$(event "GAMG PtAP" "$out")"
  read -r mf_u _ mf_d _ <<<"$(event MispcMatFromCSR "$out")"
  read -r qr_u _ qr_d _ <<<"$(event MispcGAMGProlQR "$out")"
  [ "$mf_d" -ge 2 ] || { echo "FAIL: $problem: no pattern copies logged (mispc's Mats not used?)" >&2; fail=1; }
  [ $((sp_u + pt_u)) = "$mf_u" ] && [ $((sp_d + pt_d)) = "$mf_d" ] ||
    { echo "FAIL: $problem: smoothing and PtAP copy more than the Mats' patterns" >&2; fail=1; }
  [ "$qr_u" = "$b_uploads" ] || { echo "FAIL: $problem: $qr_u near-null space uploads, expected $b_uploads" >&2; fail=1; }
  [ "$qr_d" -ge 1 ] && [ "$qr_d" = "$((mf_d / 2))" ] ||
    { echo "FAIL: $problem: $qr_d coarse near-null space copies for $((mf_d / 2)) levels" >&2; fail=1; }
done
exit $fail
