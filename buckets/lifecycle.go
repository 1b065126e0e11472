package buckets

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gridfsd/gridfsd/third_party/mongo-driver/bson"
)

// ErrInvalidLifecycle is a lifecycle rule a bucket cannot take; the
// settings are left as they were.
var ErrInvalidLifecycle = errors.New("invalid lifecycle rule")

// MaxLifecycleRules and MaxRuleIDBytes are S3's limits on a bucket's
// lifecycle configuration.
const (
	MaxLifecycleRules = 1000
	MaxRuleIDBytes    = 255
)

// Rule is one lifecycle rule of a bucket: what happens to the files whose
// names start with Prefix ("" is every file) and, for the rules that
// expire files by age or date, that carry every tag of Tags (S3's Filter
// Tag and And Tags; a file's tags may change, and the rule follows). Each
// set action applies:
//
//   - ExpireAfter: a file expires this long after its uploadDate;
//   - ExpireDate: every file expires from that instant on (S3's
//     Expiration Date), those uploaded later included;
//   - KeepRevisions: of each name, only the newest KeepRevisions revisions
//     are kept; with ExpireOldRevisionsAfter too, the older ones go only
//     once they are that old (S3's NewerNoncurrentVersions);
//   - ExpireOldRevisionsAfter: a revision that is not the newest expires
//     this long after the next one was uploaded (S3's NoncurrentDays);
//   - AbortUnfinishedAfter: a multipart or resumable upload not finished
//     this long after it started is aborted, its chunks removed.
//
// A file a rule expires is invisible at once through every read of this
// package, as one whose own expireAt has passed.
type Rule struct {
	// ID names the rule; one is made up when it is empty.
	ID     string `bson:"id" json:"id"`
	Prefix string `bson:"prefix" json:"prefix"`
	// Tags, when set, restrict ExpireAfter and ExpireDate to the files that
	// carry each of them (key and value); other actions take no tags.
	Tags []Tag `bson:"tags,omitempty" json:"tags,omitempty"`
	// Disabled rules are kept but do nothing (S3's Status Disabled).
	Disabled bool `bson:"disabled,omitempty" json:"disabled,omitempty"`

	ExpireAfter             Age        `bson:"expireAfter,omitempty" json:"expireAfter,omitempty"`
	ExpireDate              *time.Time `bson:"expireDate,omitempty" json:"expireDate,omitempty"`
	KeepRevisions           int        `bson:"keepRevisions,omitempty" json:"keepRevisions,omitempty"`
	ExpireOldRevisionsAfter Age        `bson:"expireOldRevisionsAfter,omitempty" json:"expireOldRevisionsAfter,omitempty"`
	AbortUnfinishedAfter    Age        `bson:"abortUnfinishedAfter,omitempty" json:"abortUnfinishedAfter,omitempty"`
	// ExpireDeleteMarkers is S3's ExpiredObjectDeleteMarker: the sweeper
	// removes a delete marker (versioning.go) that is the only revision
	// of its name left, older ones removed or hidden by a rule.
	ExpireDeleteMarkers bool `bson:"expireDeleteMarkers,omitempty" json:"expireDeleteMarkers,omitempty"`
}

// Age is a rule's delay. In JSON it is a string ParseAge reads ("30d",
// "72h", "90m", "3600s") or a number of seconds, and it is written as
// FormatAge writes it; in BSON, nanoseconds as an int64.
type Age time.Duration

// MarshalJSON writes a as FormatAge does.
func (a Age) MarshalJSON() ([]byte, error) { return json.Marshal(FormatAge(time.Duration(a))) }

// UnmarshalJSON reads a delay string or a number of seconds.
func (a *Age) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		d, err := ParseAge(s)
		if err != nil {
			return fmt.Errorf("%w: %v", ErrInvalidLifecycle, err)
		}
		*a = Age(d)
		return nil
	}
	var n float64
	if err := json.Unmarshal(b, &n); err != nil || n <= 0 || n > maxAge.Seconds() {
		return fmt.Errorf("%w: age %s is neither a delay such as \"30d\" nor a positive number of seconds", ErrInvalidLifecycle, truncate(string(b), 64))
	}
	*a = Age(time.Duration(n * float64(time.Second)))
	return nil
}

