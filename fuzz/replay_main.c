/* A main for a libFuzzer harness without libFuzzer: runs the harness once
 * on each file named, as `fuzz_frontend FILE...` replays inputs. `make
 * test` builds fuzz/fuzz_frontend.c with it in the ASan+UBSan build and
 * replays the fuzzer's findings, fuzz/regressions (fuzz-frontend-replay),
 * so the harness keeps building and running; the fuzzing itself, which
 * needs clang's coverage build, is `make fuzz-frontend`. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv) {
  for (int i = 1; i < argc; i++) {
    FILE *f = fopen(argv[i], "rb");
    if (!f) {
      perror(argv[i]);
      return 1;
    }
    size_t cap = 1 << 16, n = 0, got;
    uint8_t *buf = malloc(cap);
    while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0)
      if ((n += got) == cap) {
        uint8_t *more = realloc(buf, cap *= 2);
        if (!more) free(buf); /* realloc keeps buf on failure */
        buf = more;
      }
    fclose(f);
    if (!buf) return 1;
    LLVMFuzzerTestOneInput(buf, n);
    free(buf);
  }
  printf("fuzz-frontend-replay: %d inputs\n", argc - 1);
  return 0;
}
