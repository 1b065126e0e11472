package dav

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/gridfsd/gridfsd/buckets"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/bson"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/mongo"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/mongo/options"
	"golang.org/x/net/webdav"
)

// LocksCollection holds WebDAV's locks, one document per lock, shared by
// every gateway on the database: a LOCK taken through one gateway holds
// against writes through all of them.
const LocksCollection = "_gridfsd_davlocks"

// lockTimeout bounds the store operations of the lock system, whose
// interface carries no context.
const lockTimeout = 10 * time.Second

// tempPrefix marks the locks golang.org/x/net/webdav takes for the length
// of one write request without an If header, to check that nobody else
// holds a lock on what it writes: they are checked, never stored.
const tempPrefix = "opaquelocktoken:gridfsd-request-"

// lockSystem is a webdav.LockSystem kept in MongoDB. Locks are exclusive
// write locks (the only kind RFC 4918 and webdav know), of depth 0 or
// infinity, and expire: every query ignores an expired lock, and creating
// a lock deletes the expired ones.
//
// Creating a lock is atomic across gateways without a transaction: the new
// lock is inserted first and the conflicting locks are looked for after;
// a creator that finds one removes its own and fails. Two creators that
// race may thus both fail (the clients retry), never both succeed.
type lockSystem struct {
	coll *mongo.Collection
	// etag is the current ETag of a path, "" when it has none, for the
	// ETag conditions of If headers.
	etag func(name string) (string, error)
	// onContended counts LOCKs and writes refused because of a lock.
	onContended func()
}

var _ webdav.LockSystem = (*lockSystem)(nil)

// lockDoc is a lock as stored.
type lockDoc struct {
	Token     string `bson:"_id"`
	Root      string `bson:"root"`
	ZeroDepth bool   `bson:"zeroDepth"`
	Shared    bool   `bson:"shared,omitempty"`
	Owner     string `bson:"owner,omitempty"`
	// Principal took the lock: only its requests may submit the token
	// (RFC 4918 6.4), refresh it or remove it. "" (access control off,
	// or a lock stored before locks had one) is anyone's.
	Principal string    `bson:"principal,omitempty"`
	Duration  int64     `bson:"seconds"`
	Expires   time.Time `bson:"expires"`
	Created   time.Time `bson:"created"`
}

func (d lockDoc) details() webdav.LockDetails {
	return webdav.LockDetails{Root: d.Root, Duration: time.Duration(d.Duration) * time.Second, OwnerXML: d.Owner, ZeroDepth: d.ZeroDepth}
}

func opCtx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), lockTimeout)
}

// cleanName is a lock's name as webdav gives it, cleaned as its paths are.
func cleanName(name string) string {
	l, err := parseLoc(name)
	if err != nil {
		return "/" + strings.Trim(name, "/")
	}
	return l.path()
}

// ancestors are name and every folder above it, up to "/".
func ancestors(name string) []string {
	out := []string{name}
	for name != "/" {
		i := strings.LastIndex(name, "/")
		name = name[:i]
		if name == "" {
			name = "/"
		}
		out = append(out, name)
	}
	return out
}

// covers reports whether lock d applies to name.
func (d lockDoc) covers(name string) bool {
	if d.Root == name {
		return true
	}
	return !d.ZeroDepth && (d.Root == "/" || strings.HasPrefix(name, d.Root+"/"))
}

// conflicting finds the live locks other than self that a lock on name
// would conflict with: those that cover it, and those below it when below
// (a lock of infinite depth, and webdav's request locks, which stand for a
// write that may replace or delete what is below). A shared lock conflicts
// only with exclusive ones; nil shared is a write, which every lock stops.
func (ls *lockSystem) conflicting(ctx context.Context, now time.Time, name string, below bool, shared *bool, self string) ([]lockDoc, error) {
	or := bson.A{bson.D{{Key: "root", Value: bson.D{{Key: "$in", Value: ancestors(name)}}}}}
	if below {
		prefix := strings.TrimSuffix(name, "/") + "/"
		or = append(or, bson.D{{Key: "root", Value: bson.Regex{Pattern: "^" + regexp.QuoteMeta(prefix)}}})
	}
	docs, err := ls.find(ctx, bson.D{{Key: "expires", Value: bson.D{{Key: "$gt", Value: now}}}, {Key: "$or", Value: or}})
	if err != nil {
		return nil, err
	}
	var out []lockDoc
	for _, d := range docs {
		if d.Token == self || (shared != nil && *shared && d.Shared) {
			continue
		}
		if d.covers(name) || (below && strings.HasPrefix(d.Root, strings.TrimSuffix(name, "/")+"/")) {
			out = append(out, d)
		}
	}
	return out, nil
}

