package buckets

import (
	"regexp"
	"unicode/utf8"

	"github.com/gridfsd/gridfsd/third_party/mongo-driver/bson"
)

// prefixRange is the condition on filename of the names that start with
// prefix: the range from prefix up to PrefixEnd(prefix), which MongoDB and
// the embedded store both answer from the filename index (an anchored
// regex is an index range on MongoDB too, but the embedded store tests it
// against every document, compiling it each time: 10,000 names took
// seconds). A prefix that is not valid UTF-8 has no bound a store accepts
// and stays an anchored regex.
func prefixRange(prefix string) bson.D {
	end, ok := PrefixEnd(prefix)
	if !ok {
		return bson.D{{Key: "$regex", Value: bson.Regex{Pattern: "^" + regexp.QuoteMeta(prefix)}}}
	}
	return bson.D{{Key: "$gte", Value: prefix}, {Key: "$lt", Value: end}}
}

// PrefixEnd returns the least string greater than every string that starts
// with p: p with its last character replaced by the next one (UTF-8 orders
// bytes as it orders code points, so this holds in the stores' byte
// order), and valid UTF-8, as strings in a query must be. It returns false
// for a p that is not valid UTF-8 or has no such string (empty, or only
// U+10FFFF). As Query.From it skips every name under p in one step, as
// S3's listings skip a common prefix.
func PrefixEnd(p string) (string, bool) {
	if !utf8.ValidString(p) {
		return "", false
	}
	for p != "" {
		r, n := utf8.DecodeLastRuneInString(p)
		p = p[:len(p)-n]
		switch r {
		case utf8.MaxRune:
			continue // nothing follows it: the character before it goes up
		case 0xD7FF:
			r = 0xE000 // past the surrogates, which UTF-8 cannot hold
		default:
			r++
		}
		return p + string(r), true
	}
	return "", false
}
