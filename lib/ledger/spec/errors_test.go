package spec

import "testing"

// TestCheckAgentHighlightCap: the bounds and the words of --agent-cap,
// which ll-save, ll-index, linkledger mcp/serve and the store share.
func TestCheckAgentHighlightCap(t *testing.T) {
	for n := MinAgentHighlightCap - 1; n <= MaxAgentHighlightCap+1; n++ {
		err := CheckAgentHighlightCap(n)
		if ok := n >= MinAgentHighlightCap && n <= MaxAgentHighlightCap; ok != (err == nil) {
			t.Errorf("CheckAgentHighlightCap(%d) = %v", n, err)
		}
	}
	if err := CheckAgentHighlightCap(9); err == nil || err.Error() != "agent-cap 9: want 3..7" {
		t.Errorf("CheckAgentHighlightCap(9) = %v", err)
	}
}
