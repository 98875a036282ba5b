// Command benchmcp times tool calls inside a running MCP server (make
// bench): it starts `linkledger mcp --db FILE` once, connects the SDK's
// client over stdio as an agent's client would, and times each call from
// request to result (JSON-RPC over the pipes included, process start-up
// not), printing p50 and p95.
//
//	benchmcp -bin linkledger -db FILE -queries FILE -n RUNS -tool find|brief [-label L]
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	bin := flag.String("bin", "linkledger", "the linkledger binary")
	db := flag.String("db", "", "the database")
	qfile := flag.String("queries", "", "queries file, one per line")
	n := flag.Int("n", 300, "timed calls")
	tool := flag.String("tool", "find", "the tool: find or brief")
	label := flag.String("label", "", "name printed with the result")
	flag.Parse()
	if err := run(*bin, *db, *qfile, *tool, *label, *n); err != nil {
		fmt.Fprintln(os.Stderr, "benchmcp:", err)
		os.Exit(1)
	}
}

func run(bin, db, qfile, tool, label string, n int) error {
	b, err := os.ReadFile(qfile)
	if err != nil {
		return err
	}
	var qs []string
	for _, l := range strings.Split(string(b), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			qs = append(qs, l)
		}
	}
	if len(qs) == 0 || n < 1 {
		return fmt.Errorf("need queries and -n 1 or more")
	}
	ctx := context.Background()
	cmd := exec.Command(bin, "mcp", "--db", db)
	cmd.Stderr = os.Stderr
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "benchmcp", Version: "1"}, nil).Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		return err
	}
	defer cs.Close()
	call := func(i int) (time.Duration, error) {
		args := map[string]any{"query": qs[i%len(qs)]}
		if tool == "brief" {
			args["max_items"] = 20
		}
		start := time.Now()
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: tool, Arguments: args})
		d := time.Since(start)
		if err == nil && res.IsError {
			err = fmt.Errorf("%v", res.Content)
		}
		return d, err
	}
	for i := 0; i < 5; i++ {
		if _, err := call(i); err != nil {
			return err
		}
	}
	ds := make([]time.Duration, n)
	for i := range ds {
		if ds[i], err = call(i); err != nil {
			return err
		}
	}
	sort.Slice(ds, func(a, b int) bool { return ds[a] < ds[b] })
	q := func(p float64) time.Duration { return ds[int(p*float64(len(ds)-1)+0.5)] }
	ms := func(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d.Microseconds())/1000) }
	fmt.Printf("%-44s calls=%d queries=%d  p50=%s  p95=%s  min=%s  max=%s\n", label, n, len(qs), ms(q(0.5)), ms(q(0.95)), ms(ds[0]), ms(ds[len(ds)-1]))
	return nil
}
