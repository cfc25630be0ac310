/* A small CNN as a program of kernels, written plainly and unscheduled: conv 3x3 (padding by an if), ReLU, 2x2 max-pool and a fully connected layer, float. */
#include <math.h>

#define C_IN 3
#define C_OUT 8
#define H 16
#define W 16
#define PH 8
#define PW 8
#define CLASSES 10

void conv3x3(const float in[C_IN][H][W], const float wt[C_OUT][C_IN][3][3], const float bias[C_OUT],
             float out[C_OUT][H][W]) {
  for (int o = 0; o < C_OUT; o++)
    for (int y = 0; y < H; y++)
      for (int x = 0; x < W; x++) {
        float acc = bias[o];
        for (int c = 0; c < C_IN; c++)
          for (int ky = 0; ky < 3; ky++)
            for (int kx = 0; kx < 3; kx++) {
              int iy = y + ky - 1, ix = x + kx - 1;
              if (iy >= 0 && iy < H && ix >= 0 && ix < W)
                acc += in[c][iy][ix] * wt[o][c][ky][kx];
            }
        out[o][y][x] = acc;
      }
}

void relu(const float in[C_OUT][H][W], float out[C_OUT][H][W]) {
  for (int o = 0; o < C_OUT; o++)
    for (int y = 0; y < H; y++)
      for (int x = 0; x < W; x++)
        out[o][y][x] = fmaxf(in[o][y][x], 0.0f);
}

void maxpool2(const float in[C_OUT][H][W], float out[C_OUT][PH][PW]) {
  for (int o = 0; o < C_OUT; o++)
    for (int y = 0; y < PH; y++)
      for (int x = 0; x < PW; x++) {
        float m = in[o][2 * y][2 * x];
        for (int dy = 0; dy < 2; dy++)
          for (int dx = 0; dx < 2; dx++)
            if (in[o][2 * y + dy][2 * x + dx] > m) m = in[o][2 * y + dy][2 * x + dx];
        out[o][y][x] = m;
      }
}

void fc(const float in[C_OUT][PH][PW], const float w[CLASSES][C_OUT][PH][PW], const float b[CLASSES],
        float out[CLASSES]) {
  for (int k = 0; k < CLASSES; k++) {
    float s = b[k];
    for (int o = 0; o < C_OUT; o++)
      for (int y = 0; y < PH; y++)
        for (int x = 0; x < PW; x++)
          s += in[o][y][x] * w[k][o][y][x];
    out[k] = s;
  }
}

void net(const float image[C_IN][H][W], const float cw[C_OUT][C_IN][3][3], const float cb[C_OUT],
         const float fw[CLASSES][C_OUT][PH][PW], const float fb[CLASSES], float logits[CLASSES]) {
  float a[C_OUT][H][W];
  float r[C_OUT][H][W];
  float p[C_OUT][PH][PW];
  conv3x3(image, cw, cb, a);
  relu(a, r);
  maxpool2(r, p);
  fc(p, fw, fb, logits);
}
