package fairshare

import (
	"math"
	"math/bits"
)

// cmpQuot returns the sign of x − a·b/q computed exactly, for finite float64
// values and q ≠ 0: how x compares with a round's exact share.
func cmpQuot(x, a, b, q float64) int {
	return cmpProd(x, q, a, b) * sign(q)
}

// cmpProd returns the sign of a·b − c·d computed exactly (no rounding), for
// finite float64 values. Each product of two 53-bit significands fits in
// 128 bits, and two products whose leading bits are at the same position
// align within 128 bits, so no big numbers are needed.
func cmpProd(a, b, c, d float64) int {
	if isBad(a) || isBad(b) || isBad(c) || isBad(d) {
		return sign(a*b - c*d)
	}
	m1, e1, s1 := product(a, b)
	m2, e2, s2 := product(c, d)
	switch {
	case s1 == 0:
		return -s2
	case s2 == 0, s1 != s2:
		return s1
	}
	return s1 * cmpMagnitude(m1, e1, m2, e2)
}

// isBad reports whether f is ±Inf or NaN (for which f − f is NaN).
func isBad(f float64) bool { return f-f != 0 }

// u128 is an unsigned 128-bit integer.
type u128 struct{ hi, lo uint64 }

func (u u128) bitLen() int {
	if u.hi != 0 {
		return 64 + bits.Len64(u.hi)
	}
	return bits.Len64(u.lo)
}

func (u u128) shl(n int) u128 {
	switch {
	case n == 0:
		return u
	case n >= 64:
		return u128{u.lo << (n - 64), 0}
	}
	return u128{u.hi<<n | u.lo>>(64-n), u.lo << n}
}

func (u u128) cmp(v u128) int {
	switch {
	case u.hi != v.hi:
		return cmpU(u.hi, v.hi)
	default:
		return cmpU(u.lo, v.lo)
	}
}

func cmpU(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// significand returns f = m · 2^e with m odd (0 for f = 0), and f's sign,
// for finite f, from its bits.
func significand(f float64) (m uint64, e int, s int) {
	if f == 0 {
		return 0, 0, 0
	}
	b := math.Float64bits(f)
	exp := int(b>>52) & 0x7ff
	m = b & (1<<52 - 1)
	if exp == 0 {
		exp = 1 // subnormal: no implicit bit
	} else {
		m |= 1 << 52
	}
	tz := bits.TrailingZeros64(m)
	return m >> tz, exp - 1075 + tz, sign(f)
}

// product returns |a·b| = m · 2^e exactly, and the product's sign.
func product(a, b float64) (m u128, e int, s int) {
	ma, ea, sa := significand(a)
	mb, eb, sb := significand(b)
	hi, lo := bits.Mul64(ma, mb)
	return u128{hi, lo}, ea + eb, sa * sb
}

// cmpMagnitude compares m1·2^e1 with m2·2^e2 (m1, m2 > 0).
func cmpMagnitude(m1 u128, e1 int, m2 u128, e2 int) int {
	l1, l2 := m1.bitLen()+e1, m2.bitLen()+e2
	if l1 != l2 {
		if l1 < l2 {
			return -1
		}
		return 1
	}
	// Same leading position: shifting the one with the larger exponent
	// left brings it to the other's bit length, at most 106 bits.
	if e1 > e2 {
		m1 = m1.shl(e1 - e2)
	} else {
		m2 = m2.shl(e2 - e1)
	}
	return m1.cmp(m2)
}
