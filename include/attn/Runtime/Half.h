//===- Half.h - 16-bit float conversions on the host ------------*- C++ -*-===//

#ifndef ATTN_RUNTIME_HALF_H
#define ATTN_RUNTIME_HALF_H

#include <cmath>
#include <cstdint>
#include <cstring>

namespace attn {

inline uint32_t floatBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
inline float bitsFloat(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

/// bfloat16, rounded to nearest even; NaN stays NaN.
inline uint16_t floatToBf16(float f) {
  uint32_t u = floatBits(f);
  if (std::isnan(f))
    return 0x7fc0;
  u += 0x7fff + ((u >> 16) & 1);
  return static_cast<uint16_t>(u >> 16);
}
inline float bf16ToFloat(uint16_t h) { return bitsFloat(uint32_t(h) << 16); }

/// IEEE half, rounded to nearest even, with subnormals and infinities.
inline uint16_t floatToHalf(float f) {
  uint32_t u = floatBits(f);
  uint32_t sign = (u >> 16) & 0x8000;
  uint32_t exponent = (u >> 23) & 0xff;
  uint32_t mantissa = u & 0x7fffff;
  if (exponent == 0xff)
    return static_cast<uint16_t>(sign | 0x7c00 | (mantissa ? 0x200 : 0));
  int e = int(exponent) - 127 + 15;
  if (e >= 31)
    return static_cast<uint16_t>(sign | 0x7c00);
  if (e <= 0) {
    if (e < -10)
      return static_cast<uint16_t>(sign);
    mantissa |= 0x800000;
    int shift = 14 - e;
    uint32_t half = mantissa >> shift;
    uint32_t rest = mantissa & ((1u << shift) - 1), midpoint = 1u << (shift - 1);
    if (rest > midpoint || (rest == midpoint && (half & 1)))
      ++half;
    return static_cast<uint16_t>(sign | half);
  }
  uint32_t half = (uint32_t(e) << 10) | (mantissa >> 13);
  uint32_t rest = mantissa & 0x1fff;
  if (rest > 0x1000 || (rest == 0x1000 && (half & 1)))
    ++half; // may carry into the exponent, which is the right rounding
  return static_cast<uint16_t>(sign | half);
}

inline float halfToFloat(uint16_t h) {
  uint32_t sign = uint32_t(h & 0x8000) << 16;
  uint32_t exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
  if (exponent == 0x1f)
    return bitsFloat(sign | 0x7f800000 | (mantissa << 13));
  if (exponent == 0) {
    if (mantissa == 0)
      return bitsFloat(sign);
    float value = std::ldexp(float(mantissa), -24);
    return sign ? -value : value;
  }
  return bitsFloat(sign | ((exponent + 112) << 23) | (mantissa << 13));
}

} // namespace attn

#endif // ATTN_RUNTIME_HALF_H
