// Command benchproc times whole processes: it runs a command N times
// (sequentially, after a warm-up) and prints the median, p95, min and max
// wall time. "{i}" in an argument is replaced by the run number, so each run
// can save a different URL; --stdin FILE feeds a file to every run.
//
//	benchproc -n 200 -label "ll-save one URL" -- bin/ll-save https://bench.example/new/{i}
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"time"
)

func main() {
	n := flag.Int("n", 100, "timed runs")
	warm := flag.Int("warmup", 5, "untimed runs first")
	label := flag.String("label", "", "name printed with the result")
	stdin := flag.String("stdin", "", "file fed to each run's stdin")
	flag.Parse()
	args := flag.Args()
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, "benchproc: usage: benchproc [-n N] [-label L] [-stdin FILE] -- command args...")
		os.Exit(2)
	}
	run := func(i int) time.Duration {
		a := make([]string, len(args))
		for j, s := range args {
			a[j] = strings.ReplaceAll(s, "{i}", strconv.Itoa(i))
		}
		cmd := exec.Command(a[0], a[1:]...)
		if *stdin != "" {
			f, err := os.Open(*stdin)
			if err != nil {
				fmt.Fprintf(os.Stderr, "benchproc: %v\n", err)
				os.Exit(1)
			}
			defer f.Close()
			cmd.Stdin = f
		}
		start := time.Now()
		out, err := cmd.CombinedOutput()
		d := time.Since(start)
		if err != nil {
			if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 4 {
				fmt.Fprintf(os.Stderr, "benchproc: run %d: %v\n%s", i, err, out)
				os.Exit(1)
			}
		}
		return d
	}
	for i := 0; i < *warm; i++ {
		run(-1 - i)
	}
	ds := make([]time.Duration, *n)
	for i := range ds {
		ds[i] = run(i)
	}
	sort.Slice(ds, func(a, b int) bool { return ds[a] < ds[b] })
	q := func(p float64) time.Duration { return ds[int(p*float64(len(ds)-1)+0.5)] }
	ms := func(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d.Microseconds())/1000) }
	fmt.Printf("%-40s runs=%d  p50=%s  p95=%s  min=%s  max=%s\n", *label, *n, ms(q(0.5)), ms(q(0.95)), ms(ds[0]), ms(ds[len(ds)-1]))
}
