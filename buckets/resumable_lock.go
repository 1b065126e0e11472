package buckets

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gridfsd/gridfsd/third_party/mongo-driver/bson"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/mongo"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/mongo/options"
)

// UploadLocksCollection holds the locks of resumable uploads: one
// document per locked upload, shared by every gateway.
const UploadLocksCollection = "_gridfsd_upload_locks"

// UploadLock is one process's exclusive hold on a resumable upload, for
// one request at a time. Its holder renews it every second (every third of
// its time to live when that is shorter); a holder that dies loses it one
// time to live later at most.
//
// A request done with the upload may let the lock linger (Linger) instead
// of giving it back: the next request for the upload through the same
// process (a client's next PATCH on its connection, which usually follows
// at once) then takes it over without a word to the store, and with it
// the upload's record as this process last wrote it (Resumable), which no
// other process can have changed while the lock was held. A request for
// the upload through another process waits for the lingering to end, as
// it would for a request in flight.
type UploadLock struct {
	b      *Bucket
	coll   *mongo.Collection
	key    string // the lock document's _id: <bucket>/<upload id>
	id     string // the upload's id
	holder bson.ObjectID
	ttl    time.Duration
	stop   chan struct{}
	done   chan struct{}

	mu       sync.Mutex
	state    lockState
	released func() // the request's, called once; nil while lingering
	called   bool   // released was called for this request
	asked    bool   // another request asked for the lock, or it was lost
	timer    *time.Timer
	// rec is the upload's record as read or written under this lock since
	// it was taken: the truth while it is held. nil: read it again.
	rec *Resumable
	// trusted: no chunk past the record's offset was left by anyone
	// without the record saying so (Writing). A lock taken from a holder
	// that let it expire is not trusted until an append removed what that
	// holder may have left; one given back is (see AppendResumable).
	trusted bool
	// keep: give the lock back by letting it expire, not by removing it
	// (an append failed and could not say so in the record).
	keep bool
}

type lockState int

const (
	lockHeld lockState = iota
	lockLingering
	lockGone
)

// uploadLocks are the upload locks a process holds, by lock key.
type uploadLocks struct {
	mu sync.Mutex
	m  map[string]*UploadLock
	// closed: the process stops (ReleaseUploadLocks); no lock lingers.
	closed atomic.Bool
}

func (t *uploadLocks) get(key string) *UploadLock {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.m[key]
}

func (t *uploadLocks) put(l *UploadLock) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.m == nil {
		t.m = make(map[string]*UploadLock)
	}
	t.m[l.key] = l
}

func (t *uploadLocks) remove(l *UploadLock) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.m[l.key] == l {
		delete(t.m, l.key)
	}
}

// all returns the locks held.
func (t *uploadLocks) all() []*UploadLock {
	t.mu.Lock()
	defer t.mu.Unlock()
	ls := make([]*UploadLock, 0, len(t.m))
	for _, l := range t.m {
		ls = append(ls, l)
	}
	return ls
}

// DefaultUploadLockTTL is how long an upload stays locked by a process
// that died holding it; a live holder renews its lock (see UploadLock).
const DefaultUploadLockTTL = 15 * time.Second

// LockResumable takes the lock of the upload id for one request, waiting
// until ctx ends while another request (on any gateway) holds it. A waiter
// asks the holder to let go: the holder's released is then called (once),
// and it should end its request soon; it is called as well if the holder
// finds its lock taken over. contended says whether it had to wait. It
// returns ErrUploadLocked when ctx ends first. A lock lingering in this
// process (Linger) is taken over at once.
func (b *Bucket) LockResumable(ctx context.Context, id string, ttl time.Duration, released func()) (l *UploadLock, contended bool, err error) {
	return b.lockResumable(ctx, id, ttl, released, true)
}

// waitLockResumable is LockResumable for work that must not end a request
// in flight (a join of partial uploads): it waits without asking, and the
// lock it takes is given back when that work ends, whoever asks.
func (b *Bucket) waitLockResumable(ctx context.Context, id string) (*UploadLock, error) {
	l, _, err := b.lockResumable(ctx, id, DefaultUploadLockTTL, nil, false)
	return l, err
}

func (b *Bucket) lockResumable(ctx context.Context, id string, ttl time.Duration, released func(), ask bool) (l *UploadLock, contended bool, err error) {
	key := uploadLockKey(b.name, id)
	locks := &b.db.locks
	wait := 2 * time.Millisecond
	asked := false
	var mine *UploadLock
	for {
		if held := locks.get(key); held != nil {
			if held.resume(released) {
				return held, contended, nil
			}
			// In use by a request of this process: ask it directly.
			contended = true
			if !asked && ask {
				asked = true
				held.ask()
			}
		} else {
			if mine == nil {
				mine = b.newUploadLock(id, ttl)
			}
			took, fresh, err := mine.take(ctx)
			if err != nil {
				return nil, contended, err
			}
			if took {
				mine.start(fresh, released)
				return mine, contended, nil
			}
			contended = true
			if !asked && ask && ctx.Err() == nil {
				asked = true
				mine.coll.UpdateOne(ctx, bson.D{{Key: "_id", Value: key}}, bson.D{{Key: "$set", Value: bson.D{{Key: "release", Value: true}}}})
			}
		}
		t := time.NewTimer(wait/2 + rand.N(wait))
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, contended, fmt.Errorf("%w: %q, waited %s", ErrUploadLocked, id, context.Cause(ctx))
		case <-t.C:
		}
		wait = min(2*wait, 100*time.Millisecond)
	}
}

