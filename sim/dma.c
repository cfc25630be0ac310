/* The DMA engine: asynchronous 1-D/2-D/3-D strided copies on channels, tokens
 * and waits. A DMA takes latency + bytes / bandwidth of the slowest level it
 * crosses; the data moves through that level's port, which all channels share
 * (the earliest free window of it: port_book). */
#include <stdlib.h>
#include <string.h>

#include "sim/internal.h"

static bool port_book(NpuSim *s, Port *p, uint64_t from, uint64_t len, uint64_t *at);

static npu_token_t dma(const char *file, int line, const char *op, int ch, void *dst,
                       ptrdiff_t ds1, ptrdiff_t ds2, const void *src, ptrdiff_t ss1,
                       ptrdiff_t ss2, int row_bytes, int rows, int planes) {
  Site site;
  NpuSim *s = sim_enter(file, line, op, &site);
  if (!s) return 0;
  if (ch < 0 || ch >= s->t.dma_channels) {
    sim_fail(s, site, op, "DMA channel %d does not exist (the target has channels 0..%lld)", ch,
             (long long)s->t.dma_channels - 1);
    return 0;
  }
  if (row_bytes < 0 || rows < 0 || planes < 0) {
    sim_fail(s, site, op, "negative shape: row_bytes=%d rows=%d planes=%d", row_bytes, rows,
             planes);
    return 0;
  }
  if (ds1 < 0 || ds2 < 0 || ss1 < 0 || ss2 < 0) {
    sim_fail(s, site, op, "negative stride: dst %td/%td, src %td/%td", ds1, ds2, ss1, ss2);
    return 0;
  }
  int64_t bytes = (int64_t)row_bytes * rows * planes;
  if (bytes > 0 && rows > 1 && ds1 < row_bytes) {
    sim_fail(s, site, op, "destination rows overlap: dst_stride %td < row_bytes %d", ds1,
             row_bytes);
    return 0;
  }
  if (bytes > 0 && planes > 1 && ds2 < ds1 * (rows - 1) + row_bytes) {
    sim_fail(s, site, op, "destination planes overlap: dst_stride2 %td < %td", ds2,
             ds1 * (rows - 1) + row_bytes);
    return 0;
  }
  Region d, sr;
  if (!region_make(s, site, op, "dst", dst, row_bytes, rows, ds1, planes, ds2, -1, -1, 1, &d) ||
      !region_make(s, site, op, "src", src, row_bytes, rows, ss1, planes, ss2, -1, -1, 1, &sr))
    return 0;
  if (bytes > 0 && d.slot < 0 && sr.slot < 0) {
    sim_fail(s, site, op, "both src and dst are in ddr; a DMA needs an on-chip end");
    return 0;
  }
  if (region_overlap(&d, &sr)) { /* the copy's result would depend on its order of bytes */
    char a[160], b[160];
    sim_fail(s, site, op, "source %s and destination %s overlap", region_str(s, &sr, a, sizeof a),
             region_str(s, &d, b, sizeof b));
    return 0;
  }
  if (s->npending == s->t.dma_max_tokens) {
    sim_fail(s, site, op, "more than %lld DMAs outstanding (is npu_dma_wait missing?)",
             (long long)s->t.dma_max_tokens);
    return 0;
  }
  if (s->next_token == INT32_MAX) {
    sim_fail(s, site, op, "DMA token space exhausted");
    return 0;
  }
  if (!hazard_check_read(s, site, op, "src", &sr) || !hazard_check_write(s, site, op, "dst", &d))
    return 0;

  /* timing */
  int track = TRACK_DMA(s, ch);
  uint64_t t = cu_issue(s, track, site);
  uint64_t dep = interlock_ready(s, &sr, 1, &d, 1);
  if (s->tl[track].free_at > t) t = s->tl[track].free_at;
  if (dep > t) t = dep;
  uint64_t start = t, end = t;
  bool via_ddr = d.slot < 0 || sr.slot < 0;
  if (bytes > 0) {
    Port *port = via_ddr ? &s->ddr_port : &s->dm_port;
    uint64_t bw = (uint64_t)(via_ddr ? s->t.ddr_bandwidth : s->t.dm_bandwidth);
    uint64_t lat = (uint64_t)(via_ddr ? s->t.ddr_latency : s->t.dm_latency);
    uint64_t xfer = ceil_div_u64((uint64_t)bytes, bw), tx;
    if (!port_book(s, port, start, xfer, &tx)) {
      sim_fail(s, site, op, "out of memory");
      return 0;
    }
    end = tx + xfer + lat;
    *(via_ddr ? &s->ddr_work : &s->dm_work) += xfer;
  }
  tl_run(s, track, start, end);
  s->bytes_read[slot_level(s, sr.slot)] += (uint64_t)bytes;
  s->bytes_written[slot_level(s, d.slot)] += (uint64_t)bytes;
  s->transfers++;

  npu_token_t token = s->next_token++;
  s->pending[s->npending++] = (PendingDma){token, ch, sr, d, end, site, op};
  if (s->tracing) {
    char a[160], b[160];
    trace_event(s, track, start, end - start, op, site, "token %d: %lld B %s -> %s", (int)token,
                (long long)bytes, region_str(s, &sr, a, sizeof a), region_str(s, &d, b, sizeof b));
  }

  /* data: moved now; the token discipline makes that unobservable */
  unsigned char *dp = dst;
  const unsigned char *sp = src;
  if (bytes == 0) return token;
  if ((rows == 1 || (ds1 == row_bytes && ss1 == row_bytes)) && planes == 1) {
    memmove(dp, sp, (size_t)bytes);
    return token;
  }
  for (int p = 0; p < planes; p++)
    for (int r = 0; r < rows; r++)
      memmove(dp + p * ds2 + r * ds1, sp + p * ss2 + r * ss1, (size_t)row_bytes);
  return token;
}

