// Code generated from rules.json by TestRulesSource (go test ./lib/canon -run TestRulesSource -update); DO NOT EDIT.

package canon

// defaultRulesFile is rules.json as Go values, so a process that
// canonicalizes a URL does not decode JSON first (encoding/json built its
// decoder and parsed the file on every ll-save run: ~0.2-0.3 ms).
// rules.json stays the documented table; TestDefaultRulesFile fails when
// the two differ.
var defaultRulesFile = rulesFile{
	Comment: "linkledger URL canonicalization rules; see docs/canonicalization.md. Parameter names match case-insensitively; host keys match the host and its subdomains.",
	Params: []string{
		"gclid", "gclsrc", "dclid", "gbraid", "wbraid", "gad_source", "_ga", "_gl", "srsltid", "fbclid", "msclkid", "twclid", "ttclid", "li_fat_id", "igshid", "igsh", "yclid", "epik", "mc_cid", "mc_eid", "ref_src", "ref_url", "_hsenc", "_hsmi", "__hssc", "__hstc", "__hsfp", "hsctatracking", "mkt_tok", "oly_anon_id", "oly_enc_id", "vero_id", "vero_conv", "wickedid", "s_cid", "_openstat", "rb_clickid", "spm",
	},
	ParamPrefixes: []string{
		"utm_", "hsa_", "mtm_",
	},
	HostParams: map[string][]string{
		"spotify.com":          {"si"},
		"youtu.be":             {"si", "feature", "pp"},
		"youtube-nocookie.com": {"si", "feature", "pp"},
		"youtube.com":          {"si", "feature", "pp"},
	},
	HostAliases: map[string]string{
		"mobile.twitter.com": "x.com",
		"mobile.x.com":       "x.com",
		"twitter.com":        "x.com",
		"www.twitter.com":    "x.com",
		"www.x.com":          "x.com",
	},
}
