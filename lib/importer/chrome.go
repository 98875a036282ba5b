package importer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"time"
)

// Chrome, Chromium, Edge and Brave keep bookmarks in a JSON file named
// Bookmarks in the profile folder: {"roots": {"bookmark_bar", "other",
// "synced": node}}, a node being {"type": "url"|"folder", "name", "url",
// "date_added", "children"}, date_added in microseconds since 1601-01-01
// UTC (as a string). Folders below the roots become tags.
var chromeJSON = register(&Format{
	Name: "chrome", Tool: "chrome",
	Doc:  "Chrome/Chromium/Edge/Brave profile Bookmarks file (JSON)",
	Read: readChrome,
})

// chromeNode is a node of the bookmarks tree, with its children.
type chromeNode struct {
	Type, Name, URL, DateAdded string
	Children                   []*chromeNode
}

// webkitEpoch is 1601-01-01 in Unix seconds.
const webkitEpoch = 11644473600

func chromeTime(v string) time.Time {
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n <= 0 {
		return time.Time{}
	}
	return time.UnixMicro(n - webkitEpoch*1_000_000).UTC()
}

// readChrome reads the tree with a token decoder and explicit stacks, not
// json.Unmarshal and recursion: Unmarshal refuses a file nested deeper
// than 10,000 levels as a whole, losing every link in it, and recursion
// would follow a hostile depth. A link keeps the innermost maxFolderTags
// folders as tags.
func readChrome(data []byte, s *Sink) error {
	roots, err := chromeRoots(data)
	if err != nil {
		return fmt.Errorf("not a Bookmarks JSON file: %v", err)
	}
	n := 0
	for _, name := range []string{"bookmark_bar", "other", "synced"} {
		root := roots[name]
		if root == nil {
			continue
		}
		// depth-first, in file order; path holds the open folders' names
		type frame struct {
			nd   *chromeNode
			next int
		}
		stack := []frame{{nd: root}}
		var path []string
		for len(stack) > 0 {
			top := &stack[len(stack)-1]
			if top.next == len(top.nd.Children) {
				stack = stack[:len(stack)-1]
				if len(stack) > 0 { // the roots are not tags
					path = path[:len(path)-1]
				}
				continue
			}
			nd := top.nd.Children[top.next]
			top.next++
			switch nd.Type {
			case "url":
				n++
				l := &Link{URL: nd.URL, Title: nd.Name, Saved: chromeTime(nd.DateAdded), Tags: append([]string(nil), innermost(path)...)}
				if why := checkURL(l.URL); why != "" {
					if err := s.Bad(0, fmt.Sprintf("bookmark %d (%s): %s", n, firstLine(nd.Name, 60), why)); err != nil {
						return err
					}
					continue
				}
				if err := s.Link(l); err != nil {
					return err
				}
			case "folder":
				stack = append(stack, frame{nd: nd})
				path = append(path, nd.Name)
			}
		}
	}
	return nil
}

// chromeRoots decodes {"roots": {NAME: node, ...}, ...} into the root
// nodes by name. Other keys, at any depth, are skipped token by token.
func chromeRoots(data []byte) (map[string]*chromeNode, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := expectDelim(dec, '{'); err != nil {
		return nil, err
	}
	var roots map[string]*chromeNode
	for dec.More() {
		key, err := objectKey(dec)
		if err != nil {
			return nil, err
		}
		if key != "roots" || roots != nil {
			if err := skipValue(dec); err != nil {
				return nil, err
			}
			continue
		}
		roots = map[string]*chromeNode{}
		if err := expectDelim(dec, '{'); err != nil {
			return nil, fmt.Errorf("roots: %v", err)
		}
		for dec.More() {
			name, err := objectKey(dec)
			if err != nil {
				return nil, err
			}
			if ok, err := openValue(dec, '{'); err != nil {
				return nil, err
			} else if !ok {
				continue // "sync_transaction_version" and the like
			}
			nd, err := chromeTree(dec)
			if err != nil {
				return nil, fmt.Errorf("roots.%s: %v", name, err)
			}
			roots[name] = nd
		}
		if _, err := dec.Token(); err != nil { // the roots' '}'
			return nil, err
		}
	}
	if roots == nil {
		return nil, fmt.Errorf("no roots")
	}
	return roots, nil
}

// chromeTree decodes a node whose '{' was read, children and all, with an
// explicit stack: each level is an object being read, possibly inside its
// parent's "children" array.
func chromeTree(dec *json.Decoder) (*chromeNode, error) {
	root := &chromeNode{}
	stack := []*chromeNode{root}
	inChildren := []bool{false}
	for len(stack) > 0 {
		i := len(stack) - 1
		nd := stack[i]
		if inChildren[i] {
			// in nd's children array: a child object, or its end
			if !dec.More() {
				if _, err := dec.Token(); err != nil { // ']'
					return nil, err
				}
				inChildren[i] = false
				continue
			}
			if ok, err := openValue(dec, '{'); err != nil {
				return nil, err
			} else if !ok {
				continue // not a node
			}
			child := &chromeNode{}
			nd.Children = append(nd.Children, child)
			stack = append(stack, child)
			inChildren = append(inChildren, false)
			continue
		}
		if !dec.More() {
			if _, err := dec.Token(); err != nil { // '}'
				return nil, err
			}
			stack, inChildren = stack[:i], inChildren[:i]
			continue
		}
		key, err := objectKey(dec)
		if err != nil {
			return nil, err
		}
		var dst *string
		switch key {
		case "type":
			dst = &nd.Type
		case "name":
			dst = &nd.Name
		case "url":
			dst = &nd.URL
		case "date_added":
			dst = &nd.DateAdded
		case "children":
			if inChildren[i], err = openValue(dec, '['); err != nil {
				return nil, err
			}
			continue
		default:
			if err := skipValue(dec); err != nil {
				return nil, err
			}
			continue
		}
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		switch v := t.(type) {
		case string:
			*dst = v
		case json.Delim:
			if err := skipOpen(dec, v); err != nil {
				return nil, err
			}
		}
	}
	return root, nil
}

func expectDelim(dec *json.Decoder, want json.Delim) error {
	t, err := dec.Token()
	if err != nil {
		return err
	}
	if t != want {
		return fmt.Errorf("want %v, found %v", want, t)
	}
	return nil
}

func objectKey(dec *json.Decoder) (string, error) {
	t, err := dec.Token()
	if err != nil {
		return "", err
	}
	k, ok := t.(string)
	if !ok {
		return "", fmt.Errorf("want an object key, found %v", t)
	}
	return k, nil
}

// openValue reads the next value's first token: true when it opens
// want; any other value is skipped whole, and openValue returns false.
func openValue(dec *json.Decoder, want json.Delim) (bool, error) {
	t, err := dec.Token()
	if err != nil {
		return false, err
	}
	if t == want {
		return true, nil
	}
	if d, ok := t.(json.Delim); ok {
		return false, skipOpen(dec, d)
	}
	return false, nil
}

// skipValue reads one value and drops it, however deep.
func skipValue(dec *json.Decoder) error {
	t, err := dec.Token()
	if err != nil {
		return err
	}
	if d, ok := t.(json.Delim); ok {
		return skipOpen(dec, d)
	}
	return nil
}

// skipOpen drops the rest of an object or array whose opening d was read.
func skipOpen(dec *json.Decoder, d json.Delim) error {
	if d != '{' && d != '[' {
		return nil
	}
	for depth := 1; depth > 0; {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		switch t {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
	}
	return nil
}
