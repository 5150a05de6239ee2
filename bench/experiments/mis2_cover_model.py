#!/usr/bin/env python3
"""Experiment: a "coverage" priority for MIS-2 (issue 31, GAMG + mis2agg setup).

mispc's MIS-2 (mis/mis2_host.c, Kokkos Kernels Alg. 1) draws a new hash a
round (HASH_PER_ROUND): the set is about what random greedy gives, 661 roots
on the 27-point node graph of Elasticity3D_30 (gen:grid3d27:30), where
PETSc's GAMG default (MIS-k of distance 2, then aggregates of aggregates)
ends with 450 aggregates. Fewer roots mean fewer, larger aggregates and a
cheaper Galerkin product, which is where GAMG + mis2agg's setup loses.

The coverage priority: before each round, c1(v) = undecided vertices in
N[v] (not counting those already within distance 2 of the set: they are OUT
in all but name), c2(v) = sum of c1 over N[v]; a vertex wins its distance-2
neighbourhood with the largest (c2, hash) - it covers the most undecided
vertices. Two more sweeps a round and an OUT marking before them.

This model runs both priorities as synchronous rounds (numpy), aggregates
each set as mispc's phase 1 (root + neighbours) and joins the rest to the
neighbouring aggregate they touch most, then builds a smoothed-aggregation
two-level hierarchy with pyamg from those aggregates (coarse level solved
directly) and counts CG iterations (rtol 1e-8, symmetric GS smoothing). pip install numpy scipy pyamg;
python3 bench/experiments/mis2_cover_model.py   (about 5 minutes)

Results (2026-11-30, the 2-core VM; docs/AGGREGATION.md "A coverage
priority for MIS-2"): 27-point Laplacian 30^3 638 -> 492 aggregates, 7 / 7
iterations, coarse nnz 22,570 -> 16,066; 7-point 50^3 11,448 -> 10,105,
7 / 7, 346,194 -> 299,309; 27-point 40^3 1,473 -> 1,146, 7 / 8, 57,283 ->
39,914. bench/experiments/mis2_cover_host.patch is the same priority in
mis/mis2_host.c behind MISPC_EXP_COVER=1 (an experiment, not for main).
"""
import numpy as np
import scipy.sparse as sp
import pyamg


def grid(n, points):
    """Pattern of the 7- or 27-point stencil on n^3 points (no diagonal)."""
    idx = np.arange(n**3).reshape(n, n, n)
    offs = [(a, b, c) for a in (-1, 0, 1) for b in (-1, 0, 1) for c in (-1, 0, 1)
            if (a, b, c) != (0, 0, 0)]
    if points == 7:
        offs = [o for o in offs if sum(map(abs, o)) == 1]
    rows, cols = [], []
    for a, b, c in offs:
        sl = lambda d: slice(max(0, -d), n - max(0, d))
        sh = lambda d: slice(max(0, d), n + min(0, d) if d < 0 else n)
        rows.append(idx[sl(a), sl(b), sl(c)].ravel())
        cols.append(idx[sh(a), sh(b), sh(c)].ravel())
    r, c = np.concatenate(rows), np.concatenate(cols)
    return sp.csr_matrix((np.ones(len(r)), (r, c)), shape=(n**3, n**3))


def mis2_rounds(S, mode, seed=7):
    """Synchronous MIS-2 rounds; S has the diagonal. mode 'hash' or 'cover'."""
    n = S.shape[0]
    state = np.zeros(n, np.int8)  # 0 undecided, 1 IN, 2 OUT
    tie = np.random.default_rng(seed).random(n)
    coo = S.tocoo()
    rounds = 0
    while (state == 0).any():
        if mode == 'hash':
            key = np.random.default_rng(seed + rounds).random(n)
        else:
            c1 = S @ (state == 0).astype(float)
            key = S @ c1 + tie
        key = np.where(state == 0, key, -np.inf)
        m1 = np.full(n, -np.inf)
        np.maximum.at(m1, coo.row, key[coo.col])
        m2 = np.full(n, -np.inf)
        np.maximum.at(m2, coo.row, m1[coo.col])
        join = (state == 0) & (key == m2)
        state[join] = 1
        near = S @ (S @ join.astype(float)) > 0
        state[(state == 0) & near] = 2
        rounds += 1
    return state == 1, rounds


def aggregates(S, roots):
    n = S.shape[0]
    agg = -np.ones(n, int)
    ip, ix = S.indptr, S.indices
    r = np.flatnonzero(roots)
    agg[r] = np.arange(len(r))
    for k, v in enumerate(r):
        nb = ix[ip[v]:ip[v + 1]]
        agg[nb[agg[nb] < 0]] = k
    first = agg.copy()
    for v in np.flatnonzero(first < 0):
        nb = first[ix[ip[v]:ip[v + 1]]]
        agg[v] = np.bincount(nb[nb >= 0]).argmax()
    return sp.csr_matrix((np.ones(n), (np.arange(n), agg)), shape=(n, len(r)))


def main():
    for name, n, points in [("27-point 30^3", 30, 27), ("7-point 50^3", 50, 7),
                            ("27-point 40^3", 40, 27)]:
        G = grid(n, points)
        A = (sp.diags(np.asarray(G.sum(1)).ravel() + 1e-8) - G).tocsr()
        S = (G + sp.eye(n**3)).tocsr()
        for mode in ("hash", "cover"):
            roots, rounds = mis2_rounds(S, mode)
            P0 = aggregates(S, roots)
            ml = pyamg.smoothed_aggregation_solver(
                A, aggregate=('predefined', {'AggOp': P0}), strength=None, max_levels=2,
                presmoother=('gauss_seidel', {'sweep': 'symmetric'}),
                postsmoother=('gauss_seidel', {'sweep': 'symmetric'}))
            res = []
            ml.solve(A @ np.ones(n**3), tol=1e-8, accel='cg', residuals=res)
            print(f"{name}: {mode:5s} {P0.shape[1]:6d} aggregates, {rounds:2d} rounds, "
                  f"{len(res) - 1} iterations, coarse nnz {ml.levels[1].A.nnz}", flush=True)


if __name__ == "__main__":
    main()