// tryLockResumable takes the lock of the upload id only if no request
// holds it, on any gateway, and no process keeps it for its next request
// (Linger): at once, without waiting or asking. ok is false when it is
// held. For the sweeper, which must not pull an upload from under an
// append or a commit, and passes over one in use until its next round.
func (b *Bucket) tryLockResumable(ctx context.Context, id string) (l *UploadLock, ok bool, err error) {
	l = b.newUploadLock(id, DefaultUploadLockTTL)
	if b.db.locks.get(l.key) != nil {
		return nil, false, nil
	}
	took, fresh, err := l.take(ctx)
	if err != nil || !took {
		return nil, false, err
	}
	l.start(fresh, nil)
	return l, true, nil
}

// newUploadLock is a lock of upload id, not taken yet.
func (b *Bucket) newUploadLock(id string, ttl time.Duration) *UploadLock {
	return &UploadLock{b: b, coll: b.db.db.Collection(UploadLocksCollection), key: uploadLockKey(b.name, id), id: id, holder: bson.NewObjectID(), ttl: ttl}
}

// uploadLockKey is the _id of upload id's lock document, and its key
// among this process's locks.
func uploadLockKey(bucket, id string) string { return bucket + "/" + id }

// start makes the lock just taken in the store this process's, renewed
// until it is given back.
func (l *UploadLock) start(fresh bool, released func()) {
	l.trusted = fresh
	l.released = released
	l.stop, l.done = make(chan struct{}), make(chan struct{})
	l.b.db.locks.put(l)
	go l.renew()
}

// take tries once to take the lock in the store: from nobody (fresh), or
// from a holder that let it expire.
func (l *UploadLock) take(ctx context.Context) (took, fresh bool, err error) {
	expires := bson.NewDateTimeFromTime(time.Now().Add(l.ttl))
	_, err = l.coll.InsertOne(ctx, bson.D{{Key: "_id", Value: l.key}, {Key: "holder", Value: l.holder}, {Key: "expires", Value: expires}})
	if err == nil {
		return true, true, nil
	}
	if ctxEnded(ctx, err) {
		return false, false, fmt.Errorf("%w: %q, waited %s", ErrUploadLocked, l.id, context.Cause(ctx))
	}
	if !mongo.IsDuplicateKeyError(err) {
		return false, false, fmt.Errorf("lock upload %q: %w", l.id, full(err))
	}
	// Held: take it over only if its holder let it expire.
	res, err := l.coll.UpdateOne(ctx,
		bson.D{{Key: "_id", Value: l.key}, {Key: "expires", Value: bson.D{{Key: "$lt", Value: bson.NewDateTimeFromTime(time.Now())}}}},
		bson.D{{Key: "$set", Value: bson.D{{Key: "holder", Value: l.holder}, {Key: "expires", Value: expires}, {Key: "release", Value: false}}}})
	if err == nil && res.MatchedCount == 1 {
		return true, false, nil
	}
	if err != nil && !ctxEnded(ctx, err) {
		return false, false, fmt.Errorf("lock upload %q: %w", l.id, full(err))
	}
	return false, false, nil
}

// resume gives a lingering lock to the request whose released this is.
func (l *UploadLock) resume(released func()) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.state != lockLingering || l.asked || l.keep {
		return false // or on its way back: asked for, or lost, meanwhile
	}
	l.timer.Stop() // if it fired, its Unlock finds the lock held and leaves it
	l.state, l.released, l.called = lockHeld, released, false
	return true
}

// ask asks the request holding the lock to let go (once per request).
func (l *UploadLock) ask() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.asked = true
	if l.state == lockHeld && l.released != nil && !l.called {
		l.called = true
		go l.released()
	}
}

// ctxEnded reports whether err is ctx ending, including the driver's own
// refusal to send an operation whose deadline it sees coming (before ctx
// says so).
func ctxEnded(ctx context.Context, err error) bool {
	return ctx.Err() != nil || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled)
}

