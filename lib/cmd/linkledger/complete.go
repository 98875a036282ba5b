package linkledger

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	ucli "github.com/urfave/cli/v3"

	"github.com/linkledger/linkledger/lib/cli"
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
		hits, err := st.Recent(ctx, completeCount)
		if err != nil {
			return
		}
		for _, it := range hits {
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

// bashCompletion wraps urfave/cli's bash script action: its script needs
// the bash-completion package (_get_comp_words_by_ref), and without it
// every Tab printed "_get_comp_words_by_ref: command not found". The
// script it writes is given a fallback to bash's own COMP_WORDS.
func bashCompletion(act ucli.ActionFunc) ucli.ActionFunc {
	return func(ctx context.Context, c *ucli.Command) error {
		root := c.Root()
		w := root.Writer
		var b bytes.Buffer
		root.Writer = &b
		err := act(ctx, c)
		root.Writer = w
		if err != nil {
			return err
		}
		_, err = io.WriteString(w, bashWithoutPackage(b.String()))
		return err
	}
}

// bashCompletionCall is how urfave/cli's bash script asks bash-completion
// for the words; bashWithoutPackage makes it conditional.
const bashCompletionCall = `  else
    _get_comp_words_by_ref "$@" cur prev words cword
  fi`

// bashWithoutPackage makes script work whether or not bash-completion is
// installed: when neither of its word functions exists, the words are
// bash's own (COMP_WORDS, COMP_CWORD), which is all linkledger's
// completion reads.
func bashWithoutPackage(script string) string {
	return strings.Replace(script, bashCompletionCall, `  elif declare -F _get_comp_words_by_ref >/dev/null 2>&1; then
    _get_comp_words_by_ref "$@" cur prev words cword
  else
    # no bash-completion package: bash's own words
    cur="${COMP_WORDS[COMP_CWORD]}"
    prev="${COMP_WORDS[COMP_CWORD-1]}"
    words=("${COMP_WORDS[@]}")
    cword=$COMP_CWORD
  fi`, 1)
}
