#!/usr/bin/env bash
# -pc_gamg_type mispc on aijcusparse: the setup copies between host and device
# only what PETSc's matrices and GAMG's data need, counted in -log_view's
# CpuToGpu / GpuToCpu columns of PCSetUp (the `solve` example uploads A
# before the setup):
#   - MispcMatFromCSR: each P and coarse operator made from mispc's device
#     CSR has its pattern copied down (PETSc's AIJ keeps it on the host) and
#     uploaded again by PETSc (there is no public way to hand PETSc a device
#     CSR); values stay on the device;
#   - MispcGAMGProlQR: GAMG's coarse near-null space (aggregates x k x k)
#     comes down; B goes up only on level 0 and only when it is not the
#     constant (Laplace3D: no upload; Elasticity3D's rigid-body modes: one);
#   - everything else (eigen-estimates, norms): scalars only, less than
#     LIMIT_MB in all (a tenth of one finest-level vector).
#   gamg_copies.sh SOLVE [OPTIONS...]   (-mat_type aijcusparse -vec_type cuda)
set -uo pipefail
solve=$1
shift
fail=0
# event NAME LOG -> "h2d_count h2d_mb d2h_count d2h_mb" (0 0 0 0 if absent)
event() {
  awk -v e="$1" '$1 == e && NF > 20 { print $(NF-4), $(NF-3), $(NF-2), $(NF-1); f = 1; exit }
                 END { if (!f) print 0, 0, 0, 0 }' <<<"$2"
}
for spec in "laplace3d 40 0" "elasticity3d 16 1"; do
  read -r problem n b_uploads <<<"$spec"
  out=$("$solve" -problem "$problem" -n "$n" -pcs gamg -pc_gamg_type mispc -log_view "$@" 2>&1)
  grep -qE "converged$" <<<"$out" || { echo "FAIL: $problem did not converge" >&2; tail -30 <<<"$out" >&2; fail=1; continue; }
  rows=$((n * n * n))
  [ "$problem" = laplace3d ] || rows=$((3 * rows))
  read -r su_hc su_hm su_dc su_dm <<<"$(event PCSetUp "$out")"
  read -r mf_hc mf_hm mf_dc mf_dm <<<"$(event MispcMatFromCSR "$out")"
  read -r qr_hc qr_hm qr_dc qr_dm <<<"$(event MispcGAMGProlQR "$out")"
  read -r eg_hc eg_hm eg_dc eg_dm <<<"$(event MispcGAMGEigEst "$out")"
  echo "$problem $n: PCSetUp up $su_hc copies $su_hm MB, down $su_dc copies $su_dm MB;" \
    "MatFromCSR up $mf_hc / $mf_hm MB, down $mf_dc / $mf_dm MB; ProlQR up $qr_hc / $qr_hm MB," \
    "down $qr_dc / $qr_dm MB; EigEst up $eg_hc / $eg_hm MB, down $eg_dc / $eg_dm MB"
  rest=$(awk -v a="$su_hm" -v b="$mf_hm" -v c="$qr_hm" -v d="$su_dm" -v e="$mf_dm" -v f="$qr_dm" \
    'BEGIN { printf "%.6f %.6f", a - b - c, d - e - f }')
  limit=$(awk -v r="$rows" 'BEGIN { printf "%.6f", r * 8e-6 / 10 }')
  echo "  rest: up $(cut -d' ' -f1 <<<"$rest") MB, down $(cut -d' ' -f2 <<<"$rest") MB (limit $limit MB)"
  awk -v r="$rest" -v l="$limit" 'BEGIN { split(r, x, " "); exit !(x[1] <= l && x[2] <= l) }' ||
    { echo "FAIL: $problem: copies outside the Mats' patterns and GAMG's data" >&2; fail=1; }
  [ "$mf_dc" -ge 1 ] || { echo "FAIL: $problem: no pattern copies logged (mispc's Mats not used?)" >&2; fail=1; }
  [ "$qr_hc" = "$b_uploads" ] || { echo "FAIL: $problem: $qr_hc near-null space uploads, expected $b_uploads" >&2; fail=1; }
  [ "$eg_hc" = 0 ] || { echo "FAIL: $problem: the eigen-estimate copied $eg_hc arrays up" >&2; fail=1; }
done
exit $fail
