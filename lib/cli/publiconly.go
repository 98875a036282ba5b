package cli

import (
	"strings"

	ucli "github.com/urfave/cli/v3"
)

// PublicOnlyEnv names the variable that turns --public-only on.
const PublicOnlyEnv = "LINKLEDGER_PUBLIC_ONLY"

// PublicOnly reads --public-only, or LINKLEDGER_PUBLIC_ONLY when the flag
// is not given (1, true, yes, on turn the guard on; 0, false, no, off or
// empty leave it off). ll-fetch and ll-index (for images) read it alike.
func PublicOnly(c *ucli.Command, env Env) (bool, error) {
	if c.IsSet("public-only") {
		return c.Bool("public-only"), nil
	}
	switch v := strings.ToLower(strings.TrimSpace(env.Getenv(PublicOnlyEnv))); v {
	case "", "0", "false", "no", "off":
		return false, nil
	case "1", "true", "yes", "on":
		return true, nil
	default:
		return false, Usage("LINKLEDGER_PUBLIC_ONLY=%q: want 1 or 0", v)
	}
}
