/* frontend finding (a probe of fuzz/fuzz_frontend.c: deep nesting, as
 * DESIGN.md section 8 lists): a kernel of 120 nested loops hung the harness
 * (over 60 s; the libFuzzer timeout is 25 s). The syntax-depth limit (200)
 * allowed it, and the bounds check (ir/bounds.c) builds an isl set with one
 * dimension per enclosing loop for every loop and access: 30 levels took
 * 1 s, 60 took 5 s, 120 about a minute (normal build), and schedules
 * deepen nests further.
 * Status: fixed (frontend/stmt.c: loops nest at most FE_MAX_LOOP_DEPTH = 16
 * levels, twice the array rank limit; 16 levels take 0.7 s in the fuzz
 * build).
 * Expect: refused 30:35: error: loops nested too deeply (the limit is 16 levels)
 */
void f(int y[4]) {
  for (int i0 = 0; i0 < 2; i0++)
    for (int i1 = 0; i1 < 2; i1++)
      for (int i2 = 0; i2 < 2; i2++)
        for (int i3 = 0; i3 < 2; i3++)
          for (int i4 = 0; i4 < 2; i4++)
            for (int i5 = 0; i5 < 2; i5++)
              for (int i6 = 0; i6 < 2; i6++)
                for (int i7 = 0; i7 < 2; i7++)
                  for (int i8 = 0; i8 < 2; i8++)
                    for (int i9 = 0; i9 < 2; i9++)
                      for (int i10 = 0; i10 < 2; i10++)
                        for (int i11 = 0; i11 < 2; i11++)
                          for (int i12 = 0; i12 < 2; i12++)
                            for (int i13 = 0; i13 < 2; i13++)
                              for (int i14 = 0; i14 < 2; i14++)
                                for (int i15 = 0; i15 < 2; i15++)
                                  for (int i16 = 0; i16 < 2; i16++)
                                    y[0] = 1;
}
