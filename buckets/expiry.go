package buckets

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/gridfsd/gridfsd/third_party/mongo-driver/bson"
)

// Files can expire: a file whose expireAt has passed, or that a bucket's
// lifecycle rule expires (see lifecycle.go), is invisible at once to every
// read of this package (by id, by name, revisions, listings, counts and
// statistics), long before the sweeper (sweep.go) removes its files
// document and then its chunks. Other GridFS tools see such a file until
// the sweeper has run: expiry is gridfsd's own, kept in gridfsd's own
// top-level field, never in the user's metadata.

// FieldExpireAt is the top-level files document field, gridfsd's own, that
// holds the instant (a BSON date) a file expires at.
const FieldExpireAt = "expireAt"

// ErrInvalidExpiry is an expiry value that is neither a date nor a delay,
// or out of range.
var ErrInvalidExpiry = errors.New("invalid expiry")

// The range of an expireAt gridfsd writes: a date before minExpireAt is
// stored as minExpireAt (both long past: the file is expired either way),
// and one after maxExpireAt is refused. Every date in it is a number of
// milliseconds of 13 digits, which lets the embedded store answer a range
// of them through an index (its keys of dates are their digits as text;
// see third_party/ferretdb PATCHES.md "date ranges").
var (
	minExpireAt = time.UnixMilli(1_000_000_000_000).UTC() // 2001-09-09T01:46:40Z
	maxExpireAt = time.UnixMilli(9_999_999_999_999).UTC() // 2286-11-20T17:46:39.999Z
)

// httpDates are the date formats of RFC 9110 §5.6.7 (the preferred one,
// then the obsolete RFC 850 and asctime forms).
var httpDates = []string{time.RFC1123, "Monday, 02-Jan-06 15:04:05 MST", time.ANSIC}

// ParseExpiry reads an expiry as every front door takes it (the HTTP API's
// X-Gridfs-Expires and PATCH "expires", tus upload metadata, the command
// line's --expires): an RFC 3339 date ("2030-01-02T15:04:05Z"), an HTTP date
// ("Wed, 02 Jan 2030 15:04:05 GMT"), or a delay from now: a positive
// number with a unit of s, m, h or d ("3600s", "90m", "72h", "30d"; Go
// durations such as "1h30m" too). It returns the instant the file
// expires at, in UTC with millisecond precision (a BSON date's), or
// ErrInvalidExpiry.
func ParseExpiry(s string, now time.Time) (time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, fmt.Errorf("%w: empty", ErrInvalidExpiry)
	}
	var at time.Time
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		at = t
	} else if d, derr := ParseAge(s); derr == nil {
		at = now.Add(d)
	} else {
		for _, layout := range httpDates {
			// HTTP dates are in GMT; Go would read any other zone name
			// as an unknown zone of offset 0.
			zoned := strings.HasSuffix(layout, "MST")
			if t, err := time.Parse(layout, s); err == nil && (!zoned || strings.HasSuffix(s, " GMT") || strings.HasSuffix(s, " UTC")) {
				at = t
				break
			}
		}
		if at.IsZero() {
			return time.Time{}, fmt.Errorf("%w: %q is neither a date (RFC 3339 or HTTP) nor a delay such as 3600s, 90m, 72h or 30d", ErrInvalidExpiry, truncate(s, 64))
		}
	}
	return clampExpiry(at)
}

// clampExpiry is at as stored: in UTC, to the millisecond, not before
// minExpireAt; after maxExpireAt it is ErrInvalidExpiry.
func clampExpiry(at time.Time) (time.Time, error) {
	at = at.UTC().Truncate(time.Millisecond)
	if at.After(maxExpireAt) {
		return time.Time{}, fmt.Errorf("%w: %s is after %s", ErrInvalidExpiry, at.Format(time.RFC3339), maxExpireAt.Format(time.RFC3339))
	}
	if at.Before(minExpireAt) {
		at = minExpireAt
	}
	return at, nil
}

// ParseAge reads a positive delay: a number with a unit of s, m, h or d
// ("3600s", "90m", "72h", "30d"), or any Go duration ("1h30m"). It
// returns ErrInvalidExpiry for anything else, zero and negative delays
// included.
func ParseAge(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	var d time.Duration
	if days, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.ParseInt(days, 10, 64)
		if err != nil || n > int64(maxAge/(24*time.Hour)) {
			return 0, fmt.Errorf("%w: %q is not a number of days", ErrInvalidExpiry, truncate(s, 64))
		}
		d = time.Duration(n) * 24 * time.Hour
	} else {
		var err error
		if d, err = time.ParseDuration(s); err != nil {
			return 0, fmt.Errorf("%w: %q is not a delay such as 3600s, 90m, 72h or 30d", ErrInvalidExpiry, truncate(s, 64))
		}
	}
	if d <= 0 {
		return 0, fmt.Errorf("%w: delay %q is not positive", ErrInvalidExpiry, truncate(s, 64))
	}
	return d, nil
}

// maxAge bounds delays and rule ages: 100 years, far below Duration's
// 292 and never past maxExpireAt from now.
const maxAge = 100 * 365 * 24 * time.Hour

// FormatAge writes a delay as ParseAge reads it: whole days as "30d",
// anything else as a Go duration ("90m0s" is written "1h30m0s").
func FormatAge(d time.Duration) string {
	if d > 0 && d%(24*time.Hour) == 0 {
		return strconv.FormatInt(int64(d/(24*time.Hour)), 10) + "d"
	}
	return d.String()
}

// expireAtOf reads the expireAt of a files document: zero when it has
// none, or one that is not a date (other tools' business).
func expireAtOf(raw bson.Raw) time.Time {
	if dt, ok := raw.Lookup(FieldExpireAt).DateTimeOK(); ok {
		return time.UnixMilli(dt).UTC()
	}
	return time.Time{}
}

// expiredNow matches the files documents whose own expireAt has passed.
func expiredNow(now time.Time) bson.D {
	return bson.D{{Key: FieldExpireAt, Value: bson.D{{Key: "$lte", Value: bson.NewDateTimeFromTime(now)}}}}
}

// expiryUpdate adds to update the setting of expireAt to at, or its
// removal when at is zero.
func expiryUpdate(update bson.D, at time.Time) (bson.D, error) {
	op, value := "$unset", any("")
	if !at.IsZero() {
		var err error
		if at, err = clampExpiry(at); err != nil {
			return nil, err
		}
		op, value = "$set", bson.NewDateTimeFromTime(at)
	}
	for i, e := range update {
		if e.Key == op {
			update[i].Value = append(e.Value.(bson.D), bson.E{Key: FieldExpireAt, Value: value})
			return update, nil
		}
	}
	return append(update, bson.E{Key: op, Value: bson.D{{Key: FieldExpireAt, Value: value}}}), nil
}
