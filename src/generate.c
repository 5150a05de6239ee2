/* "gen:NAME:ARG[:ARG...]" specs: parsing and dispatch to the generators. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "stencil.h"

enum {
  G_LAPLACE2D,
  G_LAPLACE3D,
  G_ELASTICITY3D,
  G_ANISO2D,
  G_ANISO3D,
  G_KRON,
  G_RANDOM,
  G_PATH,
  G_ROADGRID,
  G_GRID2D,
  G_GRID3D27
};

#define GEN_MAX_ARGS 3

typedef struct gen_desc {
  const char *name;
  const char *usage;
  const char *kinds; /* one letter per argument: 'i' integer, 'd' real */
  int nreq;          /* required arguments; the rest are optional */
  double defaults[GEN_MAX_ARGS];
} gen_desc;

static const gen_desc gens[] = {
    [G_LAPLACE2D] = {"laplace2d", "laplace2d:N", "i", 1, {0}},
    [G_LAPLACE3D] = {"laplace3d", "laplace3d:N", "i", 1, {0}},
    [G_ELASTICITY3D] = {"elasticity3d", "elasticity3d:N", "i", 1, {0}},
    [G_ANISO2D] = {"aniso2d", "aniso2d:N[:EPS[:DEG]]", "idd", 1, {0, 0.001, 0.0}},
    [G_ANISO3D] = {"aniso3d", "aniso3d:N[:EPS]", "id", 1, {0, 0.001}},
    [G_KRON] = {"kron", "kron:SCALE[:EF]", "ii", 1, {0, 16}},
    [G_RANDOM] = {"random", "random:N[:DEG]", "id", 1, {0, 8.0}},
    [G_PATH] = {"path", "path:N", "i", 1, {0}},
    [G_ROADGRID] = {"roadgrid", "roadgrid:N[:P]", "id", 1, {0, 0.3}},
    [G_GRID2D] = {"grid2d", "grid2d:N", "i", 1, {0}},
    [G_GRID3D27] = {"grid3d27", "grid3d27:N", "i", 1, {0}},
};
#define NGENS ((int)(sizeof gens / sizeof gens[0]))

/* Formats "gen:laplace2d:N, gen:laplace3d:N, ..." into buf. */
static const char *valid_list(char *buf, size_t size) {
  size_t used = 0;
  buf[0] = '\0';
  for (int g = 0; g < NGENS && used < size; ++g) {
    size_t len = strlen(gens[g].usage) + 6;
    if (used + len + 1 > size) break;
    strcat(buf, g ? ", gen:" : "gen:");
    strcat(buf, gens[g].usage);
    used = strlen(buf);
  }
  return buf;
}

static mispc_status spec_error(mispc_context *ctx, const char *spec, const char *why) {
  char list[512];
  return mispc_seterr(ctx, MISPC_ERR_FORMAT, "bad generator spec '%s': %s; valid generators: %s",
                      spec, why, valid_list(list, sizeof list));
}

/* Parses one whole argument [s, e) as an integer or a real number. */
static int parse_arg(const char *s, const char *e, char kind, int64_t *iv, double *dv) {
  char tmp[64];
  size_t len = (size_t)(e - s);
  if (len == 0 || len >= sizeof tmp) return 0;
  memcpy(tmp, s, len);
  tmp[len] = '\0';
  if (!(tmp[0] == '-' || tmp[0] == '+' || tmp[0] == '.' || (tmp[0] >= '0' && tmp[0] <= '9')))
    return 0; /* no leading blanks, "inf" or "nan" */
  char *end;
  errno = 0;
  if (kind == 'i') {
    long long v = strtoll(tmp, &end, 10);
    if (errno || *end) return 0;
    *iv = v;
    *dv = (double)v;
  } else {
    double v = strtod(tmp, &end);
    if (errno || *end) return 0;
    *dv = v;
  }
  return 1;
}

/* A "gen:NAME:ARGS" spec: its generator *g_out and arguments (defaults
 * filled in; integers in iv, every argument in dv). */
static mispc_status parse_spec(mispc_context *ctx, const char *spec, int *g_out, int64_t *iv,
                               double *dv) {
  if (strncmp(spec, "gen:", 4) != 0) return spec_error(ctx, spec, "it must start with 'gen:'");
  const char *name = spec + 4, *colon = strchr(name, ':');
  size_t nlen = colon ? (size_t)(colon - name) : strlen(name);
  int g = -1;
  for (int k = 0; k < NGENS; ++k)
    if (strlen(gens[k].name) == nlen && strncmp(gens[k].name, name, nlen) == 0) g = k;
  if (g < 0) return spec_error(ctx, spec, "unknown generator");

  int nmax = (int)strlen(gens[g].kinds), nargs = 0;
  for (int k = 0; k < GEN_MAX_ARGS; ++k) {
    dv[k] = gens[g].defaults[k];
    iv[k] = (int64_t)dv[k];
  }
  char why[160];
  for (const char *s = colon; s; ++nargs) {
    ++s; /* skip ':' */
    const char *e = strchr(s, ':');
    if (!e) e = s + strlen(s);
    if (nargs >= nmax) {
      snprintf(why, sizeof why, "too many arguments (usage gen:%s)", gens[g].usage);
      return spec_error(ctx, spec, why);
    }
    if (!parse_arg(s, e, gens[g].kinds[nargs], &iv[nargs], &dv[nargs])) {
      snprintf(why, sizeof why, "argument %d is not %s (usage gen:%s)", nargs + 1,
               gens[g].kinds[nargs] == 'i' ? "an integer" : "a number", gens[g].usage);
      return spec_error(ctx, spec, why);
    }
    s = *e ? e : NULL;
  }
  if (nargs < gens[g].nreq) {
    snprintf(why, sizeof why, "missing arguments (usage gen:%s)", gens[g].usage);
    return spec_error(ctx, spec, why);
  }
  if (g == G_KRON && (iv[0] < INT_MIN || iv[0] > INT_MAX || iv[1] < INT_MIN || iv[1] > INT_MAX))
    return spec_error(ctx, spec, "kron arguments out of range");
  *g_out = g;
  return MISPC_SUCCESS;
}