// hasAction reports whether r does anything.
func (r Rule) hasAction() bool {
	return r.ExpireAfter > 0 || r.ExpireDate != nil || r.KeepRevisions > 0 || r.ExpireOldRevisionsAfter > 0 || r.AbortUnfinishedAfter > 0 || r.ExpireDeleteMarkers
}

// revisions reports whether r hides older revisions.
func (r Rule) revisions() bool { return r.KeepRevisions > 0 || r.ExpireOldRevisionsAfter > 0 }

// CheckLifecycle checks a bucket's rules and fills in missing IDs. It
// returns ErrInvalidLifecycle naming the first bad rule.
func CheckLifecycle(rules []Rule) error {
	if len(rules) > MaxLifecycleRules {
		return fmt.Errorf("%w: %d rules, at most %d", ErrInvalidLifecycle, len(rules), MaxLifecycleRules)
	}
	ids := map[string]bool{}
	for i := range rules {
		r := &rules[i]
		bad := func(format string, args ...any) error {
			return fmt.Errorf("%w: rule %d (%q): %s", ErrInvalidLifecycle, i+1, truncate(r.ID, 64), fmt.Sprintf(format, args...))
		}
		switch {
		case len(r.ID) > MaxRuleIDBytes:
			return bad("id longer than %d bytes", MaxRuleIDBytes)
		case !utf8.ValidString(r.ID) || !utf8.ValidString(r.Prefix):
			return bad("id and prefix must be UTF-8")
		case strings.ContainsRune(r.Prefix, 0) || len(r.Prefix) > MaxFilenameBytes:
			return bad("prefix is no start of a filename")
		case ids[r.ID] && r.ID != "":
			return bad("another rule has this id")
		case !r.hasAction():
			return bad("no action: give expireAfter, expireDate, keepRevisions, expireOldRevisionsAfter or abortUnfinishedAfter")
		case r.ExpireAfter > 0 && r.ExpireDate != nil:
			return bad("expireAfter and expireDate exclude each other")
		case r.ExpireAfter < 0 || r.ExpireOldRevisionsAfter < 0 || r.AbortUnfinishedAfter < 0 || r.KeepRevisions < 0:
			return bad("negative age or count")
		case time.Duration(r.ExpireAfter) > maxAge || time.Duration(r.ExpireOldRevisionsAfter) > maxAge || time.Duration(r.AbortUnfinishedAfter) > maxAge:
			return bad("age over 100 years")
		case r.KeepRevisions > 1_000_000:
			return bad("keepRevisions over 1000000")
		case len(r.Tags) > 0 && (r.revisions() || r.AbortUnfinishedAfter > 0):
			return bad("tags filter the files expireAfter and expireDate expire, not revisions or unfinished uploads")
		case len(r.Tags) > 0 && r.ExpireAfter == 0 && r.ExpireDate == nil:
			return bad("tags without expireAfter or expireDate filter nothing")
		}
		if err := CheckTags(r.Tags, MaxBucketTags); err != nil {
			return bad("%v", err)
		}
		if r.ExpireDate != nil {
			at, err := clampExpiry(*r.ExpireDate)
			if err != nil {
				return bad("%v", err)
			}
			r.ExpireDate = &at
		}
		if r.ID == "" {
			r.ID = newRuleID(ids)
		}
		ids[r.ID] = true
	}
	return nil
}

