/* Strided byte regions: scope and capacity checks, exact overlap, printing. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "sim/internal.h"

static int find_slot_of(const NpuSim *s, uintptr_t a) {
  if (a < s->mem_lo || a >= s->mem_hi) return -1;
  for (int i = 0; i < s->nslots; i++) {
    uintptr_t b = (uintptr_t)s->slots[i].base;
    if (a >= b && a < b + s->slots[i].span) return i;
  }
  return -1;
}

int region_scope(const NpuSim *s, const Region *r) { return slot_level(s, r->slot); }
int region_core(const NpuSim *s, const Region *r) {
  return r->slot >= 0 ? s->slots[r->slot].core : 0;
}
bool region_empty(const Region *r) { return r->base == r->hi; }

static const char *slot_str(const NpuSim *s, int slot, char *buf, size_t n) {
  const Slot *sl = &s->slots[slot];
  if (sl->scope == NPU_VU_VM) snprintf(buf, n, "vu_vm(core %d)", sl->core);
  else snprintf(buf, n, "%s", scope_name(sl->scope));
  return buf;
}

const char *region_str(const NpuSim *s, const Region *r, char *buf, size_t n) {
  char name[32];
  if (r->slot >= 0) {
    uintptr_t b = (uintptr_t)s->slots[r->slot].base;
    snprintf(buf, n, "%s[0x%" PRIxPTR ", 0x%" PRIxPTR ")", slot_str(s, r->slot, name, sizeof name),
             r->base - b, r->hi - b);
    return buf;
  }
  for (int i = 0; i < s->nddr; i++)
    if (r->base >= s->ddr[i].lo && r->base < s->ddr[i].hi) {
      snprintf(buf, n, "ddr %s[0x%" PRIxPTR ", 0x%" PRIxPTR ")", s->ddr[i].name,
               r->base - s->ddr[i].lo, r->hi - s->ddr[i].lo);
      return buf;
    }
  snprintf(buf, n, "ddr [0x%" PRIxPTR ", 0x%" PRIxPTR ")", r->base, r->hi);
  return buf;
}

/* Why region_make refused an operand; the message is written by fail. */
typedef enum {
  PAST_CAPACITY,  /* starts beyond its slot */
  PAST_END,       /* runs past the end of its slot */
  MISALIGNED,
  INTO_ONCHIP,    /* runs from host memory into on-chip memory */
  OUTSIDE_DDR,
  WRONG_SCOPE,
  WRONG_CORE,
} Refusal;

/* The failure messages, kept out of region_make: their buffers on its
 * stack made every call set up and clear their shadow under ASan (that
 * was half of make test's time in host-code loops on chip). */
__attribute__((noinline, cold)) static bool fail(NpuSim *s, Site site, const char *op, const char *what,
                                                 const Region *out, uintptr_t hi, int slot, int align, int want,
                                                 int want_core, Refusal why) {
  char name[32], buf[160];
  Region r = *out;
  r.hi = hi;
  r.slot = slot;
  const char *box = region_str(s, &r, buf, sizeof buf);
  const Slot *sl = slot >= 0 ? &s->slots[slot] : NULL;
  switch (why) {
  case PAST_CAPACITY:
    sim_fail(s, site, op, "operand %s at %s+0x%" PRIxPTR " is beyond its capacity of %" PRIu64 " bytes", what,
             slot_str(s, slot, name, sizeof name), r.base - (uintptr_t)sl->base, sl->cap);
    break;
  case PAST_END:
    sim_fail(s, site, op, "operand %s %s runs past the end of %s (capacity %" PRIu64 " bytes)", what, box,
             slot_str(s, slot, name, sizeof name), sl->cap);
    break;
  case MISALIGNED:
    sim_fail(s, site, op, "operand %s %s is not aligned to its %d-byte elements", what, box, align);
    break;
  case INTO_ONCHIP:
    sim_fail(s, site, op, "operand %s %s runs from host memory into on-chip memory", what, box);
    break;
  case OUTSIDE_DDR:
    sim_fail(s, site, op, "operand %s %s is outside every declared DDR array", what, box);
    break;
  case WRONG_SCOPE:
    sim_fail(s, site, op, "operand %s is in %s (%s) but %s needs it in %s", what, scope_name(slot_level(s, slot)),
             box, op, scope_name(want));
    break;
  case WRONG_CORE:
    sim_fail(s, site, op, "operand %s is in the VM of VU core %d (%s) but the other operands are in core %d", what,
             sl->core, box, want_core);
    break;
  }
  return false;
}

static bool aligned(uintptr_t x, int align) {
  return (align & (align - 1)) == 0 ? (x & (uintptr_t)(align - 1)) == 0 : x % (uintptr_t)align == 0;
}

