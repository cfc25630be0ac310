/* Guard simplification: an if whose condition is always true (or always
 * false) inside its loops is replaced by the branch that runs. Used after
 * loop_partition, where a split's tail guard holds on every main tile. */
#include <isl/ctx.h>

#include "ir/affine.h"
#include "schedule/primitives.h"

typedef struct {
  AffCtx aff;
  Stmt **target; /* the list to simplify */
} Simp;

static bool has_decl(const Stmt *list) {
  for (const Stmt *c = list; c; c = c->next)
    if (c->kind == ST_DECL) return true;
  return false;
}

static void simp_list(Simp *p, Stmt **list, bool active);

static void simp_stmt(Simp *p, Stmt **link, bool active) {
  Stmt *c = *link;
  switch (c->kind) {
  case ST_BLOCK:
    simp_list(p, &c->body, active);
    break;
  case ST_FOR:
    aff_push_loop(&p->aff, c);
    simp_list(p, &c->body->body, active);
    aff_pop_loop(&p->aff);
    break;
  case ST_IF: {
    int v = active ? aff_cond_value(&p->aff, c->cond) : -1;
    if (v >= 0) {
      Stmt *branch = v ? c->then_s : c->else_s;
      Stmt *list = branch ? branch->body : NULL;
      if (list && has_decl(list)) list = branch; /* keep the block: its locals' scope */
      else if (list && branch) branch->body = NULL;
      if (list) {
        Stmt *last = list;
        while (last->next) last = last->next;
        last->next = c->next;
        *link = list;
      } else {
        *link = c->next;
      }
      return;
    }
    for (int b = 0; b < 2; b++) {
      Stmt *br = b ? c->else_s : c->then_s;
      if (!br) continue;
      bool pushed = aff_push_cond(&p->aff, c->cond, b == 1);
      simp_list(p, &br->body, active);
      if (pushed) aff_pop_cond(&p->aff);
    }
    break;
  }
  default:
    break;
  }
}

static void simp_list(Simp *p, Stmt **list, bool active) {
  active = active || list == p->target;
  Stmt **l = list;
  while (*l) {
    Stmt *before = *l;
    simp_stmt(p, l, active);
    if (*l == before) l = &(*l)->next; /* replaced: look at the spliced-in statements again */
  }
}

void simplify_guards(Sched *s, Stmt **list) {
  Simp p = {.target = list};
  aff_init(&p.aff, s->ctx, s->k);
  simp_list(&p, &s->k->body->body, false);
  aff_free(&p.aff);
}
