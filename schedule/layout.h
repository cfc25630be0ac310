/* The buffer-layout engine shared by transform_layout and its sugar
 * (buffer_split, buffer_fuse, buffer_reorder, storage_align,
 * set_axis_separators): one index map applied to one buffer. */
#ifndef NPG_LAYOUT_H
#define NPG_LAYOUT_H

#include "schedule/sched.h"

typedef struct isl_set isl_set;

enum { LAYOUT_MAX_OUT = 2 * IR_MAX_DIMS };

/* An index map from the buffer's current (physical) indices `in` to new
 * ones. Outputs are grouped by axis separators: each group becomes one
 * physical dimension, its outputs flattened row-major. */
typedef struct {
  int nin;
  Var *in[IR_MAX_DIMS];
  int nout;
  Expr *out[LAYOUT_MAX_OUT];
  int64_t extent[LAYOUT_MAX_OUT]; /* 0: the smallest extent that holds the image */
  const SchedArg *out_arg[LAYOUT_MAX_OUT]; /* for messages (may be NULL) */
  int ngroups;
  int group_end[LAYOUT_MAX_OUT];  /* outputs [group_end[g-1], group_end[g]) form group g */
  const SchedArg *pad;            /* pad_value, or NULL */
  bool gaps;                      /* padding that is only alignment: 0 unless a pad value is set */
} IndexMap;

/* A buffer of the variant (parameter or local array) by name. */
Buffer *sched_buffer(Sched *s, const SchedArg *arg);
/* A fresh index variable for a map (not part of the kernel's program). */
Var *layout_var(Sched *s, const char *name);
/* Starts a map over b's current dimensions, with one group per output
 * until separators are added. */
void layout_map_init(IndexMap *m, Sched *s, const Buffer *b, const char *const *names);
/* Applies the map: checks it (affine, non-negative, injective over the
 * buffer, padding only with a pad value), rewrites every access to b and
 * composes b's layout. False with an error at `at` otherwise. */
bool layout_apply(Sched *s, Buffer *b, IndexMap *m, const SchedArg *at);

/* isl sets over a buffer's physical indices [t0, t1, ...]: all its elements,
 * and its padding (the elements no logical one maps to). */
isl_set *layout_box_set(Sched *s, const Buffer *b);
isl_set *layout_pad_set(Sched *s, const Buffer *b);

#endif
