/* Target descriptions: the built-in default and INI files (libinih). */
#include <errno.h>
#include <ini.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sim/npusim.h"

void npusim_target_default(NpuTarget *t) {
  memset(t, 0, sizeof *t);
  snprintf(t->name, sizeof t->name, "default");
  t->ddr_bandwidth = 64;
  t->ddr_latency = 200;
  t->dm_size = 2 << 20;
  t->dm_bandwidth = 256;
  t->dm_latency = 16;
  t->nu_ib_size = 256 << 10;
  t->nu_wb_size = 256 << 10;
  t->nu_ob_size = 256 << 10;
  t->nu_macs_int8 = 1024;
  t->nu_macs_fp32 = 256;
  t->nu_overhead = 32;
  t->vu_count = 4;
  t->vu_vm_size = 128 << 10;
  t->vu_vector_bytes = 64;
  t->vu_overhead = 4;
  t->dma_channels = 4;
  t->dma_max_tokens = 64;
  t->cu_issue_cycles = 1;
  t->cu_queue_depth = 8;
  t->cu_access_cycles = 1;
}

/* One known key: where it goes and its sane range. */
typedef struct {
  const char *section, *key;
  size_t offset;
  int64_t min, max;
  bool size_suffix; /* accepts KiB / MiB */
} Key;

#define K(sec, key, field, lo, hi, sfx) {sec, key, offsetof(NpuTarget, field), lo, hi, sfx}
static const Key keys[] = {
    K("ddr", "bandwidth", ddr_bandwidth, 1, 1 << 20, false),
    K("ddr", "latency", ddr_latency, 0, 1 << 20, false),
    K("dm", "size", dm_size, 4096, (int64_t)1 << 30, true),
    K("dm", "bandwidth", dm_bandwidth, 1, 1 << 20, false),
    K("dm", "latency", dm_latency, 0, 1 << 20, false),
    K("nu", "ib_size", nu_ib_size, 4096, (int64_t)1 << 30, true),
    K("nu", "wb_size", nu_wb_size, 4096, (int64_t)1 << 30, true),
    K("nu", "ob_size", nu_ob_size, 4096, (int64_t)1 << 30, true),
    K("nu", "macs_int8", nu_macs_int8, 1, 1 << 24, false),
    K("nu", "macs_fp32", nu_macs_fp32, 1, 1 << 24, false),
    K("nu", "overhead", nu_overhead, 0, 1 << 20, false),
    K("vu", "count", vu_count, 1, NPUSIM_MAX_VU, false),
    K("vu", "vm_size", vu_vm_size, 4096, (int64_t)1 << 30, true),
    K("vu", "vector_bytes", vu_vector_bytes, 4, 1 << 16, false),
    K("vu", "overhead", vu_overhead, 0, 1 << 20, false),
    K("dma", "channels", dma_channels, 1, NPUSIM_MAX_DMA, false),
    K("dma", "max_tokens", dma_max_tokens, 1, 1 << 16, false),
    K("cu", "issue_cycles", cu_issue_cycles, 0, 1 << 20, false),
    K("cu", "queue_depth", cu_queue_depth, 1, 1 << 12, false),
    K("cu", "access_cycles", cu_access_cycles, 0, 1 << 20, false),
};
#undef K
#define NKEYS (sizeof keys / sizeof keys[0])

typedef struct {
  NpuTarget *t;
  bool seen[NKEYS];
  bool name_seen;
  char msg[256]; /* first error, without the line prefix */
  int errors;
  int line;       /* the line inih is at (next_line counts them as inih does) */
  int error_line; /* msg's */
} ParseCtx;

static int fail(ParseCtx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(ParseCtx *c, const char *fmt, ...) {
  if (c->errors++ == 0) {
    c->error_line = c->line;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->msg, sizeof c->msg, fmt, ap);
    va_end(ap);
  }
  return 0;
}

/* "[sec] key = x is out of range [min, max]": the loader's and the checker's message. */
static void out_of_range(char *buf, size_t n, const Key *k, int64_t x) {
  snprintf(buf, n, "[%s] %s = %lld is out of range [%lld, %lld]", k->section, k->key,
           (long long)x, (long long)k->min, (long long)k->max);
}

/* Integer with an optional KiB/MiB/GiB suffix; false if malformed. */
static bool parse_value(const char *v, bool suffix_ok, int64_t *out) {
  errno = 0;
  char *end;
  long long x = strtoll(v, &end, 10);
  if (end == v || errno) return false;
  while (*end == ' ' || *end == '\t') end++;
  int64_t mul = 1;
  if (*end) {
    if (!suffix_ok) return false;
    if (!strcasecmp(end, "KiB")) mul = (int64_t)1 << 10;
    else if (!strcasecmp(end, "MiB")) mul = (int64_t)1 << 20;
    else if (!strcasecmp(end, "GiB")) mul = (int64_t)1 << 30;
    else return false;
  }
  if (x > INT64_MAX / mul || x < INT64_MIN / mul) return false;
  *out = (int64_t)x * mul;
  return true;
}