/* Books len cycles of the port in its earliest free window from `from`.
 * Windows that ended before the control unit's time are dropped: nothing
 * issued from now on starts before it. */
static bool port_book(NpuSim *s, Port *p, uint64_t from, uint64_t len, uint64_t *at) {
  int k = 0;
  for (int i = 0; i < p->n; i++)
    if (p->v[i].hi > s->cu_time) p->v[k++] = p->v[i];
  p->n = k;
  uint64_t t = from;
  int pos = 0;
  for (; pos < p->n; pos++) {
    if (t + len <= p->v[pos].lo) break;
    if (p->v[pos].hi > t) t = p->v[pos].hi;
  }
  if (p->n == p->cap) {
    int cap = p->cap ? 2 * p->cap : 16;
    Busy *v = realloc(p->v, sizeof *v * (size_t)cap);
    if (!v) return false;
    p->v = v;
    p->cap = cap;
  }
  memmove(&p->v[pos + 1], &p->v[pos], sizeof *p->v * (size_t)(p->n - pos));
  p->v[pos] = (Busy){t, t + len};
  p->n++;
  *at = t;
  return true;
}

npu_token_t npu_dma_1d_at(const char *file, int line, int ch, void *dst, const void *src,
                          int bytes) {
  return dma(file, line, "npu_dma_1d", ch, dst, bytes, 0, src, bytes, 0, bytes, 1, 1);
}

npu_token_t npu_dma_2d_at(const char *file, int line, int ch, void *dst, ptrdiff_t dst_stride,
                          const void *src, ptrdiff_t src_stride, int row_bytes, int rows) {
  return dma(file, line, "npu_dma_2d", ch, dst, dst_stride, 0, src, src_stride, 0, row_bytes,
             rows, 1);
}

npu_token_t npu_dma_3d_at(const char *file, int line, int ch, void *dst, ptrdiff_t dst_stride,
                          ptrdiff_t dst_stride2, const void *src, ptrdiff_t src_stride,
                          ptrdiff_t src_stride2, int row_bytes, int rows, int planes) {
  return dma(file, line, "npu_dma_3d", ch, dst, dst_stride, dst_stride2, src, src_stride,
             src_stride2, row_bytes, rows, planes);
}

void npu_dma_wait_at(const char *file, int line, npu_token_t token) {
  Site site;
  NpuSim *s = sim_enter(file, line, "npu_dma_wait", &site);
  if (!s) return;
  if (token == 0) { /* no DMA was issued (the ABI's "none") */
    cu_issue_sync(s);
    return;
  }
  int i = 0;
  while (i < s->npending && s->pending[i].token != token) i++;
  if (i == s->npending) {
    if (token <= 0 || token >= s->next_token)
      sim_fail(s, site, "npu_dma_wait", "unknown DMA token %d", (int)token);
    else
      cu_issue_sync(s); /* already waited for: a no-op */
    return;
  }
  uint64_t end = s->pending[i].end;
  memmove(&s->pending[i], &s->pending[i + 1], (size_t)(s->npending - i - 1) * sizeof *s->pending);
  s->npending--;
  cu_issue_sync(s);
  cu_wait_until(s, end, site, "npu_dma_wait");
}
