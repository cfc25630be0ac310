/* The search space of one kernel: the sketches that apply to its shape,
 * and a candidate's schedule text. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jit/session.h"
#include "tune/tune.h"

bool tune_space_build(TuneSpace *sp, NpgSession *s, const char *kernel, char *why, size_t n) {
  memset(sp, 0, sizeof *sp);
  sp->s = s;
  sp->kernel = kernel;
  const Kernel *k = s->m ? module_kernel(s->m, kernel) : NULL;
  if (!k) {
    snprintf(why, n, "no kernel '%s' in the file\n", kernel);
    return false;
  }
  if (!tune_shape(k, &sp->shape)) {
    snprintf(why, n, "kernel '%s' has no loop nest to schedule\n", kernel);
    return false;
  }
  tune_sketch_nu(sp);
  tune_sketch_conv(sp);
  tune_sketch_vu(sp);
  if (!sp->nsketch) {
    snprintf(why, n, "no sketch of npugen tune applies to kernel '%s' (docs/tune.md):\n%s", kernel, sp->notes);
    return false;
  }
  return true;
}

void tune_space_free(TuneSpace *sp) {
  for (int i = 0; i < sp->nsketch; i++) free(sp->sketch[i].data);
  sp->nsketch = 0;
}

char *tune_render(const TuneSpace *sp, const TuneGenome *g, const char *variant) {
  StrBuf sb;
  sb_init(&sb);
  sb_printf(&sb, "#pragma npu schedule(%s, %s)\n", sp->kernel, variant);
  const TuneSketch *sk = &sp->sketch[g->sketch];
  sk->render(sk, g->choice, &sb);
  return sb_take(&sb);
}

void tune_knob(TuneSketch *sk, int i, const char *name, const long long *v, int n, int seed) {
  TuneKnob *kn = &sk->knobs[i];
  snprintf(kn->name, sizeof kn->name, "%s", name);
  kn->n = n < TUNE_MAX_CHOICES ? n : TUNE_MAX_CHOICES;
  memcpy(kn->val, v, (size_t)kn->n * sizeof *v);
  kn->seed = seed < kn->n ? seed : kn->n - 1;
}

void tune_note(TuneSpace *sp, const char *fmt, ...) {
  size_t len = strlen(sp->notes);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(sp->notes + len, sizeof sp->notes - len, fmt, ap);
  va_end(ap);
}

bool tune_probe(TuneSpace *sp, int sketch, const int *choice) {
  TuneGenome g;
  memset(&g, 0, sizeof g);
  g.sketch = sketch;
  memcpy(g.choice, choice, (size_t)sp->sketch[sketch].nknobs * sizeof *choice);
  char name[96];
  snprintf(name, sizeof name, "%s_probe%d", sp->kernel, sp->probes++);
  char *text = tune_render(sp, &g, name);
  int errors = npg_error_count(sp->s);
  size_t before = strlen(npg_errors(sp->s));
  npg_add_schedule_string(sp->s, "<tune probe>", text, strlen(text));
  free(text);
  if (npg_error_count(sp->s) == errors) return true;
  const char *e = strstr(npg_errors(sp->s) + before, "error: ");
  tune_note(sp, "%s: %.*s\n", sp->sketch[sketch].name, e ? (int)strcspn(e + 7, "\n") : 0, e ? e + 7 : "");
  return false;
}
