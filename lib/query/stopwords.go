package query

import "sync"

// stopwords are common English function words. They are dropped from
// queries of DefaultStopwordsFrom words or more: in a long natural-language
// query they match most documents and only add cost and noise to bm25.
// It is built on first use, so binaries that never parse a query (ll-save)
// do not pay for it at start-up.
var stopwordSet = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, w := range []string{
		"a", "about", "above", "after", "again", "against", "all", "am", "an", "and", "any", "are", "as", "at",
		"be", "because", "been", "before", "being", "below", "between", "both", "but", "by",
		"can", "could", "did", "do", "does", "doing", "down", "during",
		"each", "few", "for", "from", "further", "had", "has", "have", "having", "he", "her", "here", "hers", "herself", "him", "himself", "his", "how",
		"i", "if", "in", "into", "is", "it", "its", "itself", "just", "me", "more", "most", "my", "myself",
		"nor", "of", "off", "on", "once", "only", "or", "other", "our", "ours", "ourselves", "out", "over", "own",
		"same", "she", "should", "so", "some", "such", "than", "that", "the", "their", "theirs", "them", "themselves", "then", "there", "these", "they", "this", "those", "through", "to", "too",
		"under", "until", "up", "very", "was", "we", "were", "what", "when", "where", "which", "while", "who", "whom", "why", "will", "with", "would",
		"you", "your", "yours", "yourself", "yourselves",
	} {
		m[w] = true
	}
	return m
})
