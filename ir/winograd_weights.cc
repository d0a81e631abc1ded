// G g G^T of F(4x4, 3x3) and its inverse on three rows of G.
#include "ir/winograd_weights.h"

namespace kiln {
namespace {

// G of F(4x4, 3x3) (6x3).
constexpr double kWinoG[6][3] = {{1.0 / 4, 0, 0},
                                 {-1.0 / 6, -1.0 / 6, -1.0 / 6},
                                 {-1.0 / 6, 1.0 / 6, -1.0 / 6},
                                 {1.0 / 24, 1.0 / 12, 1.0 / 6},
                                 {1.0 / 24, -1.0 / 12, 1.0 / 6},
                                 {0, 0, 1}};

}  // namespace

void WinogradTransform43(const float g[9], float u[36]) {
  double gk[6][3];  // G g
  for (int i = 0; i < 6; ++i) {
    for (int j = 0; j < 3; ++j) {
      gk[i][j] = kWinoG[i][0] * g[j] + kWinoG[i][1] * g[3 + j] + kWinoG[i][2] * g[6 + j];
    }
  }
  for (int i = 0; i < 6; ++i) {
    for (int l = 0; l < 6; ++l) {
      u[i * 6 + l] = static_cast<float>(gk[i][0] * kWinoG[l][0] + gk[i][1] * kWinoG[l][1] +
                                        gk[i][2] * kWinoG[l][2]);
    }
  }
}

void WinogradInverse43(const float u[36], float g[9]) {
  // U = h G^T with h = G g. Column 0 of G^T is (1/4, 0, 0) and column 5 is (0, 0, 1), and
  // columns 1, 2 give U1 = -(h0 + h1 + h2) / 6, U2 = (-h0 + h1 - h2) / 6, so
  // h = (4 U0, 3 (U2 - U1), U5) per row; the same three points recover g from h.
  double h[6][3];
  for (int i = 0; i < 6; ++i) {
    h[i][0] = 4.0 * u[i * 6 + 0];
    h[i][2] = u[i * 6 + 5];
    h[i][1] = 3.0 * (static_cast<double>(u[i * 6 + 2]) - u[i * 6 + 1]);
  }
  for (int j = 0; j < 3; ++j) {
    g[j] = static_cast<float>(4.0 * h[0][j]);
    g[6 + j] = static_cast<float>(h[5][j]);
    g[3 + j] = static_cast<float>(3.0 * (h[2][j] - h[1][j]));
  }
}

}  // namespace kiln