// ParseLifecycleJSON reads a list of rules as the HTTP API and the
// command line take them ([{"prefix": "tmp/", "expireAfter": "30d"}, ...];
// null is no rules) and checks them; unknown fields are errors. It returns
// ErrInvalidLifecycle.
func ParseLifecycleJSON(b []byte) ([]Rule, error) {
	rules := []Rule{}
	if t := bytes.TrimSpace(b); len(t) == 0 || bytes.Equal(t, []byte("null")) {
		return rules, nil
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rules); err != nil {
		if errors.Is(err, ErrInvalidLifecycle) {
			return nil, err
		}
		return nil, fmt.Errorf(`%w: %v (rules are a list such as [{"prefix": "tmp/", "expireAfter": "30d"}, {"keepRevisions": 3, "expireOldRevisionsAfter": "7d", "abortUnfinishedAfter": "1d"}])`, ErrInvalidLifecycle, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("%w: more than one JSON value", ErrInvalidLifecycle)
	}
	return rules, CheckLifecycle(rules)
}

func newRuleID(taken map[string]bool) string {
	for {
		var b [8]byte
		rand.Read(b[:])
		if id := "rule-" + hex.EncodeToString(b[:]); !taken[id] {
			return id
		}
	}
}

// matches reports whether r applies to the file named name, tags apart.
func (r Rule) matches(name string) bool { return !r.Disabled && strings.HasPrefix(name, r.Prefix) }

// matchesFile reports whether r applies to f: its name and its tags.
func (r Rule) matchesFile(f *File) bool {
	if !r.matches(f.Filename) {
		return false
	}
	if len(r.Tags) == 0 {
		return true
	}
	has := map[Tag]bool{}
	for _, t := range f.Tags() {
		has[t] = true
	}
	for _, t := range r.Tags {
		if !has[t] {
			return false
		}
	}
	return true
}

// ruleFilter matches the files r applies to, ages apart: its prefix
// (prefixFilter) and each of its tags; nil for every file.
func ruleFilter(r Rule) bson.D {
	f := prefixFilter(r.Prefix)
	if len(r.Tags) > 0 {
		// Elements equal to the documents gridfsd writes tags as (SetTags:
		// key, then value): $all, which the embedded store matches as
		// MongoDB does (it misses a document equal to an element).
		tags := make(bson.A, len(r.Tags))
		for i, t := range r.Tags {
			tags[i] = bson.D{{Key: "key", Value: t.Key}, {Key: "value", Value: t.Value}}
		}
		f = append(f, bson.E{Key: FieldTags, Value: bson.D{{Key: "$all", Value: tags}}})
	}
	return f
}

// prefixFilter matches the filenames that start with r.Prefix, or nil for
// every file (prefixRange).
func prefixFilter(prefix string) bson.D {
	if prefix == "" {
		return nil
	}
	return bson.D{{Key: "filename", Value: prefixRange(prefix)}}
}

// lifecycleDay is how long a rule's day lasts in d: a day, unless the
// testing knob says otherwise (DB.SetLifecycleDay).
func (d *DB) lifecycleDay() time.Duration {
	if d.day > 0 {
		return d.day
	}
	return 24 * time.Hour
}

// SetLifecycleDay shortens (or lengthens) a lifecycle day for testing, as
// Ceph RGW's rgw_lc_debug_interval does: every age of every rule (and so
// S3's Days) is scaled by day/24h. Zero restores real days. Call it before
// d is used.
func (d *DB) SetLifecycleDay(day time.Duration) { d.day = day }

// scaled is a rule's age as it applies in b.
func (b *Bucket) scaled(a Age) time.Duration {
	day := b.db.lifecycleDay()
	if day == 24*time.Hour {
		return time.Duration(a)
	}
	return time.Duration(float64(a) * float64(day) / float64(24*time.Hour))
}

// expiredClauses are the clauses of a $nor that leaves out what is
// expired at now: files whose own expireAt has passed, and those an
// enabled rule expires by age or date. Revision rules are applied
// afterwards (hiddenRevisions), as they depend on other documents.
func (b *Bucket) expiredClauses(now time.Time) bson.A {
	or := bson.A{expiredNow(now)}
	for _, r := range b.settings.Lifecycle {
		if r.Disabled {
			continue
		}
		switch {
		case r.ExpireAfter > 0:
			c := ruleFilter(r)
			c = append(c, bson.E{Key: "uploadDate", Value: bson.D{{Key: "$lt", Value: bson.NewDateTimeFromTime(now.Add(-b.scaled(r.ExpireAfter)))}}})
			or = append(or, c)
		case r.ExpireDate != nil && !r.ExpireDate.After(now):
			c := ruleFilter(r)
			if c == nil {
				// Every file: $nor of an empty document would match none.
				c = bson.D{{Key: "_id", Value: bson.D{{Key: "$exists", Value: true}}}}
			}
			or = append(or, c)
		}
	}
	return or
}

// live adds to filter the condition that leaves out expired files.
func (b *Bucket) live(filter bson.D, now time.Time) bson.D {
	return append(filter, bson.E{Key: "$nor", Value: b.expiredClauses(now)})
}

// ExpiresAt returns when f expires by its own expireAt or by the
// bucket's age and date rules, whichever comes first, and the rule that
// sets it ("" when it is f's own); zero when it does not expire that way.
func (b *Bucket) ExpiresAt(f *File) (time.Time, string) {
	at, rule := f.ExpireAt, ""
	for _, r := range b.settings.Lifecycle {
		if !r.matchesFile(f) {
			continue
		}
		var t time.Time
		switch {
		case r.ExpireAfter > 0 && !f.UploadDate.IsZero():
			t = f.UploadDate.Add(b.scaled(r.ExpireAfter))
		case r.ExpireDate != nil:
			t = *r.ExpireDate
		default:
			continue
		}
		if at.IsZero() || t.Before(at) {
			at, rule = t, r.ID
		}
	}
	return at, rule
}

// S3Expiration returns what S3's x-amz-expiration header says of f: the
// instant its first matching age or date rule expires it, as S3 computes
// it (uploadDate plus whole days of 24 h, rounded up to the next midnight
// UTC), and that rule's ID; ok is false when no such rule applies.
func (b *Bucket) S3Expiration(f *File) (at time.Time, ruleID string, ok bool) {
	for _, r := range b.settings.Lifecycle {
		if !r.matchesFile(f) {
			continue
		}
		var t time.Time
		switch {
		case r.ExpireAfter > 0 && !f.UploadDate.IsZero():
			t = f.UploadDate.Add(time.Duration(r.ExpireAfter))
			if mid := t.UTC().Truncate(24 * time.Hour); !mid.Equal(t) {
				t = mid.Add(24 * time.Hour)
			}
		case r.ExpireDate != nil:
			t = *r.ExpireDate
		default:
			continue
		}
		if !ok || t.Before(at) {
			at, ruleID, ok = t.UTC(), r.ID, true
		}
	}
	return at, ruleID, ok
}

// expired reports whether f is expired at now by its own expireAt or an
// age or date rule: what live leaves out.
func (b *Bucket) expired(f *File, now time.Time) bool {
	at, _ := b.ExpiresAt(f)
	return !at.IsZero() && !at.After(now)
}

// revisionRules are the enabled rules that hide older revisions of name.
func (b *Bucket) revisionRules(name string) []Rule {
	var out []Rule
	for _, r := range b.settings.Lifecycle {
		if r.matches(name) && r.revisions() {
			out = append(out, r)
		}
	}
	return out
}

// revisionStamp is what deciding on a revision needs of it.
type revisionStamp struct {
	id         bson.RawValue
	uploadDate time.Time
}

// hiddenRevisions returns the indexes, in revs (the live revisions of one
// name, newest first), of those the rules hide at now.
func (b *Bucket) hiddenRevisions(rules []Rule, revs []revisionStamp, now time.Time) map[int]bool {
	hidden := map[int]bool{}
	for _, r := range rules {
		for i := 1; i < len(revs); i++ {
			if r.KeepRevisions > 0 && i < r.KeepRevisions {
				continue
			}
			if r.ExpireOldRevisionsAfter > 0 && !revs[i-1].uploadDate.Before(now.Add(-b.scaled(r.ExpireOldRevisionsAfter))) {
				// Not noncurrent for long enough: the next newer
				// revision made it old only recently.
				continue
			}
			hidden[i] = true
		}
	}
	return hidden
}