func (ls *lockSystem) find(ctx context.Context, filter bson.D) ([]lockDoc, error) {
	cur, err := ls.coll.Find(ctx, filter)
	if err != nil {
		return nil, fmt.Errorf("find locks: %w", err)
	}
	var docs []lockDoc
	if err := cur.All(ctx, &docs); err != nil {
		return nil, fmt.Errorf("find locks: %w", err)
	}
	return docs, nil
}

// heldBy reports whether principal may use lock d: it took it, or the
// lock is anyone's.
func (d lockDoc) heldBy(principal string) bool {
	return d.Principal == "" || d.Principal == principal
}

// principalLocks is the lock system as one request uses it: webdav's
// LockSystem interface carries no request, so each request gets its own
// (Server.serve).
type principalLocks struct {
	*lockSystem
	q *request
	// writes are the paths the request changes. webdav confirms a tagged
	// list of an If header (RFC 4918 10.4.3) with the tagged path in place
	// of the request's, so the paths Confirm gets may name another
	// resource: the locks to present are the ones on writes.
	writes []string
}

// errUnsubmitted is a write whose If header holds without presenting a
// lock on what it writes: 423 (RFC 4918 16, lock-token-submitted).
var errUnsubmitted = fmt.Errorf("%w: the If header submits no lock token for", errLocked)

// Confirm is lockSystem.confirm for the request's principal and writes.
func (pl principalLocks) Confirm(now time.Time, name0, name1 string, conditions ...webdav.Condition) (func(), error) {
	release, err := pl.confirm(now, pl.q.principal, pl.writes, name0, name1, conditions...)
	switch {
	case errors.Is(err, errUnsubmitted):
		// webdav tries the If header's next list and answers 412 when
		// none holds; the reply makes that 423 (reply.WriteHeader).
		pl.q.fail(err)
		return nil, webdav.ErrConfirmationFailed
	case err == nil:
		pl.q.retract(errUnsubmitted)
	}
	return release, err
}

// Confirm without a principal is for requests of nobody in particular,
// which may use the locks that are anyone's only.
func (ls *lockSystem) Confirm(now time.Time, name0, name1 string, conditions ...webdav.Condition) (func(), error) {
	return ls.confirm(now, "", nil, name0, name1, conditions...)
}

