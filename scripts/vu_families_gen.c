/* make vu-ops: writes each VU family member's semantics kernel and
 * npu_vu_families.h into the directory given (npu_intrinsics/) from the
 * table npu_vu_families.def (schedule/vu_families.c). */
#include <stdio.h>

#include "schedule/vu_families.h"

static int write_text(const char *dir, const char *file, const char *text) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", dir, file);
  FILE *f = fopen(path, "w");
  if (!f || fputs(text, f) < 0 || fclose(f)) {
    fprintf(stderr, "vu_families_gen: cannot write %s\n", path);
    return 1;
  }
  return 0;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: vu_families_gen DIR\n");
    return 2;
  }
  int n, bad = 0;
  const SchedVuOp *ops = sched_vu_ops(&n);
  for (int i = 0; i < n; i++) {
    StrBuf sb;
    sb_init(&sb);
    sched_vu_op_semantics(&ops[i], &sb);
    char file[256];
    snprintf(file, sizeof file, "%s.c", ops[i].name);
    bad |= write_text(argv[1], file, sb.data);
    sb_free(&sb);
  }
  StrBuf h;
  sb_init(&h);
  sched_vu_ops_header(&h);
  bad |= write_text(argv[1], "npu_vu_families.h", h.data);
  sb_free(&h);
  return bad;
}
