package linkledger

import (
	"context"
	"fmt"
	"os"
	"strings"

	ucli "github.com/urfave/cli/v3"

	"github.com/linkledger/linkledger/lib/cli"
	"github.com/linkledger/linkledger/lib/store"
	"github.com/linkledger/linkledger/lib/termsafe"
)

// completeCount bounds the item ids offered by shell completion.
const completeCount = 50

// tagFlags are the flags whose value is a tag, completed with the tags in
// use.
var tagFlags = map[string]bool{"--add": true, "--remove": true, "--tags": true, "--tag": true, "-t": true, "--untag": true}

// completeTags prints the tags in use, most used first, with their item
// counts, when the word before the cursor is a tag flag; it reports
// whether it was one.
func completeTags(ctx context.Context, c *ucli.Command, env cli.Env, args []string) bool {
	if len(args) == 0 || !tagFlags[args[len(args)-1]] {
		return false
	}
	path, err := cli.ResolveDB(c.String("db"), env)
	if err != nil {
		return true
	}
	st, err := openExisting(ctx, path, true)
	if err != nil {
		return true
	}
	defer st.Close()
	counts, err := st.TagCounts(ctx)
	if err != nil {
		return true
	}
	for i, tc := range counts {
		if i == completeCount {
			break
		}
		fmt.Fprintf(c.Root().Writer, "%s:%d items\n", tc.Tag, tc.Items)
	}
	return true
}

// completeItems completes a verb's flags (tags after a tag flag), and
// otherwise the ids of the most recent items with their titles
// ("id:title", as zsh and fish show descriptions). It opens the database
// read-only and never creates one: with no database there is nothing to
// offer.
func completeItems(env cli.Env) ucli.ShellCompleteFunc {
	return func(ctx context.Context, c *ucli.Command) {
		args := c.Args().Slice()
		if completeTags(ctx, c, env, args) {
			return
		}
		if len(args) > 0 && strings.HasPrefix(args[len(args)-1], "-") {
			ucli.DefaultCompleteWithFlags(ctx, c)
			return
		}
		if len(args) > 0 {
			return // the item is already there
		}
		path, err := cli.ResolveDB(c.String("db"), env)
		if err != nil {
			return
		}
		st, err := openExisting(ctx, path, true)
		if err != nil {
			return
		}
		defer st.Close()
		res, err := st.Recent(ctx, store.SearchOptions{Limit: completeCount})
		if err != nil {
			return
		}
		for _, it := range res.Hits {
			title := termsafe.Line(strings.ReplaceAll(it.Title, ":", " "))
			if title == "" {
				title = it.CanonicalURL
			}
			fmt.Fprintf(c.Root().Writer, "%s:%s\n", it.ID, title)
		}
	}
}

// fileExists reports whether path is an existing regular file.
func fileExists(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular()
}
