/* Style: char, signed char, unsigned char, short and unsigned element and scalar types. */
#define N 333

void char_types(const char c[N], const signed char sc[N], const unsigned char uc[N], short out[N]) {
  int i;
  for (i = 0; i < N; i++)
    out[i] = (short)(c[i] * 3 + sc[i] * uc[i]);
}

void short_unsigned(const short s[N], const unsigned u[N], unsigned k, unsigned out[N], int si[N]) {
  int i;
  for (i = 0; i < N; i++) {
    out[i] = u[i] * k + (unsigned)s[i];
    si[i] = s[i] * s[i] - (int)(u[i] % 5u);
  }
}

void uchar_hist(const unsigned char img[N], unsigned hist[256]) {
  int i;
  for (i = 0; i < 256; i++)
    hist[i] = 0;
  for (i = 0; i < N; i++)
    hist[img[i]] += 1;
}

void schar_clamp(const short x[N], short gain, signed char y[N], unsigned char z[N]) {
  int i;
  for (i = 0; i < N; i++) {
    int v = x[i] * gain * 3;
    y[i] = (signed char)(v > 127 ? 127 : (v < -128 ? -128 : v));
    z[i] = (unsigned char)(v < 0 ? 0 : v);
  }
}
