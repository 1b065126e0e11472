package buckets

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// UploadLocksCollection holds the locks of resumable uploads: one
// document per locked upload, shared by every gateway.
const UploadLocksCollection = "_gridfsd_upload_locks"

// UploadLock is one request's exclusive hold on a resumable upload. Its
// holder renews it every second (every third of its time to live when
// that is shorter); a holder that dies loses it one time to live later at
// most.
type UploadLock struct {
	coll   *mongo.Collection
	id     string
	holder bson.ObjectID
	ttl    time.Duration
	stop   chan struct{}
	done   chan struct{}
	once   sync.Once
}

// LockResumable takes the lock of the upload id for one request, waiting
// until ctx ends while another request (on any gateway) holds it. A waiter
// asks the holder to let go: the holder's released is then called (once),
// and it should end its request soon; it is called as well if the holder
// finds its lock taken over. contended says whether it had to wait. It
// returns ErrUploadLocked when ctx ends first.
func (b *Bucket) LockResumable(ctx context.Context, id string, ttl time.Duration, released func()) (l *UploadLock, contended bool, err error) {
	l = &UploadLock{
		coll: b.db.db.Collection(UploadLocksCollection), id: b.name + "/" + id, holder: bson.NewObjectID(), ttl: ttl,
		stop: make(chan struct{}), done: make(chan struct{}),
	}
	wait := 2 * time.Millisecond
	asked := false
	for {
		expires := bson.NewDateTimeFromTime(time.Now().Add(ttl))
		_, err := l.coll.InsertOne(ctx, bson.D{{Key: "_id", Value: l.id}, {Key: "holder", Value: l.holder}, {Key: "expires", Value: expires}})
		if err == nil {
			break
		}
		if ctxEnded(ctx, err) {
			return nil, contended, fmt.Errorf("%w: %q, waited %s", ErrUploadLocked, id, context.Cause(ctx))
		}
		if !mongo.IsDuplicateKeyError(err) {
			return nil, contended, fmt.Errorf("lock upload %q: %w", id, err)
		}
		contended = true
		// Held: take it over only if its holder let it expire.
		res, err := l.coll.UpdateOne(ctx,
			bson.D{{Key: "_id", Value: l.id}, {Key: "expires", Value: bson.D{{Key: "$lt", Value: bson.NewDateTimeFromTime(time.Now())}}}},
			bson.D{{Key: "$set", Value: bson.D{{Key: "holder", Value: l.holder}, {Key: "expires", Value: expires}, {Key: "release", Value: false}}}})
		if err == nil && res.MatchedCount == 1 {
			break
		}
		if err != nil && !ctxEnded(ctx, err) {
			return nil, contended, fmt.Errorf("lock upload %q: %w", id, err)
		}
		if !asked && ctx.Err() == nil {
			asked = true
			l.coll.UpdateOne(ctx, bson.D{{Key: "_id", Value: l.id}}, bson.D{{Key: "$set", Value: bson.D{{Key: "release", Value: true}}}})
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
	go l.renew(released)
	return l, contended, nil
}

// ctxEnded reports whether err is ctx ending, including the driver's own
// refusal to send an operation whose deadline it sees coming (before ctx
// says so).
func ctxEnded(ctx context.Context, err error) bool {
	return ctx.Err() != nil || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled)
}

// renew keeps the lock alive until Unlock, and calls released when a
// waiter asks for the lock or the lock was lost.
func (l *UploadLock) renew(released func()) {
	defer close(l.done)
	// Every second at most: a waiter's request to let go is seen within
	// it, so a client resuming after a drop waits about a second.
	t := time.NewTicker(min(l.ttl/3, time.Second))
	defer t.Stop()
	let := func() {
		if released != nil {
			l.once.Do(released)
		}
	}
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
		err := l.coll.FindOneAndUpdate(ctx, bson.D{{Key: "_id", Value: l.id}, {Key: "holder", Value: l.holder}},
			bson.D{{Key: "$set", Value: bson.D{{Key: "expires", Value: bson.NewDateTimeFromTime(time.Now().Add(l.ttl))}}}},
			options.FindOneAndUpdate().SetReturnDocument(options.After)).Decode(&doc)
		cancel()
		if errors.Is(err, mongo.ErrNoDocuments) || err == nil && doc.Release {
			let()
		}
	}
}

// Unlock gives the lock back, unless another request took it over.
func (l *UploadLock) Unlock() error {
	close(l.stop)
	<-l.done
	ctx, cancel := context.WithTimeout(context.Background(), CommitTimeout)
	defer cancel()
	if _, err := l.coll.DeleteOne(ctx, bson.D{{Key: "_id", Value: l.id}, {Key: "holder", Value: l.holder}}); err != nil {
		return fmt.Errorf("unlock upload: %w", err)
	}
	return nil
}
