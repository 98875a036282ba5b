package xpost

import (
	"math"
	"strconv"
	"strings"
)

// SyndicationToken returns the token parameter the public embed widget
// sends to the syndication tweet-result endpoint: (id / 1e15 * π) written
// in base 36 the way JavaScript's Number.prototype.toString(36) writes it,
// with every run of zeros and the point removed.
func SyndicationToken(id string) string {
	f, err := strconv.ParseFloat(id, 64)
	if err != nil {
		return ""
	}
	s := jsRadixString(f/1e15*math.Pi, 36)
	s = strings.ReplaceAll(s, "0", "")
	return strings.ReplaceAll(s, ".", "")
}

// jsRadixString formats a finite non-negative double in the given radix as
// JavaScript engines do for non-integers: fraction digits are produced
// only while they are significant for the double (delta is half the
// distance to the next double), with round-half-even on the last digit.
func jsRadixString(value float64, radix int) string {
	const chars = "0123456789abcdefghijklmnopqrstuvwxyz"
	if value == 0 || math.IsNaN(value) || math.IsInf(value, 0) {
		return strconv.FormatFloat(value, 'g', -1, 64)
	}
	neg := value < 0
	value = math.Abs(value)
	integer := math.Floor(value)
	fraction := value - integer
	delta := 0.5 * (math.Nextafter(value, math.Inf(1)) - value)
	delta = math.Max(math.Nextafter(0, 1), delta)
	var frac []byte
	if fraction >= delta {
		for {
			fraction *= float64(radix)
			delta *= float64(radix)
			digit := int(fraction)
			frac = append(frac, chars[digit])
			fraction -= float64(digit)
			if fraction > 0.5 || (fraction == 0.5 && digit&1 == 1) {
				if fraction+delta > 1 {
					// Round up, carrying into earlier digits.
					for {
						i := len(frac) - 1
						if i < 0 {
							integer++
							break
						}
						c := frac[i]
						d := strings.IndexByte(chars, c)
						if d+1 < radix {
							frac[i] = chars[d+1]
							break
						}
						frac = frac[:i]
					}
					break
				}
			}
			if fraction < delta {
				break
			}
		}
	}
	var intDigits []byte
	for {
		rem := math.Mod(integer, float64(radix))
		intDigits = append([]byte{chars[int(rem)]}, intDigits...)
		integer = (integer - rem) / float64(radix)
		if integer <= 0 {
			break
		}
	}
	out := string(intDigits)
	if len(frac) > 0 {
		out += "." + string(frac)
	}
	if neg {
		out = "-" + out
	}
	return out
}