// confirm evaluates one list of an If header (RFC 4918 10.4) for the
// resource it names (name0, or name1 when name0 is ""): every condition
// must hold (a lock token that is a live lock on the resource, taken by
// principal or anyone's, an entity tag that is the resource's, or their
// negation), else webdav.ErrConfirmationFailed. Then every live lock on
// or below the paths written (writes, or name0 and name1 when writes is
// nil) must be presented by the list and held by principal (one of those
// on a resource, for shared locks), else errUnsubmitted: a token taken by another principal unlocks
// nothing, as RFC 4918 6.4 requires, and neither does a list about
// another resource. It holds nothing: a lock is a document every gateway
// reads, and its expiry is what frees it.
func (ls *lockSystem) confirm(now time.Time, principal string, writes []string, name0, name1 string, conditions ...webdav.Condition) (func(), error) {
	ctx, cancel := opCtx()
	defer cancel()
	var names []string
	for _, n := range []string{name0, name1} {
		if n != "" {
			names = append(names, cleanName(n))
		}
	}
	if writes == nil {
		writes = names
	}
	if len(names) == 0 && len(writes) == 0 {
		return func() {}, nil
	}
	var res string
	var live []lockDoc
	if len(names) > 0 {
		res = names[0]
		var err error
		live, err = ls.conflicting(ctx, now, res, false, nil, "")
		if err != nil {
			return nil, err
		}
	}
	presented := map[string]bool{}
	for _, c := range conditions {
		var holds bool
		switch {
		case c.Token != "":
			for _, d := range live {
				if d.Token == c.Token && d.covers(res) && d.heldBy(principal) {
					holds = true
				}
			}
			if !c.Not {
				presented[c.Token] = true
			}
		case c.ETag != "":
			etag, err := ls.etag(res)
			if err != nil {
				return nil, err
			}
			holds = etag != "" && etag == c.ETag
		}
		if holds == c.Not {
			return nil, webdav.ErrConfirmationFailed
		}
	}
	for _, n := range writes {
		// A write replaces or removes what is below n too: each locked
		// resource below needs its token as n does (RFC 4918 9.6.1).
		found, err := ls.conflicting(ctx, now, n, true, nil, "")
		if err != nil {
			return nil, err
		}
		held := map[string]bool{} // by the resource locked
		for _, d := range found {
			locked := n
			if !d.covers(n) {
				locked = d.Root
			}
			held[locked] = held[locked] || (presented[d.Token] && d.heldBy(principal))
		}
		for locked, ok := range held {
			if !ok {
				ls.contended()
				return nil, fmt.Errorf("%w %s", errUnsubmitted, locked)
			}
		}
	}
	return func() {}, nil
}

// Create is webdav's lock for one write request without an If header
// (every LOCK is served by Server.lock): it checks that no lock covers the
// resource or anything below it, and stores nothing.
func (ls *lockSystem) Create(now time.Time, details webdav.LockDetails) (string, error) {
	ctx, cancel := opCtx()
	defer cancel()
	found, err := ls.conflicting(ctx, now, cleanName(details.Root), true, nil, "")
	if err != nil {
		return "", err
	}
	if len(found) > 0 {
		ls.contended()
		return "", webdav.ErrLocked
	}
	return tempPrefix + newToken(), nil
}

// create stores the lock d (Root, ZeroDepth, Shared, Owner, Duration) and
// returns it with its token, or webdav.ErrLocked.
func (ls *lockSystem) create(now time.Time, d lockDoc) (lockDoc, error) {
	ctx, cancel := opCtx()
	defer cancel()
	// Expired locks go here, where they are in the way; nothing else
	// needs them gone, as every query ignores them.
	if _, err := ls.coll.DeleteMany(ctx, bson.D{{Key: "expires", Value: bson.D{{Key: "$lte", Value: now}}}}); err != nil {
		return d, fmt.Errorf("remove expired locks: %w", buckets.DiskFull(err))
	}
	below := !d.ZeroDepth
	if found, err := ls.conflicting(ctx, now, d.Root, below, &d.Shared, ""); err != nil {
		return d, err
	} else if len(found) > 0 {
		ls.contended()
		return d, webdav.ErrLocked
	}
	d.Token = "urn:uuid:" + newUUID()
	d.Created = now
	d.Expires = now.Add(time.Duration(d.Duration) * time.Second)
	if _, err := ls.coll.InsertOne(ctx, d); err != nil {
		return d, fmt.Errorf("store lock: %w", buckets.DiskFull(err))
	}
	found, err := ls.conflicting(ctx, now, d.Root, below, &d.Shared, d.Token)
	if err != nil || len(found) > 0 {
		dctx, cancel := opCtx()
		defer cancel()
		ls.coll.DeleteOne(dctx, bson.D{{Key: "_id", Value: d.Token}})
		if err != nil {
			return d, err
		}
		ls.contended()
		return d, webdav.ErrLocked
	}
	return d, nil
}

// Refresh is served by Server.lock; webdav never calls it, and could
// not say the URL the lock must cover.
func (ls *lockSystem) Refresh(now time.Time, token string, duration time.Duration) (webdav.LockDetails, error) {
	return webdav.LockDetails{}, webdav.ErrNoSuchLock
}