// renew keeps the lock alive until it is given back, and asks its request
// to let go when a waiter asks for the lock or the lock was lost; a
// lingering lock then goes at once.
func (l *UploadLock) renew() {
	defer close(l.done)
	// Every second at most: a waiter's request to let go is seen within
	// it, so a client resuming after a drop waits about a second.
	t := time.NewTicker(min(l.ttl/3, time.Second))
	defer t.Stop()
	for {
		select {
		case <-l.stop:
			return
		case <-t.C:
		}
		ctx, cancel := context.WithTimeout(context.Background(), l.ttl/3)
		var doc struct {
			Release bool `bson:"release"`
		}
		err := l.coll.FindOneAndUpdate(ctx, bson.D{{Key: "_id", Value: l.key}, {Key: "holder", Value: l.holder}},
			bson.D{{Key: "$set", Value: bson.D{{Key: "expires", Value: bson.NewDateTimeFromTime(time.Now().Add(l.ttl))}}}},
			options.FindOneAndUpdate().SetReturnDocument(options.After)).Decode(&doc)
		cancel()
		if errors.Is(err, mongo.ErrNoDocuments) || err == nil && doc.Release {
			l.ask()
			l.mu.Lock()
			lingering := l.state == lockLingering
			l.mu.Unlock()
			if lingering {
				go l.Unlock()
			}
		}
	}
}

// Linger ends the request's hold but keeps the lock for d, for this
// process's next request on the upload (see UploadLock); then it is given
// back. A lock another request asked for, or that was lost, is given back
// at once.
func (l *UploadLock) Linger(d time.Duration) {
	closed := &l.b.db.locks.closed
	l.mu.Lock()
	if l.state != lockHeld || l.asked || l.keep || d <= 0 || closed.Load() {
		l.mu.Unlock()
		l.Unlock()
		return
	}
	l.state, l.released = lockLingering, nil
	if l.timer == nil {
		l.timer = time.AfterFunc(d, l.expire)
	} else {
		l.timer.Reset(d)
	}
	l.mu.Unlock()
	if closed.Load() {
		l.expire() // ReleaseUploadLocks may have looked before it lingered
	}
}

// expire gives back a lock whose lingering ended unused.
func (l *UploadLock) expire() {
	l.mu.Lock()
	lingering := l.state == lockLingering
	l.mu.Unlock()
	if lingering {
		l.Unlock()
	}
}

// Unlock gives the lock back now, unless another request took it over.
func (l *UploadLock) Unlock() error {
	l.mu.Lock()
	if l.state == lockGone {
		l.mu.Unlock()
		return nil
	}
	l.state, l.released = lockGone, nil
	if l.timer != nil {
		l.timer.Stop()
	}
	keep := l.keep
	l.mu.Unlock()
	close(l.stop)
	<-l.done
	defer l.b.db.locks.remove(l)
	if keep {
		return nil // it expires: its next holder cleans up
	}
	ctx, cancel := context.WithTimeout(context.Background(), CommitTimeout)
	defer cancel()
	if _, err := l.coll.DeleteOne(ctx, bson.D{{Key: "_id", Value: l.key}, {Key: "holder", Value: l.holder}}); err != nil {
		return fmt.Errorf("unlock upload: %w", full(err))
	}
	return nil
}

// ReleaseUploadLocks gives back the upload locks lingering in this process
// (see UploadLock), as a gateway that stops should: another would wait for
// them to expire. From then on no lock lingers: Linger gives it back.
func (d *DB) ReleaseUploadLocks() {
	d.locks.closed.Store(true)
	for _, l := range d.locks.all() {
		l.mu.Lock()
		lingering := l.state == lockLingering
		l.mu.Unlock()
		if lingering {
			l.Unlock()
		}
	}
}

// Resumable returns the upload's record, read under the lock: as this
// process last read or wrote it while holding the lock without a break,
// else from the store. It returns ErrResumableNotFound or
// ErrResumableExpired as Bucket.Resumable does.
func (l *UploadLock) Resumable(ctx context.Context) (*Resumable, error) {
	l.mu.Lock()
	rec := l.rec
	l.mu.Unlock()
	if rec != nil {
		if err := rec.live(l.b.name); err != nil {
			return nil, err
		}
		c := *rec
		return &c, nil
	}
	rec, err := l.b.Resumable(ctx, l.id)
	if err != nil {
		return nil, err
	}
	l.remember(rec)
	c := *rec
	return &c, nil
}

// remember keeps rec as the upload's record (a copy; nil forgets it).
func (l *UploadLock) remember(rec *Resumable) {
	if rec != nil {
		c := *rec
		rec = &c
	}
	l.mu.Lock()
	l.rec = rec
	l.mu.Unlock()
}

// Forget makes the next Resumable read the record from the store: for a
// request that changed it other than by AppendResumable with the lock.
func (l *UploadLock) Forget() { l.remember(nil) }

// clean reports whether an append may trust the record to say whether
// chunks past its offset may exist (see trusted).
func (l *UploadLock) clean() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.trusted
}

func (l *UploadLock) setTrusted() {
	l.mu.Lock()
	l.trusted = true
	l.mu.Unlock()
}

// keepUntilExpiry makes the lock's release its expiry, for its next
// holder to clean up after an append that failed and could not say so.
func (l *UploadLock) keepUntilExpiry() {
	l.mu.Lock()
	l.keep, l.trusted, l.rec = true, false, nil
	l.mu.Unlock()
}
