package eval

import (
	"fmt"
	"strconv"
	"strings"
)

// A Band is a range of missing rates (1 − |δ̃|/|δ|)·100 % for the incomplete local
// context setting (paper §6.2.3), in percent: Lo < rate ≤ Hi. The zero Band means
// the complete context.
//
// For each document of n terms, the number of removed terms r is drawn uniformly
// from the integers with Lo·n < 100·r ≤ Hi·n and r ≥ 1, r < n; documents for which
// no such r exists (too short to reach the band, e.g. fewer than 10 terms for
// 0-10) are skipped and counted in Result.Skipped. The removed terms are drawn
// uniformly. The paper names the first band "up to 10 %"; we require at least one
// removed term so that every evaluated document is actually incomplete.
type Band struct{ Lo, Hi int }

// The three bands of the paper (§6.2.3).
var (
	BandUpTo10 = Band{0, 10}
	Band10to30 = Band{10, 30}
	Band30to50 = Band{30, 50}
)

// IsZero reports whether b is the complete-context band.
func (b Band) IsZero() bool { return b == Band{} }

// String returns "Lo-Hi", or "" for the zero Band.
func (b Band) String() string {
	if b.IsZero() {
		return ""
	}
	return fmt.Sprintf("%d-%d", b.Lo, b.Hi)
}

// ParseBand parses one of the paper's three missing-rate bands (§6.2.3):
// "10" (also "<=10", "0-10"), "10-30" or "30-50", with an optional % sign.
// "" is the zero Band. Any other band, e.g. "99", is refused with an error
// naming the three.
func ParseBand(s string) (Band, error) {
	t := strings.TrimSpace(s)
	if t == "" {
		return Band{}, nil
	}
	t = strings.ReplaceAll(t, "%", "")
	t = strings.TrimPrefix(strings.TrimPrefix(t, "<="), "≤")
	lo, hi := "0", t
	if i := strings.IndexByte(t, '-'); i >= 0 {
		lo, hi = t[:i], t[i+1:]
	}
	l, err1 := strconv.Atoi(strings.TrimSpace(lo))
	h, err2 := strconv.Atoi(strings.TrimSpace(hi))
	b := Band{l, h}
	if err1 != nil || err2 != nil || (b != BandUpTo10 && b != Band10to30 && b != Band30to50) {
		return Band{}, fmt.Errorf("eval: missing-rate band %q is not one of the paper's three: 10 (up to 10 %%), 10-30 or 30-50", s)
	}
	return b, nil
}

// removals returns the smallest and largest number of terms to remove from a
// document of n terms to fall in b, and whether any exists.
func (b Band) removals(n int) (lo, hi int, ok bool) {
	lo = b.Lo*n/100 + 1 // smallest r with 100·r > Lo·n
	hi = b.Hi * n / 100 // largest r with 100·r ≤ Hi·n
	if lo < 1 {
		lo = 1
	}
	if hi > n-1 {
		hi = n - 1
	}
	return lo, hi, lo <= hi
}
