/* Trace events and their Chrome trace-event JSON (Perfetto, chrome://tracing):
 * one process "NPU", one thread (track) per unit and DMA channel, complete
 * ("X") events with 1 cycle shown as 1 microsecond. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/internal.h"

void trace_event(NpuSim *s, int track, uint64_t start, uint64_t dur, const char *name,
                 Site site, const char *fmt, ...) {
  if (!s->tracing) return;
  if (s->nev == NPUSIM_MAX_TRACE_EVENTS) {
    s->ev_dropped++;
    return;
  }
  if (s->nev == s->ev_cap) {
    size_t cap = s->ev_cap ? s->ev_cap * 2 : 256;
    TraceEvent *n = realloc(s->ev, cap * sizeof *n);
    if (!n) {
      s->ev_dropped++;
      return;
    }
    s->ev = n;
    s->ev_cap = cap;
  }
  TraceEvent *e = &s->ev[s->nev++];
  e->track = track;
  e->start = start;
  e->dur = dur;
  e->name = name;
  e->site = site;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(e->detail, sizeof e->detail, fmt, ap);
  va_end(ap);
}

static void json_str(FILE *f, const char *str) {
  fputc('"', f);
  for (const unsigned char *p = (const unsigned char *)str; *p; p++) {
    if (*p == '"' || *p == '\\') fprintf(f, "\\%c", *p);
    else if (*p < 0x20) fprintf(f, "\\u%04x", *p);
    else fputc(*p, f);
  }
  fputc('"', f);
}

void track_name(const NpuSim *s, int track, char *buf, size_t n) {
  if (track == TRACK_CU) snprintf(buf, n, "cu");
  else if (track == TRACK_NU) snprintf(buf, n, "nu");
  else if (track < TRACK_DMA(s, 0)) snprintf(buf, n, "vu%d", track - TRACK_VU(s, 0));
  else snprintf(buf, n, "dma%d", track - TRACK_DMA(s, 0));
}

static const char *track_cat(const NpuSim *s, int track) {
  return track == TRACK_CU ? "cu" : track == TRACK_NU ? "nu" : track < TRACK_DMA(s, 0) ? "vu" : "dma";
}

int npusim_write_trace_file(const NpuSim *s, FILE *f) {
  fprintf(f, "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"target\":");
  json_str(f, s->t.name);
  /* a cut trace says so where a reader of the file sees it first */
  fprintf(f, ",\"time_unit\":\"1 us = 1 cycle\",\"events_dropped\":%llu},\"traceEvents\":[\n",
          (unsigned long long)s->ev_dropped);
  fprintf(f, "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":1,\"tid\":0,\"args\":{\"name\":\"NPU\"}}");
  for (int t = 0; t < sim_ntracks(s); t++) {
    char name[16];
    track_name(s, t, name, sizeof name);
    fprintf(f, ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":%d,\"args\":{\"name\":\"%s\"}}", t, name);
    fprintf(f, ",\n{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":1,\"tid\":%d,\"args\":{\"sort_index\":%d}}", t, t);
  }
  for (size_t i = 0; i < s->nev; i++) {
    const TraceEvent *e = &s->ev[i];
    fprintf(f, ",\n{\"name\":");
    json_str(f, e->name);
    fprintf(f, ",\"cat\":\"%s\",\"ph\":\"X\",\"pid\":1,\"tid\":%d,\"ts\":%llu,\"dur\":%llu,\"args\":{\"site\":",
            track_cat(s, e->track), e->track, (unsigned long long)e->start, (unsigned long long)e->dur);
    char site[512];
    snprintf(site, sizeof site, "%s:%d", e->site.file, e->site.line);
    json_str(f, site);
    fprintf(f, ",\"detail\":");
    json_str(f, e->detail);
    fprintf(f, "}}");
  }
  if (s->ev_dropped)
    fprintf(f, ",\n{\"name\":\"trace cut: %llu later events dropped (the limit is %d)\",\"ph\":\"i\","
            "\"s\":\"g\",\"pid\":1,\"tid\":0,\"ts\":%llu}",
            (unsigned long long)s->ev_dropped, NPUSIM_MAX_TRACE_EVENTS,
            (unsigned long long)(s->nev ? s->ev[s->nev - 1].start : 0));
  fprintf(f, "\n]}\n");
  return ferror(f) ? -1 : 0;
}

int npusim_write_trace(const NpuSim *s, const char *path, char *err, size_t err_size) {
  FILE *f = fopen(path, "w");
  if (!f) {
    snprintf(err, err_size, "%s: cannot write trace: %s", path, strerror(errno));
    return -1;
  }
  int rc = npusim_write_trace_file(s, f);
  if (fclose(f) != 0) rc = -1;
  if (rc) snprintf(err, err_size, "%s: error while writing the trace", path);
  return rc;
}
