// Winograd F(4x4, 3x3) weight transform U = G g G^T of one 3x3 kernel, and its inverse: what
// the kWino43Block16O weight layout stores (ir/layout.h), shared by the offline packer and the
// CPU kernels' own packers.
#pragma once

namespace kiln {

// Transformed weights of one 3x3 kernel `g` (row-major): u[e], e = i * 6 + j, U = G g G^T with
// G as in Lavin & Gray, computed in double and rounded once.
void WinogradTransform43(const float g[9], float u[36]);
// Recovers the 3x3 kernel from its U (exact up to rounding): G has full column rank, and three
// of its rows ((1/4, 0, 0), (0, 0, 1) and the difference of rows 1 and 2) isolate g's columns.
void WinogradInverse43(const float u[36], float g[9]);

}  // namespace kiln
