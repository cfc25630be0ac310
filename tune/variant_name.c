/* The tuned variant's default name (tune/tune.h): "<stem>_<kernel>_tuned",
 * unique across the kernel files of one project, whose variants share a
 * directory of emitted files, their symbols and include guards
 * (docs/tune.md).
 *
 * Joined by '_', names can read alike: kernel c of a_b.c and kernel b_c
 * of a.c would both be a_b_c_tuned. So the spelling fixes the last '_'
 * before "_tuned" as the seam, as lower/prototype.c's size macros do: the
 * name is used as is when the kernel's name has no '_' and the file is
 * "<stem>.c" with a stem that is already an identifier (matmul_acc.c's
 * matmul: matmul_acc_matmul_tuned). Any other pair (a kernel with '_',
 * another character in the stem, a leading digit, another extension)
 * gives the stem as an identifier, the kernel, "_tuned", then "_0" and
 * eight hex digits of a hash of the file's name and the kernel's.
 * Readable names end in "_tuned", hashed ones in a digit-led part, so the
 * two forms never meet. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "tune/tune.h"

static bool letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
static bool digit(char c) { return c >= '0' && c <= '9'; }

/* The seam reads back: base is "<identifier>.c" and kernel has no '_'. */
static bool plain_pair(const char *base, const char *kernel) {
  size_t len = strlen(base);
  if (len < 3 || strcmp(base + len - 2, ".c") || digit(base[0]) || strchr(kernel, '_')) return false;
  for (size_t i = 0; i + 2 < len; i++)
    if (!letter(base[i]) && !digit(base[i]) && base[i] != '_') return false;
  return true;
}

/* The stem (up to the first '.') as an identifier: other characters as
 * '_', an 'f' before a leading digit. */
static void identifier_stem(const char *base, char *stem, size_t n) {
  size_t len = strcspn(base, "."), m = 0;
  if (len && digit(base[0]) && m + 1 < n) stem[m++] = 'f';
  for (size_t i = 0; i < len && m + 1 < n; i++)
    stem[m++] = letter(base[i]) || digit(base[i]) || base[i] == '_' ? base[i] : '_';
  stem[m] = 0;
}

/* FNV-1a of the file's name and the kernel's, each with its NUL. */
static uint32_t name_hash(const char *base, const char *kernel) {
  uint32_t h = 2166136261u;
  const char *parts[] = {base, kernel};
  for (int i = 0; i < 2; i++) {
    const char *p = parts[i];
    do h = (h ^ (unsigned char)*p) * 16777619u;
    while (*p++);
  }
  return h;
}

void tune_variant_name(const char *file, const char *kernel, char *out, size_t n) {
  const char *base = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;
  char stem[128];
  identifier_stem(base, stem, sizeof stem);
  int len = snprintf(out, n, "%s%s%s_tuned", stem, *stem ? "_" : "", kernel);
  if (!plain_pair(base, kernel) && len >= 0 && (size_t)len < n)
    snprintf(out + len, n - (size_t)len, "_0%08x", (unsigned)name_hash(base, kernel));
}