/* Entered for every element host code touches on chip (npu_cu_access):
 * *out is filled field by field, never built on the stack and copied
 * whole (a 16-byte load of two 8-byte stores cannot be forwarded, and
 * that stall was most of the simulator's time in such loops). */
bool region_make(NpuSim *s, Site site, const char *op, const char *what, const void *ptr,
                 int64_t len, int64_t rows, int64_t s1, int64_t planes, int64_t s2, int want,
                 int want_core, int align, Region *out) {
  uintptr_t base = (uintptr_t)ptr;
  out->base = out->hi = base;
  out->len = len;
  out->rows = rows;
  out->s1 = s1;
  out->planes = planes;
  out->s2 = s2;
  out->slot = -1;
  if (len <= 0 || rows <= 0 || planes <= 0) return true; /* touches nothing */
  if (!ptr) {
    sim_fail(s, site, op, "operand %s is a null pointer", what);
    return false;
  }
  /* Strides are >= 0 (checked by callers), so the box is easy; guard overflow. */
  int64_t extent = len;
  if (rows > 1) extent += (rows - 1) * s1;
  if (planes > 1) extent += (planes - 1) * s2;
  if (extent < len || base + (uint64_t)extent < base) {
    sim_fail(s, site, op, "operand %s spans more than the address space", what);
    return false;
  }
  uintptr_t hi = base + (uint64_t)extent;
  int slot = find_slot_of(s, base);
#define FAIL(why) fail(s, site, op, what, out, hi, slot, align, want, want_core, why)
  if (slot >= 0) {
    Slot *sl = &s->slots[slot];
    uintptr_t b = (uintptr_t)sl->base;
    if (base - b >= sl->cap) return FAIL(PAST_CAPACITY);
    if (hi - b > sl->cap) return FAIL(PAST_END);
    if (!aligned(base - b, align) ||
        (align > 1 && (!aligned((uintptr_t)s1, align) || !aligned((uintptr_t)s2, align))))
      return FAIL(MISALIGNED);
    if (hi - b > sl->peak) sl->peak = hi - b;
  } else {
    if (base < s->mem_lo && hi > s->mem_lo) return FAIL(INTO_ONCHIP);
    if (s->nddr) {
      bool inside = false;
      for (int i = 0; i < s->nddr && !inside; i++)
        inside = base >= s->ddr[i].lo && hi <= s->ddr[i].hi;
      if (!inside) return FAIL(OUTSIDE_DDR);
    }
    if (!aligned(base, align)) return FAIL(MISALIGNED);
  }
  if (want >= 0 && slot_level(s, slot) != want) return FAIL(WRONG_SCOPE);
  if (want == NPU_VU_VM && want_core >= 0 && s->slots[slot].core != want_core) return FAIL(WRONG_CORE);
#undef FAIL
  out->hi = hi;
  out->slot = slot;
  return true;
}

static int64_t floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

/* Does byte interval [x, x+lx) meet plane p of b? (offsets relative to b.base) */
static bool row_meets_plane(int64_t x, int64_t lx, const Region *b, int64_t pbase) {
  if (b->rows == 1 || b->s1 == 0) return pbase < x + lx && pbase + b->len > x;
  /* rows r with pbase + r*s1 < x + lx  and  pbase + r*s1 + len > x */
  int64_t hi_r = floor_div(x + lx - pbase - 1, b->s1);
  int64_t lo_r = floor_div(x - b->len - pbase, b->s1) + 1;
  if (lo_r < 0) lo_r = 0;
  if (hi_r > b->rows - 1) hi_r = b->rows - 1;
  return lo_r <= hi_r;
}

static bool meets(const Region *a, const Region *b) {
  for (int64_t pa = 0; pa < a->planes; pa++)
    for (int64_t ra = 0; ra < a->rows; ra++) {
      int64_t x = (int64_t)(a->base - b->base) + pa * a->s2 + ra * a->s1;
      for (int64_t pb = 0; pb < b->planes; pb++)
        if (row_meets_plane(x, a->len, b, pb * b->s2)) return true;
    }
  return false;
}

bool region_overlap(const Region *a, const Region *b) {
  if (region_empty(a) || region_empty(b)) return false;
  if (a->hi <= b->base || b->hi <= a->base) return false;
  /* One contiguous side: the box test on the other is not exact, go on. */
  int64_t ca = a->rows * a->planes, cb = b->rows * b->planes;
  if (ca == 1 && cb == 1) return true;
  /* Walk the side whose rows times the other's planes is smaller. */
  if (ca * b->planes <= cb * a->planes) return meets(a, b);
  return meets(b, a);
}
