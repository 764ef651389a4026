// The scalar semantics of score_mod regions on the device: the helpers the
// emitted scoreMod() calls (the table in include/attn/Dialect/Attn/IR/
// ScoreModOps.h names them; its header comment gives the semantics).
//
// Integers are held as bool (i1), int (i32) and long long (i64, index).
// Every operation is defined for every input: arithmetic wraps (computed on
// the unsigned bit pattern), x / 0 is 0 and x % 0 is x, MIN / -1 wraps,
// shifts by the width or more saturate, float-to-integer conversions
// saturate with NaN giving 0. A true i1 is -1 when read as signed.
//
// The integer helpers are plain C++, so the unit tests compile this header
// on the host (ATTN_SCOREMOD_HOST) and compare it with the reference.
#pragma once

#ifdef ATTN_SCOREMOD_HOST
#include <cstring>
#define ATTN_SCOREMOD_FN inline
#else
#include "attn/common.cuh"
#define ATTN_SCOREMOD_FN __device__ __forceinline__
#endif

namespace attn {
namespace scoremod {

template <class T> struct Int;
// The unsigned and signed types that hold a value, its width, and 2^(w-1)
// and 2^w as floats (exact), the saturation bounds of float conversions.
template <> struct Int<bool> {
  using U = unsigned;
  using S = int;
  static constexpr int kWidth = 1;
  static constexpr float kHalfRange = 1.0f, kRange = 2.0f;
};
template <> struct Int<int> {
  using U = unsigned;
  using S = int;
  static constexpr int kWidth = 32;
  static constexpr float kHalfRange = 2147483648.0f, kRange = 4294967296.0f;
};
template <> struct Int<long long> {
  using U = unsigned long long;
  using S = long long;
  static constexpr int kWidth = 64;
  static constexpr float kHalfRange = 9223372036854775808.0f,
                         kRange = 18446744073709551616.0f;
};

/// The bit pattern, zero-extended (bool: 0 or 1).
template <class T> ATTN_SCOREMOD_FN typename Int<T>::U bits(T x) {
  return static_cast<typename Int<T>::U>(x);
}
/// The value read as signed (a true bool is -1).
template <class T> ATTN_SCOREMOD_FN typename Int<T>::S sval(T x) {
  if constexpr (Int<T>::kWidth == 1)
    return x ? -1 : 0;
  else
    return x;
}
/// The low kWidth bits of u as a T (the conversion to a signed type is
/// modular with every compiler attn uses; C++20 guarantees it).
template <class T> ATTN_SCOREMOD_FN T fromBits(unsigned long long u) {
  if constexpr (Int<T>::kWidth == 1)
    return (u & 1) != 0;
  else
    return static_cast<T>(static_cast<typename Int<T>::U>(u));
}
template <class T> ATTN_SCOREMOD_FN T fromSigned(long long v) {
  return fromBits<T>(static_cast<unsigned long long>(v));
}
template <class T> ATTN_SCOREMOD_FN T negate(T x) {
  return fromBits<T>(typename Int<T>::U(0) - bits(x));
}

template <class T> ATTN_SCOREMOD_FN T addi(T a, T b) { return fromBits<T>(bits(a) + bits(b)); }
template <class T> ATTN_SCOREMOD_FN T subi(T a, T b) { return fromBits<T>(bits(a) - bits(b)); }
template <class T> ATTN_SCOREMOD_FN T muli(T a, T b) { return fromBits<T>(bits(a) * bits(b)); }
template <class T> ATTN_SCOREMOD_FN T andi(T a, T b) { return fromBits<T>(bits(a) & bits(b)); }
template <class T> ATTN_SCOREMOD_FN T ori(T a, T b) { return fromBits<T>(bits(a) | bits(b)); }
template <class T> ATTN_SCOREMOD_FN T xori(T a, T b) { return fromBits<T>(bits(a) ^ bits(b)); }

template <class T> ATTN_SCOREMOD_FN T divui(T a, T b) {
  return bits(b) == 0 ? T(0) : fromBits<T>(bits(a) / bits(b));
}
template <class T> ATTN_SCOREMOD_FN T remui(T a, T b) {
  return bits(b) == 0 ? a : fromBits<T>(bits(a) % bits(b));
}
template <class T> ATTN_SCOREMOD_FN T ceildivui(T a, T b) {
  if (bits(b) == 0)
    return T(0);
  return fromBits<T>(bits(a) / bits(b) + (bits(a) % bits(b) != 0 ? 1 : 0));
}
// Signed division: a divisor of -1 negates (MIN wraps to MIN) so that the
// C++ division below never overflows.
template <class T> ATTN_SCOREMOD_FN T divsi(T a, T b) {
  if (sval(b) == 0)
    return T(0);
  if (sval(b) == -1)
    return negate(a);
  return fromSigned<T>(sval(a) / sval(b));
}
template <class T> ATTN_SCOREMOD_FN T remsi(T a, T b) {
  if (sval(b) == 0)
    return a;
  if (sval(b) == -1)
    return T(0);
  return fromSigned<T>(sval(a) % sval(b));
}
template <class T> ATTN_SCOREMOD_FN T ceildivsi(T a, T b) {
  if (sval(b) == 0)
    return T(0);
  if (sval(b) == -1)
    return negate(a);
  auto q = sval(a) / sval(b), r = sval(a) % sval(b);
  if (r != 0 && ((r > 0) == (sval(b) > 0)))
    ++q;
  return fromSigned<T>(q);
}
template <class T> ATTN_SCOREMOD_FN T floordivsi(T a, T b) {
  if (sval(b) == 0)
    return T(0);
  if (sval(b) == -1)
    return negate(a);
  auto q = sval(a) / sval(b), r = sval(a) % sval(b);
  if (r != 0 && ((r < 0) != (sval(b) < 0)))
    --q;
  return fromSigned<T>(q);
}

template <class T> ATTN_SCOREMOD_FN T shli(T a, T b) {
  return bits(b) >= unsigned(Int<T>::kWidth) ? T(0) : fromBits<T>(bits(a) << bits(b));
}
template <class T> ATTN_SCOREMOD_FN T shrui(T a, T b) {
  return bits(b) >= unsigned(Int<T>::kWidth) ? T(0) : fromBits<T>(bits(a) >> bits(b));
}
template <class T> ATTN_SCOREMOD_FN T shrsi(T a, T b) {
  const auto x = sval(a);
  if (bits(b) >= unsigned(Int<T>::kWidth))
    return x < 0 ? fromSigned<T>(-1) : T(0);
  // Shifts of non-negative values only: ~x is >= 0 when x < 0.
  return fromSigned<T>(x < 0 ? ~(~x >> bits(b)) : x >> bits(b));
}

template <class T> ATTN_SCOREMOD_FN bool slt(T a, T b) { return sval(a) < sval(b); }
template <class T> ATTN_SCOREMOD_FN bool ult(T a, T b) { return bits(a) < bits(b); }
template <class T> ATTN_SCOREMOD_FN T maxsi(T a, T b) { return slt(a, b) ? b : a; }
template <class T> ATTN_SCOREMOD_FN T minsi(T a, T b) { return slt(a, b) ? a : b; }
template <class T> ATTN_SCOREMOD_FN T maxui(T a, T b) { return ult(a, b) ? b : a; }
template <class T> ATTN_SCOREMOD_FN T minui(T a, T b) { return ult(a, b) ? a : b; }

/// arith.addui_extended's overflow flag.
template <class T> ATTN_SCOREMOD_FN bool addui_carry(T a, T b) {
  return ult(addi(a, b), a);
}
/// The high halves of the double-width products.
template <class T> ATTN_SCOREMOD_FN T mulsi_high(T a, T b) {
  if constexpr (Int<T>::kWidth == 64) {
#ifdef ATTN_SCOREMOD_HOST
    return static_cast<T>((static_cast<__int128>(a) * b) >> 64);
#else
    return __mul64hi(a, b);
#endif
  } else {
    const long long p = static_cast<long long>(sval(a)) * sval(b);
    return fromSigned<T>(p >> Int<T>::kWidth);
  }
}
template <class T> ATTN_SCOREMOD_FN T mului_high(T a, T b) {
  if constexpr (Int<T>::kWidth == 64) {
#ifdef ATTN_SCOREMOD_HOST
    using U128 = unsigned __int128;
    return static_cast<T>((static_cast<U128>(bits(a)) * bits(b)) >> 64);
#else
    return static_cast<T>(__umul64hi(bits(a), bits(b)));
#endif
  } else {
    const unsigned long long p =
        static_cast<unsigned long long>(bits(a)) * bits(b);
    return fromBits<T>(p >> Int<T>::kWidth);
  }
}

template <class T> ATTN_SCOREMOD_FN T absi(T a) { return sval(a) < 0 ? negate(a) : a; }
// Bit counts: the device's instructions, a loop on the host (tests only).
template <class T> ATTN_SCOREMOD_FN T ctpop(T a) {
#ifdef ATTN_SCOREMOD_HOST
  int n = 0;
  for (auto u = bits(a); u; u &= u - 1)
    ++n;
  return fromBits<T>(n);
#else
  if constexpr (Int<T>::kWidth == 64)
    return fromBits<T>(__popcll(bits(a)));
  else
    return fromBits<T>(__popc(bits(a)));
#endif
}
template <class T> ATTN_SCOREMOD_FN T ctlz(T a) {
  if constexpr (Int<T>::kWidth == 1)
    return !a;
#ifdef ATTN_SCOREMOD_HOST
  int n = 0;
  for (int i = Int<T>::kWidth - 1; i >= 0 && !((bits(a) >> i) & 1); --i)
    ++n;
  return fromBits<T>(n);
#else
  if constexpr (Int<T>::kWidth == 64)
    return fromBits<T>(__clzll(static_cast<long long>(bits(a))));
  else
    return fromBits<T>(__clz(static_cast<int>(bits(a))));
#endif
}
template <class T> ATTN_SCOREMOD_FN T cttz(T a) {
  if constexpr (Int<T>::kWidth == 1)
    return !a;
#ifdef ATTN_SCOREMOD_HOST
  int n = 0;
  for (int i = 0; i < Int<T>::kWidth && !((bits(a) >> i) & 1); ++i)
    ++n;
  return fromBits<T>(n);
#else
  // ffs is 1 + the lowest set bit's index, 0 for 0.
  int lowest;
  if constexpr (Int<T>::kWidth == 64)
    lowest = __ffsll(static_cast<long long>(bits(a)));
  else
    lowest = __ffs(static_cast<int>(bits(a)));
  return fromBits<T>(lowest == 0 ? Int<T>::kWidth : lowest - 1);
#endif
}

/// Sign- or zero-extends or truncates to R.
template <class R, class T> ATTN_SCOREMOD_FN R castsi(T a) {
  return fromSigned<R>(static_cast<long long>(sval(a)));
}
template <class R, class T> ATTN_SCOREMOD_FN R castui(T a) {
  return fromBits<R>(static_cast<unsigned long long>(bits(a)));
}

template <class T> ATTN_SCOREMOD_FN float sitofp(T a) { return static_cast<float>(sval(a)); }
template <class T> ATTN_SCOREMOD_FN float uitofp(T a) { return static_cast<float>(bits(a)); }

template <class R> ATTN_SCOREMOD_FN R fptosi(float x) {
  constexpr unsigned long long kMinBits = 1ull << (Int<R>::kWidth - 1);
  if (!(x == x))
    return R(0);
  if (x >= Int<R>::kHalfRange)
    return fromBits<R>(kMinBits - 1); // the largest value
  if (x <= -Int<R>::kHalfRange)
    return fromBits<R>(kMinBits); // the smallest
  return fromSigned<R>(static_cast<long long>(x));
}
template <class R> ATTN_SCOREMOD_FN R fptoui(float x) {
  if (!(x > -1.0f)) // NaN, or truncates below 0
    return R(0);
  if (x >= Int<R>::kRange)
    return fromSigned<R>(-1); // every bit set
  return fromBits<R>(static_cast<unsigned long long>(x));
}

ATTN_SCOREMOD_FN int floatAsInt(float x) {
#ifdef ATTN_SCOREMOD_HOST
  int i;
  std::memcpy(&i, &x, sizeof(i));
  return i;
#else
  return __float_as_int(x);
#endif
}
ATTN_SCOREMOD_FN float intAsFloat(int i) {
#ifdef ATTN_SCOREMOD_HOST
  float x;
  std::memcpy(&x, &i, sizeof(x));
  return x;
#else
  return __int_as_float(i);
#endif
}
/// arith.bitcast between i32 and f32.
template <class R> ATTN_SCOREMOD_FN R bitcast(float x) { return floatAsInt(x); }
template <class R> ATTN_SCOREMOD_FN R bitcast(int x) { return intAsFloat(x); }

/// arith.maximumf / minimumf: NaN if either is NaN; +0 is above -0.
ATTN_SCOREMOD_FN float maximumf(float a, float b) {
  if (!(a == a) || !(b == b))
    return a + b;
  if (a == 0.0f && b == 0.0f)
    return floatAsInt(a) < 0 ? b : a;
  return a > b ? a : b;
}
ATTN_SCOREMOD_FN float minimumf(float a, float b) {
  if (!(a == a) || !(b == b))
    return a + b;
  if (a == 0.0f && b == 0.0f)
    return floatAsInt(a) < 0 ? a : b;
  return a < b ? a : b;
}

// math's classifications (named apart from the C library's).
ATTN_SCOREMOD_FN bool isNaN(float x) { return !(x == x); }
ATTN_SCOREMOD_FN bool isInf(float x) { return (floatAsInt(x) & 0x7fffffff) == 0x7f800000; }
ATTN_SCOREMOD_FN bool isFinite(float x) { return (floatAsInt(x) & 0x7f800000) != 0x7f800000; }
ATTN_SCOREMOD_FN bool isNormal(float x) {
  const int exponent = floatAsInt(x) & 0x7f800000;
  return exponent != 0 && exponent != 0x7f800000;
}

/// The flat offset of a capture's element, each index clamped to its extent.
ATTN_SCOREMOD_FN long long clampIndex(long long i, long long extent) {
  return i < 0 ? 0 : i >= extent ? extent - 1 : i;
}

#ifndef ATTN_SCOREMOD_HOST
/// Element `i` of a captured tensor of element type E, as a score_mod value:
/// float for f32/F16/BF16, bool, int or long long for integers.
template <class E> struct Capture {
  static __device__ __forceinline__ float load(const void *p, long long i) {
    return ElementIO<E>::load(p, i);
  }
};
template <> struct Capture<bool> {
  static __device__ __forceinline__ bool load(const void *p, long long i) {
    return static_cast<const unsigned char *>(p)[i] != 0;
  }
};
template <> struct Capture<int> {
  static __device__ __forceinline__ int load(const void *p, long long i) {
    return static_cast<const int *>(p)[i];
  }
};
template <> struct Capture<long long> {
  static __device__ __forceinline__ long long load(const void *p, long long i) {
    return static_cast<const long long *>(p)[i];
  }
};
#endif

} // namespace scoremod
} // namespace attn

#undef ATTN_SCOREMOD_FN
