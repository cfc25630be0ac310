/* `npugen intrinsics` explains every operand form it lists: each form
 * named in the families' lines ("add  vv: i8 i32 f32  vs: ..") has a
 * legend line above them ("  vv  vector-vector: dst[i] = a[i] OP b[i]").
 * Before, the legend was one sentence that left out sel_tc, red_first,
 * box_acc_i8 and most others. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "npugen.h"
#include "schedule/vu_families.h"

/* The legend's line of form (`  <form>  <meaning>`) in legend, with a
 * meaning of some words. */
static bool explained(const char *legend, const char *form) {
  char head[64];
  snprintf(head, sizeof head, "\n  %s ", form);
  const char *line = strstr(legend, head);
  if (!line) return false;
  const char *means = line + strlen(head);
  while (*means == ' ') means++;
  const char *end = strchr(means, '\n');
  return end && end - means >= 10;
}

Test(intrinsics_legend, every_form_the_families_list_has_a_legend_line) {
  char err[512];
  char *text = npg_intrinsics_describe(NULL, NULL, err, sizeof err);
  cr_assert_not_null(text, "%s", err);
  const char *table = strstr(text, "\nThe families, each with its forms and their types, then its members:\n");
  cr_assert(table, "%.2000s", text);
  char *legend = strndup(text, (size_t)(table - text) + 1);
  int forms = 0;
  /* the families' lines up to the blank line: a family's line names its
   * forms, each followed by ':'; its members' line starts with spaces */
  for (const char *line = strchr(table + 1, '\n') + 1; *line && *line != '\n'; line = strchr(line, '\n') + 1) {
    if (strncmp(line, "  ", 2) || line[2] == ' ') continue;
    const char *end = strchr(line, '\n');
    for (const char *p = line + 2; p < end; p++) {
      if (*p != ':') continue;
      const char *start = p;
      while (start > line && start[-1] != ' ') start--;
      char form[32];
      snprintf(form, sizeof form, "%.*s", (int)(p - start), start);
      cr_expect(explained(legend, form), "form %s is listed but has no legend line:\n%s", form, legend);
      forms++;
    }
  }
  /* every form of the table is listed */
  int n;
  const SchedVuOp *ops = sched_vu_ops(&n);
  for (int i = 0; i < n; i++) {
    char listed[40];
    snprintf(listed, sizeof listed, "  %s:", ops[i].form);
    cr_expect(strstr(table, listed), "%s's form %s is not in the families' lines", ops[i].name, ops[i].form);
  }
  cr_expect_gt(forms, 20);
  cr_expect(explained(legend, "sel_tc") && explained(legend, "red_first") && explained(legend, "box_acc_i8"), "%s",
            legend);
  free(legend);
  free(text);
}
