package playlists

import (
	"errors"
	"fmt"
	"strings"
)

// Position keys order a playlist's entries: strings compared byte by byte,
// so a key can always be made between two neighbours without touching any
// other entry. This is the fractional indexing of rocicorp's
// fractional-indexing (David Greenspan's scheme, base 62): a key is an
// integer part, whose first character says how long it is ('a'..'z' for 2
// to 27 characters counting up, 'A'..'Z' for 2 to 27 counting down), and
// an optional fraction without trailing zeros. Appending increments the
// integer part, so 100,000 appends need keys of only 4 characters;
// inserting between two neighbours halves the gap in the fraction.

// MaxKeyBytes bounds a position key. Repeated insertion into one and the
// same gap lengthens keys by about one character per six insertions; past
// the bound the planner renumbers the playlist instead.
const MaxKeyBytes = 1024

const (
	keyDigits = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	keyBase   = len(keyDigits)
	// smallestInt is the lowest integer part; as a key on its own nothing
	// could come before it, so it is not a valid key.
	smallestInt = "A00000000000000000000000000"
)

// errKeySpace says no key fits between two neighbours within MaxKeyBytes
// or the integer range; the caller renumbers.
var errKeySpace = errors.New("playlists: no position key left between neighbours")

func digitVal(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'A' && c <= 'Z':
		return int(c-'A') + 10
	case c >= 'a' && c <= 'z':
		return int(c-'a') + 36
	}
	return -1
}

// intLen is the length of the integer part that head starts.
func intLen(head byte) (int, bool) {
	switch {
	case head >= 'a' && head <= 'z':
		return int(head-'a') + 2, true
	case head >= 'A' && head <= 'Z':
		return int('Z'-head) + 2, true
	}
	return 0, false
}

// ValidKey reports whether k is a position key this package makes and
// accepts: base-62 digits, a well-formed integer part, no trailing zero in
// the fraction, at most MaxKeyBytes.
func ValidKey(k string) bool {
	if k == "" || len(k) > MaxKeyBytes {
		return false
	}
	n, ok := intLen(k[0])
	if !ok || n > len(k) {
		return false
	}
	for i := 1; i < len(k); i++ {
		if digitVal(k[i]) < 0 {
			return false
		}
	}
	if k == smallestInt {
		return false
	}
	return !strings.HasSuffix(k[n:], "0")
}

func intPart(k string) string {
	n, _ := intLen(k[0])
	return k[:n]
}

// midpoint returns a fraction strictly between a and b (b absent: 1).
// Neither may end in a zero digit; a < b.
func midpoint(a, b string, hasB bool) string {
	if hasB {
		n := 0
		for n < len(b) && digitAt(a, n) == b[n] {
			n++
		}
		if n > 0 {
			return b[:n] + midpoint(suffix(a, n), b[n:], true)
		}
	}
	da := 0
	if a != "" {
		da = digitVal(a[0])
	}
	db := keyBase
	if hasB {
		db = digitVal(b[0])
	}
	if db-da > 1 {
		return string(keyDigits[(da+db+1)/2])
	}
	if hasB && len(b) > 1 {
		return b[:1]
	}
	return string(keyDigits[da]) + midpoint(suffix(a, 1), "", false)
}

func digitAt(s string, i int) byte {
	if i < len(s) {
		return s[i]
	}
	return '0'
}

func suffix(s string, i int) string {
	if i < len(s) {
		return s[i:]
	}
	return ""
}

func incrementInt(x string) (string, bool) {
	head, digs := x[0], []byte(x[1:])
	carry := true
	for i := len(digs) - 1; carry && i >= 0; i-- {
		if d := digitVal(digs[i]) + 1; d == keyBase {
			digs[i] = '0'
		} else {
			digs[i] = keyDigits[d]
			carry = false
		}
	}
	if !carry {
		return string(head) + string(digs), true
	}
	switch head {
	case 'Z':
		return "a0", true
	case 'z':
		return "", false
	}
	h := head + 1
	if h > 'a' {
		digs = append(digs, '0')
	} else {
		digs = digs[:len(digs)-1]
	}
	return string(h) + string(digs), true
}

