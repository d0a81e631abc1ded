// The DSP ops' innermost loop, per CPU flavour: one weight times rows of centred 8-bit codes
// added to rows of int32 sums, acc[r * acc_stride + i] += w * (x[r * x_stride + i * step] -
// zero) for i < n, r < rows, step 1 or 2 (the convolution's horizontal stride). The DSP
// convolution spends its time here (one call per output channel, input channel and window tap,
// over the tile's output rows). AVX-512 (intrinsics, row tails under a mask), AVX2 and portable
// (the same C++ compiled with each ISA's flags); integer arithmetic, so they agree bit for bit.
#pragma once

#include <cstdint>
#include <vector>

namespace kiln {

using DspMacRowU8Fn = void (*)(const uint8_t* x, int64_t x_stride, int32_t* acc, int64_t acc_stride,
                               int64_t rows, int64_t n, int64_t step, int32_t w, int32_t zero);
using DspMacRowI8Fn = void (*)(const int8_t* x, int64_t x_stride, int32_t* acc, int64_t acc_stride,
                               int64_t rows, int64_t n, int64_t step, int32_t w, int32_t zero);

// The DSP convolution's 4-channel dot product over rows (weights in the kDspK4 layout, input
// channels interleaved by 4 in the scratchpad): acc[r * acc_stride + i] += sum over j < 4 of
// xq[r * x_stride + 4 * i * step + j] (u8) * w4 byte j (s8), for i < n, r < rows, step 1 or 2.
// The AVX-512 VNNI flavour is one vpdpbusd per 16 outputs; reads whole 16-output groups (64 or
// 128 bytes from the group's start), so xq rows must extend that far.
using DspDotQ4Fn = void (*)(const uint8_t* xq, int64_t x_stride, int32_t* acc, int64_t acc_stride,
                            int64_t rows, int64_t n, int64_t step, int32_t w4);

struct DspRowKernels {
  const char* name = "portable";
  DspMacRowU8Fn mac_u8 = nullptr;
  DspMacRowI8Fn mac_i8 = nullptr;
  DspDotQ4Fn dot_q4 = nullptr;
};

// The best flavour this CPU runs (chosen once).
const DspRowKernels& BestDspRowKernels();
// Every flavour this CPU runs, portable first (tests).
std::vector<const DspRowKernels*> AvailableDspRowKernels();

void DspMacRowU8Portable(const uint8_t* x, int64_t x_stride, int32_t* acc, int64_t acc_stride,
                         int64_t rows, int64_t n, int64_t step, int32_t w, int32_t zero);
void DspMacRowI8Portable(const int8_t* x, int64_t x_stride, int32_t* acc, int64_t acc_stride,
                         int64_t rows, int64_t n, int64_t step, int32_t w, int32_t zero);
void DspDotQ4Portable(const uint8_t* xq, int64_t x_stride, int32_t* acc, int64_t acc_stride,
                      int64_t rows, int64_t n, int64_t step, int32_t w4);
#if defined(__x86_64__) || defined(__i386__)
void DspMacRowU8Avx2(const uint8_t* x, int64_t x_stride, int32_t* acc, int64_t acc_stride,
                     int64_t rows, int64_t n, int64_t step, int32_t w, int32_t zero);
void DspMacRowI8Avx2(const int8_t* x, int64_t x_stride, int32_t* acc, int64_t acc_stride,
                     int64_t rows, int64_t n, int64_t step, int32_t w, int32_t zero);
void DspMacRowU8Avx512(const uint8_t* x, int64_t x_stride, int32_t* acc, int64_t acc_stride,
                       int64_t rows, int64_t n, int64_t step, int32_t w, int32_t zero);
void DspMacRowI8Avx512(const int8_t* x, int64_t x_stride, int32_t* acc, int64_t acc_stride,
                       int64_t rows, int64_t n, int64_t step, int32_t w, int32_t zero);
void DspDotQ4Avx512Vnni(const uint8_t* xq, int64_t x_stride, int32_t* acc, int64_t acc_stride,
                        int64_t rows, int64_t n, int64_t step, int32_t w4);
#endif

}  // namespace kiln
