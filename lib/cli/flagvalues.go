package cli

import (
	"sync"
	"time"

	ucli "github.com/urfave/cli/v3"
)

// FlagValues reads the flag values of a parsed command as c.Bool,
// c.String and the like do, without their cost: urfave/cli finds a flag
// by building the name list of every flag before it, on every call (one
// ll-find run asked ~66 times, building ~1,700 name lists at start-up).
// FlagValues indexes the names once, in urfave/cli's lookup order (the
// command's flags, then its ancestors'; the first flag with a name wins),
// and falls back to the command for a name it does not hold.
type FlagValues struct {
	c     *ucli.Command
	flags map[string]ucli.Flag
}

// lastFlags keeps the index of the last command asked for: a process
// runs one command, whose flags several places read.
var lastFlags struct {
	sync.Mutex
	v *FlagValues
}

// Flags indexes c's flags by name (once for the last command asked for).
// The index holds the flags themselves, so it reads their values as they
// are when asked.
func Flags(c *ucli.Command) *FlagValues {
	lastFlags.Lock()
	defer lastFlags.Unlock()
	if v := lastFlags.v; v != nil && v.c == c {
		return v
	}
	v := &FlagValues{c: c, flags: make(map[string]ucli.Flag, 64)}
	lastFlags.v = v
	add := func(f ucli.Flag) {
		for _, n := range f.Names() {
			if _, ok := v.flags[n]; !ok {
				v.flags[n] = f
			}
		}
	}
	for _, p := range c.Lineage() {
		for _, f := range p.Flags {
			add(f)
		}
		for _, g := range p.MutuallyExclusiveFlags {
			for _, fs := range g.Flags {
				for _, f := range fs {
					add(f)
				}
			}
		}
	}
	return v
}

// Value is c.Value(name).
func (v *FlagValues) Value(name string) any {
	if f, ok := v.flags[name]; ok {
		return f.Get()
	}
	return v.c.Value(name)
}

// IsSet is c.IsSet(name).
func (v *FlagValues) IsSet(name string) bool {
	if f, ok := v.flags[name]; ok {
		return f.IsSet()
	}
	return v.c.IsSet(name)
}

// Bool is c.Bool(name).
func (v *FlagValues) Bool(name string) bool { b, _ := v.Value(name).(bool); return b }

// String is c.String(name).
func (v *FlagValues) String(name string) string { s, _ := v.Value(name).(string); return s }

// Int is c.Int(name).
func (v *FlagValues) Int(name string) int { n, _ := v.Value(name).(int); return n }

// Float is c.Float(name).
func (v *FlagValues) Float(name string) float64 { f, _ := v.Value(name).(float64); return f }

// Duration is c.Duration(name).
func (v *FlagValues) Duration(name string) time.Duration {
	d, _ := v.Value(name).(time.Duration)
	return d
}

// StringSlice is c.StringSlice(name).
func (v *FlagValues) StringSlice(name string) []string {
	s, _ := v.Value(name).([]string)
	return s
}