func decrementInt(x string) (string, bool) {
	head, digs := x[0], []byte(x[1:])
	borrow := true
	for i := len(digs) - 1; borrow && i >= 0; i-- {
		if d := digitVal(digs[i]) - 1; d < 0 {
			digs[i] = 'z'
		} else {
			digs[i] = keyDigits[d]
			borrow = false
		}
	}
	if !borrow {
		return string(head) + string(digs), true
	}
	switch head {
	case 'a':
		return "Zz", true
	case 'A':
		return "", false
	}
	h := head - 1
	if h < 'Z' {
		digs = append(digs, 'z')
	} else {
		digs = digs[:len(digs)-1]
	}
	return string(h) + string(digs), true
}

// KeyBetween returns a key strictly between a and b; "" stands for the
// start (a) or the end (b) of the list. Both given keys must be valid and
// a < b.
func KeyBetween(a, b string) (string, error) {
	if (a != "" && !ValidKey(a)) || (b != "" && !ValidKey(b)) {
		return "", fmt.Errorf("playlists: invalid position key %q or %q", a, b)
	}
	if a != "" && b != "" && a >= b {
		return "", fmt.Errorf("playlists: position keys %q >= %q", a, b)
	}
	k, err := keyBetween(a, b)
	if err == nil && len(k) > MaxKeyBytes {
		err = errKeySpace
	}
	return k, err
}

func keyBetween(a, b string) (string, error) {
	switch {
	case a == "" && b == "":
		return "a0", nil
	case a == "":
		ib := intPart(b)
		fb := b[len(ib):]
		if ib == smallestInt {
			return ib + midpoint("", fb, true), nil
		}
		if ib < b {
			return ib, nil
		}
		k, ok := decrementInt(ib)
		if !ok {
			return "", errKeySpace
		}
		return k, nil
	case b == "":
		ia := intPart(a)
		fa := a[len(ia):]
		if k, ok := incrementInt(ia); ok {
			return k, nil
		}
		return ia + midpoint(fa, "", false), nil
	}
	ia, ib := intPart(a), intPart(b)
	fa, fb := a[len(ia):], b[len(ib):]
	if ia == ib {
		return ia + midpoint(fa, fb, true), nil
	}
	k, ok := incrementInt(ia)
	if !ok {
		return "", errKeySpace
	}
	if k < b {
		return k, nil
	}
	return ia + midpoint(fa, "", false), nil
}

// KeysBetween returns n increasing keys strictly between a and b ("" for
// an open end), spread so that their length grows with log(n).
func KeysBetween(a, b string, n int) ([]string, error) {
	if n <= 0 {
		return nil, nil
	}
	if n == 1 {
		k, err := KeyBetween(a, b)
		if err != nil {
			return nil, err
		}
		return []string{k}, nil
	}
	out := make([]string, 0, n)
	switch {
	case b == "":
		c := a
		for range n {
			k, err := KeyBetween(c, "")
			if err != nil {
				return nil, err
			}
			out = append(out, k)
			c = k
		}
		return out, nil
	case a == "":
		c := b
		for range n {
			k, err := KeyBetween("", c)
			if err != nil {
				return nil, err
			}
			out = append(out, k)
			c = k
		}
		for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
			out[i], out[j] = out[j], out[i]
		}
		return out, nil
	}
	mid := n / 2
	c, err := KeyBetween(a, b)
	if err != nil {
		return nil, err
	}
	lo, err := KeysBetween(a, c, mid)
	if err != nil {
		return nil, err
	}
	hi, err := KeysBetween(c, b, n-mid-1)
	if err != nil {
		return nil, err
	}
	out = append(append(append(out, lo...), c), hi...)
	return out, nil
}
