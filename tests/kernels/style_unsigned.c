/* Style: unsigned arithmetic with defined wrap-around: rolling hash, checksums, unsigned division and modulo. */
#define N 640

void rolling_hash(const unsigned char s[N], unsigned h[N]) {
  int i;
  unsigned acc = 2166136261u;
  for (i = 0; i < N; i++) {
    acc = (acc ^ s[i]) * 16777619u;
    h[i] = acc;
  }
}

void adler_like(const unsigned char data[N], unsigned out[2]) {
  int i;
  unsigned a = 1, b = 0;
  for (i = 0; i < N; i++) {
    a = (a + data[i]) % 65521u;
    b = (b + a) % 65521u;
  }
  out[0] = a;
  out[1] = (b << 16) | a;
}

void udiv_mod(const unsigned x[N], unsigned d, unsigned q[N], unsigned r[N]) {
  int i;
  for (i = 0; i < N; i++) {
    q[i] = (x[i] * 1000u + 7u) / d;
    r[i] = (x[i] - 9u) % (d + 1u);
  }
}
