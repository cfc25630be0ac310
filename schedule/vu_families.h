/* The VU's op families (npu_intrinsics/npu_vu_families.def): the table's
 * rows, and the text generated from them: each op's semantics kernel and
 * the header of their prototypes (schedule/vu_families.c). */
#ifndef NPG_SCHED_VU_FAMILIES_H
#define NPG_SCHED_VU_FAMILIES_H

#include "ir/util.h"

typedef struct {
  const char *name; /* npu_vu_add_i32 */
  const char *op;   /* add */
  const char *form; /* vv, vs, un, from_T, cmp, sel, mask, sel_t, sel_te, sel_e, sel_pq, sel_tc, rows, box_un,
                       red_zero, red_first, win_first, win_zero, win_avg, str, str_plane */
  const char *type; /* i8, i32, f32 */
  const char *sem;  /* the kernel language over X, Y (and M, P, Q, T, E, C): "X + Y" */
} SchedVuOp;

/* The table's rows in its order, and their count. */
const SchedVuOp *sched_vu_ops(int *count);
/* The row of name, NULL if the table has none. */
const SchedVuOp *sched_vu_op(const char *name);
/* The row's semantics kernel: the text of npu_intrinsics/<name>.c. */
void sched_vu_op_semantics(const SchedVuOp *op, StrBuf *sb);
/* The text of npu_intrinsics/npu_vu_families.h. */
void sched_vu_ops_header(StrBuf *sb);
/* Two lines per family for `npugen intrinsics`: its forms with their
 * types ("add  vv: i8 i32 f32  vs: i32 f32 ..."), then its members' names. */
void sched_vu_ops_families(StrBuf *sb);

#endif
