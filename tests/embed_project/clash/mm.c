/* Emits mm_one and mm_one_s, as more/mm.c does (its N and factor differ). */
#define N 4
void mm_one(const float x[N], float y[N]) {
  for (int i = 0; i < N; i++)
    y[i] = x[i] * 3.0f;
}
#pragma npu schedule(mm_one, mm_one_s)
#pragma npu split(i, 2, io, ii)
