package cli

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// ParseSize parses a size flag's value: a byte count with an optional
// unit; k/KB/MB/GB are powers of 1000, KiB/MiB/GiB powers of 1024.
func ParseSize(s string) (int64, error) {
	s = strings.TrimSpace(s)
	i := len(s)
	for i > 0 && (s[i-1] < '0' || s[i-1] > '9') {
		i--
	}
	num, unit := s[:i], strings.ToLower(strings.TrimSpace(s[i:]))
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n < 1 {
		return 0, errors.New("want a positive size such as 1048576, 500k or 25MiB")
	}
	mult := map[string]int64{"": 1, "b": 1, "k": 1e3, "kb": 1e3, "kib": 1 << 10, "m": 1e6, "mb": 1e6, "mib": 1 << 20, "g": 1e9, "gb": 1e9, "gib": 1 << 30}[unit]
	if mult == 0 {
		return 0, fmt.Errorf("unknown unit %q", unit)
	}
	if n > (1<<62)/mult {
		return 0, errors.New("too big")
	}
	return n * mult, nil
}