mispc_status mispc_gen_ranged_spec(mispc_context *ctx, const char *spec, mispc_gen_ranged *e) {
  memset(e, 0, sizeof *e);
  if (strncmp(spec, "gen:", 4) != 0) return MISPC_SUCCESS;
  int g = -1;
  int64_t iv[GEN_MAX_ARGS] = {0};
  double dv[GEN_MAX_ARGS];
  MISPC_TRY(parse_spec(ctx, spec, &g, iv, dv));
  int found = 0;
  if (g == G_ANISO2D || g == G_ANISO3D) {
    MISPC_TRY(g == G_ANISO2D ? mispc_stencil_aniso2d(ctx, iv[0], dv[1], dv[2], &e->st)
                             : mispc_stencil_aniso3d(ctx, iv[0], dv[1], &e->st));
    found = 1;
  } else {
    MISPC_TRY(mispc_stencil_named(ctx, gens[g].name, iv[0], &e->st, &found));
  }
  if (found) {
    e->kind = MISPC_GEN_RANGED_STENCIL, e->n = e->st.nx * e->st.ny * e->st.nz;
  } else if (g == G_KRON) {
    e->kind = MISPC_GEN_RANGED_KRON, e->a = iv[0], e->b = (double)iv[1];
    e->n = iv[0] >= 1 && iv[0] <= 30 ? (int64_t)1 << iv[0] : 0;
  } else if (g == G_RANDOM) {
    e->kind = MISPC_GEN_RANGED_RANDOM, e->a = iv[0], e->b = dv[1];
    e->n = iv[0] >= 1 && iv[0] <= INT32_MAX ? iv[0] : 0;
  } else if (g == G_ELASTICITY3D) {
    e->kind = MISPC_GEN_RANGED_ELASTICITY, e->a = iv[0];
    e->n = iv[0] >= 1 && iv[0] <= 1000 && 3 * iv[0] * iv[0] * iv[0] <= INT32_MAX
               ? 3 * iv[0] * iv[0] * iv[0]
               : 0;
  } else if (g == G_ROADGRID) {
    e->kind = MISPC_GEN_RANGED_ROADGRID, e->a = iv[0], e->b = dv[1];
    e->n = iv[0] >= 1 && iv[0] <= INT32_MAX / iv[0] ? iv[0] * iv[0] : 0;
  }
  return MISPC_SUCCESS;
}

mispc_status mispc_generate(mispc_context *ctx, const char *spec, uint64_t seed, mispc_csr *out) {
  if (!ctx) return MISPC_ERR_INVALID_ARG;
  if (!spec || !out)
    return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "mispc_generate: spec or output is NULL");
  memset(out, 0, sizeof *out);
  int g = -1;
  int64_t iv[GEN_MAX_ARGS] = {0};
  double dv[GEN_MAX_ARGS];
  MISPC_TRY(parse_spec(ctx, spec, &g, iv, dv));

  switch (g) {
  case G_LAPLACE2D:
    return mispc_gen_laplace2d(ctx, iv[0], out);
  case G_LAPLACE3D:
    return mispc_gen_laplace3d(ctx, iv[0], out);
  case G_ELASTICITY3D:
    return mispc_gen_elasticity3d(ctx, iv[0], out);
  case G_ANISO2D:
    return mispc_gen_aniso2d(ctx, iv[0], dv[1], dv[2], out);
  case G_ANISO3D:
    return mispc_gen_aniso3d(ctx, iv[0], dv[1], out);
  case G_KRON:
    return mispc_gen_kronecker(ctx, (int)iv[0], (int)iv[1], seed, out);
  case G_RANDOM:
    return mispc_gen_random(ctx, iv[0], dv[1], seed, out);
  case G_PATH:
    return mispc_gen_path(ctx, iv[0], out);
  case G_ROADGRID:
    return mispc_gen_roadgrid(ctx, iv[0], dv[1], seed, out);
  case G_GRID2D:
    return mispc_gen_grid2d(ctx, iv[0], out);
  default:
    return mispc_gen_grid3d27(ctx, iv[0], out);
  }
}

mispc_status mispc_gen_begin(mispc_context *ctx, const char *name, mispc_csr *out) {
  if (!ctx) return MISPC_ERR_INVALID_ARG;
  if (!out) return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "%s: output CSR is NULL", name);
  memset(out, 0, sizeof *out);
  return MISPC_SUCCESS;
}

mispc_status mispc_gen_check_n(mispc_context *ctx, const char *name, int64_t n) {
  if (n < 1)
    return mispc_seterr(ctx, MISPC_ERR_INVALID_ARG, "%s: N must be >= 1, got %lld", name,
                        (long long)n);
  return MISPC_SUCCESS;
}