static int on_key(void *user, const char *section, const char *name, const char *value) {
  ParseCtx *c = user;
  if (!strcmp(section, "target") && !strcmp(name, "name")) {
    if (c->name_seen) return fail(c, "duplicate key '%s' in section [%s]", name, section);
    c->name_seen = true;
    if (!*value || strlen(value) >= sizeof c->t->name)
      return fail(c, "[%s] %s must be 1 to 63 characters", section, name);
    memset(c->t->name, 0, sizeof c->t->name);
    snprintf(c->t->name, sizeof c->t->name, "%s", value);
    return 1;
  }
  for (size_t i = 0; i < NKEYS; i++) {
    const Key *k = &keys[i];
    if (strcmp(section, k->section) || strcmp(name, k->key)) continue;
    if (c->seen[i]) return fail(c, "duplicate key '%s' in section [%s]", name, section);
    c->seen[i] = true;
    int64_t x;
    if (!*value) return fail(c, "missing value for [%s] %s", section, name);
    if (!parse_value(value, k->size_suffix, &x))
      return fail(c, "'%s' is not a valid value for %s",
                  value, k->size_suffix ? "a size (integer, optional KiB/MiB/GiB)" : "an integer");
    if (x < k->min || x > k->max) {
      char range[sizeof c->msg];
      out_of_range(range, sizeof range, k, x);
      return fail(c, "%s", range);
    }
    *(int64_t *)((char *)c->t + k->offset) = x;
    return 1;
  }
  return fail(c, "unknown key '%s' in section [%s]", name, section);
}

int npusim_target_check(const NpuTarget *t, char *err, size_t err_size) {
  for (size_t i = 0; i < NKEYS; i++) {
    int64_t x = *(const int64_t *)((const char *)t + keys[i].offset);
    if (x < keys[i].min || x > keys[i].max) {
      out_of_range(err, err_size, &keys[i], x);
      return -1;
    }
  }
  if (t->vu_vector_bytes & (t->vu_vector_bytes - 1)) {
    snprintf(err, err_size, "[vu] vector_bytes = %lld must be a power of two",
             (long long)t->vu_vector_bytes);
    return -1;
  }
  return 0;
}

static int finish(ParseCtx *c, int rc, const char *name, char *err, size_t err_size) {
  if (rc == -1) {
    snprintf(err, err_size, "%s: cannot open target file: %s", name, strerror(errno));
    return -1;
  }
  if (rc == -2) {
    snprintf(err, err_size, "%s: out of memory", name);
    return -1;
  }
  if (rc > 0) {
    /* inih's first error may be its own (a malformed "[section"), before ours */
    if (c->errors && c->error_line == rc) snprintf(err, err_size, "%s:%d: %s", name, rc, c->msg);
    else snprintf(err, err_size, "%s:%d: syntax error (expected [section] or key = value)", name, rc);
    return -1;
  }
  for (size_t i = 0; i < NKEYS; i++)
    if (!c->seen[i]) {
      snprintf(err, err_size, "%s: missing key '%s' in section [%s]", name, keys[i].key,
               keys[i].section);
      return -1;
    }
  char msg[256];
  if (npusim_target_check(c->t, msg, sizeof msg)) {
    snprintf(err, err_size, "%s: %s", name, msg);
    return -1;
  }
  return 0;
}

/* The whole file, at most NPUSIM_MAX_TARGET_BYTES of it; NULL with the
 * error in err. */
static char *read_target(const char *path, char *err, size_t err_size) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    snprintf(err, err_size, "%s: cannot open target file: %s", path, strerror(errno));
    return NULL;
  }
  /* the buffer doubles as it fills: growing it by each read's 64 KiB
   * copied a 16 MiB device's bytes 256 times (3 s under ASan) */
  size_t len = 0, cap = 65536, n;
  char *text = malloc(cap + 1), buf[65536];
  while (text && len <= NPUSIM_MAX_TARGET_BYTES && (n = fread(buf, 1, sizeof buf, f)) > 0) {
    if (len + n > cap) {
      while (len + n > cap) cap *= 2;
      char *more = realloc(text, cap + 1);
      if (!more) free(text);
      text = more;
      if (!text) break;
    }
    memcpy(text + len, buf, n);
    len += n;
  }
  int rerr = ferror(f) ? errno : 0;
  fclose(f);
  const char *why = !text ? "out of memory" : rerr ? strerror(rerr) : NULL;
  if (!why && len > NPUSIM_MAX_TARGET_BYTES) why = "the file is larger than 16 MiB, the limit for a target file";
  if (!why && memchr(text, 0, len)) why = "the file contains a NUL byte: not an INI file";
  if (why) {
    snprintf(err, err_size, "%s: cannot read target file: %s", path, why);
    free(text);
    return NULL;
  }
  text[len] = 0;
  return text;
}

/* inih's string reader, counting the lines it hands out (one a call, as
 * inih numbers them), so an error of on_key knows its line. */
typedef struct {
  const char *p;
  ParseCtx *c;
} LineReader;

static char *next_line(char *str, int num, void *stream) {
  LineReader *r = stream;
  if (!*r->p || num < 2) return NULL;
  int n = 0;
  while (n < num - 1 && r->p[n] && r->p[n] != '\n') n++;
  if (n < num - 1 && r->p[n] == '\n') n++;
  memcpy(str, r->p, (size_t)n);
  str[n] = 0;
  r->p += n;
  r->c->line++;
  return str;
}

static int parse_text(ParseCtx *c, const char *text) {
  LineReader r = {text, c};
  return ini_parse_stream(next_line, &r, on_key, c);
}

int npusim_target_load(NpuTarget *t, const char *path, char *err, size_t err_size) {
  ParseCtx c = {.t = t};
  memset(t, 0, sizeof *t);
  snprintf(t->name, sizeof t->name, "%s", path);
  char *text = read_target(path, err, err_size);
  if (!text) return -1;
  int rc = parse_text(&c, text);
  free(text);
  return finish(&c, rc, path, err, err_size);
}

int npusim_target_parse(NpuTarget *t, const char *text, const char *name, char *err,
                        size_t err_size) {
  ParseCtx c = {.t = t};
  memset(t, 0, sizeof *t);
  snprintf(t->name, sizeof t->name, "%s", name);
  int rc = parse_text(&c, text);
  return finish(&c, rc, name, err, err_size);
}
