/* Helpers for the simulator's tests; see test_sim_util.h. */
#include "test_sim_util.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/util.h"


char *simt_kernel_source(const char *name, const char *const *defs) {
  char path[256];
  snprintf(path, sizeof path, "npu_intrinsics/%s.c", name);
  char *text = read_file(path, NULL);
  cr_assert_not_null(text, "cannot read %s (run the tests from the repo root)", path);
  for (const char *const *d = defs; d && *d; d++) {
    const char *eq = strchr(*d, '=');
    cr_assert_not_null(eq);
    char key[64];
    snprintf(key, sizeof key, "#define %.*s ", (int)(eq - *d), *d);
    char *at = strstr(text, key);
    cr_assert_not_null(at, "%s has no '%s'", path, key);
    char *eol = strchr(at, '\n');
    size_t head = (size_t)(at - text);
    char line[96];
    snprintf(line, sizeof line, "%s%s", key, eq + 1);
    size_t n = head + strlen(line) + strlen(eol) + 1;
    char *out = malloc(n);
    snprintf(out, n, "%.*s%s%s", (int)head, text, line, eol);
    free(text);
    text = out;
  }
  return text;
}

TccUnit *simt_compile(const char *source, const char *name) {
  char err[4096];
  TccUnit *u = tcc_unit_compile(source, name, err, sizeof err);
  cr_assert_not_null(u, "tcc failed on %s:\n%s", name, err);
  return u;
}

NpuSim *simt_new(void) {
  NpuTarget t;
  npusim_target_default(&t);
  NpuSim *s = npusim_new(&t);
  cr_assert_not_null(s);
  npusim_bind(s);
  return s;
}

void simt_free(NpuSim *s) {
  npusim_unbind();
  npusim_free(s);
}

void simt_seed(SimtRng *r, uint64_t seed) { r->s = seed * 0x9E3779B97F4A7C15ull + 1; }
uint64_t simt_next(SimtRng *r) {
  r->s ^= r->s >> 12;
  r->s ^= r->s << 25;
  r->s ^= r->s >> 27;
  return r->s * 0x2545F4914F6CDD1Dull;
}
int32_t simt_range(SimtRng *r, int32_t lo, int32_t hi) {
  uint64_t span = (uint64_t)((int64_t)hi - lo + 1);
  return (int32_t)(lo + (int64_t)(simt_next(r) % span));
}
float simt_float(SimtRng *r) { return (float)((double)(simt_next(r) >> 11) / 9007199254740992.0 * 8.0 - 4.0); }
void simt_fill_i8(SimtRng *r, int8_t *p, size_t n) {
  for (size_t i = 0; i < n; i++) p[i] = (int8_t)simt_range(r, -128, 127);
}

/* ---- JSON validator (RFC 8259 grammar, no extensions) ---- */
typedef struct {
  const char *p;
  int depth;
} Json;

static void ws(Json *j) {
  while (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r') j->p++;
}
static int value(Json *j);
static int string(Json *j) {
  if (*j->p++ != '"') return 0;
  for (;;) {
    unsigned char c = (unsigned char)*j->p++;
    if (c == '"') return 1;
    if (c < 0x20) return 0;
    if (c == '\\') {
      c = (unsigned char)*j->p++;
      if (c == 'u') {
        for (int i = 0; i < 4; i++, j->p++)
          if (!strchr("0123456789abcdefABCDEF", *j->p) || !*j->p) return 0;
      } else if (!c || !strchr("\"\\/bfnrt", c)) return 0;
    }
  }
}
static int number(Json *j) {
  if (*j->p == '-') j->p++;
  if (*j->p == '0') j->p++;
  else if (*j->p >= '1' && *j->p <= '9') while (*j->p >= '0' && *j->p <= '9') j->p++;
  else return 0;
  if (*j->p == '.') {
    j->p++;
    if (!(*j->p >= '0' && *j->p <= '9')) return 0;
    while (*j->p >= '0' && *j->p <= '9') j->p++;
  }
  if (*j->p == 'e' || *j->p == 'E') {
    j->p++;
    if (*j->p == '+' || *j->p == '-') j->p++;
    if (!(*j->p >= '0' && *j->p <= '9')) return 0;
    while (*j->p >= '0' && *j->p <= '9') j->p++;
  }
  return 1;
}
static int seq(Json *j, char close, int object) {
  j->p++;
  if (++j->depth > 64) return 0;
  ws(j);
  if (*j->p == close) {
    j->p++;
    j->depth--;
    return 1;
  }
  for (;;) {
    ws(j);
    if (object) {
      if (!string(j)) return 0;
      ws(j);
      if (*j->p++ != ':') return 0;
    }
    if (!value(j)) return 0;
    ws(j);
    if (*j->p == ',') {
      j->p++;
      continue;
    }
    if (*j->p++ != close) return 0;
    j->depth--;
    return 1;
  }
}
static int value(Json *j) {
  ws(j);
  switch (*j->p) {
  case '{': return seq(j, '}', 1);
  case '[': return seq(j, ']', 0);
  case '"': return string(j);
  case 't': return strncmp(j->p, "true", 4) ? 0 : (j->p += 4, 1);
  case 'f': return strncmp(j->p, "false", 5) ? 0 : (j->p += 5, 1);
  case 'n': return strncmp(j->p, "null", 4) ? 0 : (j->p += 4, 1);
  default: return number(j);
  }
}
int simt_json_valid(const char *text) {
  Json j = {text, 0};
  if (!value(&j)) return 0;
  ws(&j);
  return *j.p == 0;
}
