/* The tuned variant's default name (tune/tune.h): "<stem>_<kernel>_tuned",
 * unique across the kernel files of one directory, whose variants share a
 * directory of emitted files, their symbols and include guards
 * (docs/tune.md).
 *
 * Joined by '_', names can read alike: kernel c of a_b.c and kernel b_c
 * of a.c would both be a_b_c_tuned. The name stays readable unless such a
 * pair really exists: the last '_' before "_tuned" is the seam of the
 * plain pair (a kernel without '_' in "<identifier>.c", such as
 * matmul_acc.c's matmul), which keeps its name; any other pair keeps it
 * too unless another ".c" file of its directory has the kernel that would
 * give the same name (a.c's b_c beside a_b.c's c, a-b.c's c beside
 * a_b.c's c). Then it gets "_0" and eight hex digits of a hash of the
 * file's name and the kernel's. Readable names end in "_tuned", hashed
 * ones in a digit-led part, so the two forms never meet. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "jit/session_ir.h"
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

/* Whether the kernel file dir/entry has a kernel of that name. */
static bool file_has_kernel(const char *dir, const char *entry, const char *kernel) {
  char path[4096];
  if (snprintf(path, sizeof path, "%s/%s", dir, entry) >= (int)sizeof path) return false;
  NpgSession *s = npg_open_file(path);
  const Module *m = session_module(s);
  bool has = m && module_kernel(m, kernel);
  npg_close(s);
  return has;
}

/* Whether another ".c" file of dir than base has a kernel whose readable
 * name is also joined ("<stem>_<kernel>"). */
static bool sibling_collides(const char *dir, const char *base, const char *joined) {
  DIR *d = opendir(dir);
  if (!d) return false;
  bool collides = false;
  for (struct dirent *e; !collides && (e = readdir(d));) {
    size_t len = strlen(e->d_name);
    if (len < 3 || strcmp(e->d_name + len - 2, ".c") || !strcmp(e->d_name, base)) continue;
    char stem[128];
    identifier_stem(e->d_name, stem, sizeof stem);
    size_t sl = strlen(stem);
    const char *kernel = !sl ? joined : !strncmp(joined, stem, sl) && joined[sl] == '_' ? joined + sl + 1 : NULL;
    collides = kernel && *kernel && file_has_kernel(dir, e->d_name, kernel);
  }
  closedir(d);
  return collides;
}

void tune_variant_name(const char *file, const char *kernel, char *out, size_t n) {
  const char *slash = strrchr(file, '/');
  const char *base = slash ? slash + 1 : file;
  char stem[128], dir[4096];
  identifier_stem(base, stem, sizeof stem);
  snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - file) + (slash == file) : 1, slash ? file : ".");
  int len = snprintf(out, n, "%s%s%s_tuned", stem, *stem ? "_" : "", kernel);
  if (len < 0 || (size_t)len >= n || plain_pair(base, kernel)) return;
  out[len - 6] = 0; /* "<stem>_<kernel>" while the siblings are asked */
  bool collides = sibling_collides(dir, base, out);
  out[len - 6] = '_';
  if (collides) snprintf(out + len, n - (size_t)len, "_0%08x", (unsigned)name_hash(base, kernel));
}