// errNotYours is a lock another principal took: only it may refresh or
// remove it.
var errNotYours = errors.New("the lock was taken by another principal")

// errOutOfScope is a lock refreshed or removed through a URL it does not
// cover (RFC 4918 9.10.2, 9.11.1).
var errOutOfScope = errors.New("the lock does not cover the Request-URI")

// owned finds the live lock token, ErrNoSuchLock when there is none,
// errOutOfScope when it does not cover name, or errNotYours when
// principal may not use it.
func (ls *lockSystem) owned(ctx context.Context, now time.Time, principal, token, name string) error {
	var d lockDoc
	err := ls.coll.FindOne(ctx, bson.D{{Key: "_id", Value: token}, {Key: "expires", Value: bson.D{{Key: "$gt", Value: now}}}}).Decode(&d)
	switch {
	case errors.Is(err, mongo.ErrNoDocuments):
		return webdav.ErrNoSuchLock
	case err != nil:
		return fmt.Errorf("find lock: %w", err)
	case !d.covers(name):
		return errOutOfScope
	case !d.heldBy(principal):
		return errNotYours
	}
	return nil
}

// heldFilter matches the locks principal may use.
func heldFilter(principal string) bson.E {
	return bson.E{Key: "principal", Value: bson.D{{Key: "$in", Value: bson.A{nil, "", principal}}}}
}

// scopeFilter matches the locks that cover name.
func scopeFilter(name string) bson.E {
	return bson.E{Key: "$or", Value: bson.A{
		bson.D{{Key: "root", Value: name}},
		bson.D{{Key: "root", Value: bson.D{{Key: "$in", Value: ancestors(name)}}}, {Key: "zeroDepth", Value: false}},
	}}
}

// refresh extends a live lock that covers name and principal may use.
func (ls *lockSystem) refresh(now time.Time, principal, token, name string, duration time.Duration) (lockDoc, error) {
	ctx, cancel := opCtx()
	defer cancel()
	var d lockDoc
	err := ls.coll.FindOneAndUpdate(ctx,
		bson.D{{Key: "_id", Value: token}, {Key: "expires", Value: bson.D{{Key: "$gt", Value: now}}}, heldFilter(principal), scopeFilter(name)},
		bson.D{{Key: "$set", Value: bson.D{{Key: "expires", Value: now.Add(duration)}, {Key: "seconds", Value: int64(duration / time.Second)}}}},
		options.FindOneAndUpdate().SetReturnDocument(options.After)).Decode(&d)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return d, ls.owned(ctx, now, principal, token, name)
	}
	if err != nil {
		return d, fmt.Errorf("refresh lock: %w", buckets.DiskFull(err))
	}
	return d, nil
}

// Unlock ends webdav's request locks, which are not stored. UNLOCK is
// served by Server.unlock: webdav could not say the URL the lock must
// cover.
func (ls *lockSystem) Unlock(now time.Time, token string) error {
	if strings.HasPrefix(token, tempPrefix) {
		return nil
	}
	return webdav.ErrNoSuchLock
}

// unlock removes a live lock that covers name and principal may use.
func (ls *lockSystem) unlock(now time.Time, principal, token, name string) error {
	ctx, cancel := opCtx()
	defer cancel()
	res, err := ls.coll.DeleteOne(ctx, bson.D{{Key: "_id", Value: token}, {Key: "expires", Value: bson.D{{Key: "$gt", Value: now}}}, heldFilter(principal), scopeFilter(name)})
	if err != nil {
		return fmt.Errorf("remove lock: %w", buckets.DiskFull(err))
	}
	if res.DeletedCount == 0 {
		return ls.owned(ctx, now, principal, token, name)
	}
	return nil
}

func (ls *lockSystem) contended() {
	if ls.onContended != nil {
		ls.onContended()
	}
}

func newToken() string {
	var b [16]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// newUUID is a random (version 4) UUID.
func newUUID() string {
	var b [16]byte
	rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

func mongoIndex(key string) mongo.IndexModel {
	return mongo.IndexModel{Keys: bson.D{{Key: key, Value: 1}}}
}
