package chunker

import (
	"math"
	"strconv"
	"sync"

	"github.com/gridfsd/gridfsd/third_party/mongo-driver/bson"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/mongo"
)

// Cache holds chunks that Readers of a process share, so that a file many
// clients read at once costs the store one copy, not one per client. It
// is safe for concurrent use.
//
// A chunk is known by its chunks collection, its file's _id and n, and by
// what the Reader knows of the file: File.Version, length and chunk size.
// GridFS content never changes under an _id, and gridfsd never reuses one;
// the version makes even a file deleted and written again under the same
// _id by another tool (mongofiles put_id, another gateway) a different key,
// since its files document changed. What stays for the code that deletes
// chunks is to call Invalidate: then no Reader gets a chunk of that file
// from the cache once Invalidate has returned, only from the store.
//
// Loads are single-flight: Readers that want a chunk another is fetching
// wait for that fetch instead of sending their own, and a Reader's
// read-ahead fetches into the cache, where the Readers behind it find it.
//
// The chunks held stay within the size given, except chunks that Readers
// are serving at the moment, which cannot be freed anyway: each Reader
// holds its current chunk and its read-ahead (see ReadBudget), by
// reference. Past the size, the cache first evicts chunks no Reader is
// about to need (none reads within wantHorizon before them), least
// recently used first, and only then chunks a Reader will soon need: many
// clients streaming one file from different offsets keep the chunks just
// ahead of each of them.
type Cache struct {
	max int64
	mem offHeap // the chunks' memory, when max > 0

	mu    sync.Mutex
	size  int64 // bytes of the loaded chunks the cache holds, pinned ones included
	files map[fileID]*cachedFile
	cold  entryList // unpinned chunks no Reader is about to need, most recent first
	warm  entryList // unpinned chunks a Reader is about to need, most recent first

	hits, misses, evictions int64
}

// NewCache returns a cache of at most bytes of chunks; 0 keeps none beyond
// those Readers are serving, whose loads Readers still share.
func NewCache(bytes int64) *Cache {
	return &Cache{max: max(bytes, 0), files: make(map[fileID]*cachedFile)}
}

// CacheStats are a Cache's counters since it was made.
type CacheStats struct {
	Hits      int64 // chunks Readers found in the cache, loaded or being loaded
	Misses    int64 // chunks Readers had to fetch from the store
	Evictions int64 // chunks dropped to stay within the size
	Bytes     int64 // bytes of chunks held now
	Max       int64 // the size it keeps to
}

// Stats returns the counters.
func (c *Cache) Stats() CacheStats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return CacheStats{Hits: c.hits, Misses: c.misses, Evictions: c.evictions, Bytes: c.size, Max: c.max}
}

// wantHorizon is how far ahead of its position a Reader is "about to need"
// chunks, for eviction: 16 MiB, 80 s of a 200 KB/s video.
const wantHorizon = 16 << 20

// fileID names a file in the cache: its chunks collection and _id.
type fileID struct{ ns, id string }

// fileRef is what a Reader looks its chunks up by: the file and its version.
type fileRef struct {
	fileID
	gen string
}

// chunkID is a chunk of a cachedFile.
type chunkID struct {
	gen string
	n   int64
}

// cachedFile is what the cache holds of one file: its chunks, and how many
// Readers are about to need each chunk.
type cachedFile struct {
	chunks map[chunkID]*entry
	want   map[chunkID]int32
}

// entry is one chunk, loaded or being loaded. Its data never changes once
// ready is closed; the buffer goes back to the pool when the entry is
// neither in the cache nor held by a Reader.
type entry struct {
	ready chan struct{} // closed when data or err is set
	data  []byte
	err   error
	// abandoned: the load failed because the Reader that ran it went
	// away; a Reader that waited for it fetches the chunk itself.
	abandoned bool

	// The rest is guarded by Cache.mu.
	file       *cachedFile // nil once out of the cache
	fid        fileID
	id         chunkID
	refs       int32 // Readers holding it
	loaded     bool
	list       *entryList // the list it is on while unpinned, else nil
	prev, next *entry
}

// ref returns the cache's name for f's chunks in chunks, and false when
// f's _id cannot be a key (the Reader then shares nothing).
func ref(chunks *mongo.Collection, f File) (fileRef, bool) {
	id, ok := idKey(f.ID)
	if !ok {
		return fileRef{}, false
	}
	ns := chunks.Database().Name() + "." + chunks.Name()
	gen := f.Version + "/" + strconv.FormatInt(f.Length, 10) + "/" + strconv.Itoa(f.ChunkSize)
	return fileRef{fileID: fileID{ns: ns, id: id}, gen: gen}, true
}

// idKey is the key of a files_id: its BSON type and bytes, with the
// numbers a query for it matches written one way (files_id 5 matches
// int32, int64 and double 5), so that invalidating one invalidates all.
func idKey(id any) (string, bool) {
	switch v := id.(type) {
	case int32:
		id = int64(v)
	case int:
		id = int64(v)
	case float64:
		if v == math.Trunc(v) && math.Abs(v) < 1<<63 {
			id = int64(v)
		}
	}
	t, b, err := bson.MarshalValue(id)
	if err != nil {
		return "", false
	}
	return string(rune(t)) + string(b), true
}

// Invalidate drops every chunk of the file with _id id in chunks from c:
// once it returns, Readers fetch that file's chunks from the store. Call
// it after deleting or replacing chunks, on every path that does.
func (c *Cache) Invalidate(chunks *mongo.Collection, id any) {
	key, ok := idKey(id)
	if !ok {
		return
	}
	fid := fileID{ns: chunks.Database().Name() + "." + chunks.Name(), id: key}
	c.mu.Lock()
	defer c.mu.Unlock()
	if f := c.files[fid]; f != nil {
		for _, e := range f.chunks {
			c.unlink(e)
		}
	}
}

// InvalidateCollection drops every chunk of chunks from c, as Invalidate
// for every file in it (dropping a bucket).
func (c *Cache) InvalidateCollection(chunks *mongo.Collection) {
	ns := chunks.Database().Name() + "." + chunks.Name()
	c.mu.Lock()
	defer c.mu.Unlock()
	for fid, f := range c.files {
		if fid.ns != ns {
			continue
		}
		for _, e := range f.chunks {
			c.unlink(e)
		}
	}
}

// acquire returns chunk n of r, holding it for the caller, who releases
// it; created means the caller must load it (see finish). With own, a
// chunk another Reader is still loading is not waited for: the caller
// loads it itself, and Readers that come after wait for the caller's
// load (a Reader whose fetch someone else abandoned must not depend on a
// third one).
func (c *Cache) acquire(r fileRef, n int64, own bool) (e *entry, created bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	f := c.files[r.fileID]
	if f == nil {
		f = &cachedFile{chunks: make(map[chunkID]*entry), want: make(map[chunkID]int32)}
		c.files[r.fileID] = f
	}
	id := chunkID{gen: r.gen, n: n}
	if e = f.chunks[id]; e != nil && own && !e.loaded {
		c.unlink(e) // its waiters keep it; its load finishes it
		e = nil
	}
	if e != nil {
		c.hits++
		if e.list != nil {
			e.list.remove(e)
		}
		e.refs++
		return e, false
	}
	c.misses++
	e = &entry{ready: make(chan struct{}), file: f, fid: r.fileID, id: id, refs: 1}
	f.chunks[id] = e
	return e, true
}

// finish completes the load of e, which the caller created.
func (c *Cache) finish(e *entry, data []byte, err error, abandoned bool) {
	c.mu.Lock()
	e.data, e.err, e.abandoned, e.loaded = data, err, abandoned, true
	switch {
	case err != nil:
		c.unlink(e) // errors are not kept: the next Reader asks the store
	case e.file != nil:
		c.size += int64(len(data))
	}
	if e.refs == 0 {
		c.unpinned(e)
	}
	c.evict()
	c.mu.Unlock()
	close(e.ready)
}

// release gives back a chunk acquire returned.
func (c *Cache) release(e *entry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e.refs--
	if e.refs == 0 {
		c.unpinned(e)
		c.evict()
	}
}

// unpinned files e, which no Reader holds any more: on a list when it is
// loaded and in the cache, else freed once loaded.
func (c *Cache) unpinned(e *entry) {
	if !e.loaded {
		return // its load finishes it
	}
	if e.file == nil {
		c.free(e.data)
		e.data = nil
		return
	}
	if e.file.want[e.id] > 0 {
		c.warm.pushFront(e)
	} else {
		c.cold.pushFront(e)
	}
}

// unlink takes e out of the cache; a Reader holding it keeps it until it
// releases it.
func (c *Cache) unlink(e *entry) {
	f := e.file
	if f == nil {
		return
	}
	delete(f.chunks, e.id)
	e.file = nil
	if e.loaded && e.err == nil {
		c.size -= int64(len(e.data))
	}
	if e.list != nil {
		e.list.remove(e)
		c.free(e.data) // listed: loaded and unpinned
		e.data = nil
	}
	if len(f.chunks) == 0 && len(f.want) == 0 {
		delete(c.files, e.fid)
	}
}

// evict drops unpinned chunks until the cache is within its size: first
// those no Reader is about to need, then the others, least recent first.
func (c *Cache) evict() {
	for c.size > c.max {
		e := c.cold.back()
		if e == nil {
			e = c.warm.back()
		}
		if e == nil {
			return // the rest is pinned
		}
		c.evictions++
		c.unlink(e)
	}
}

// want adds delta to the Readers about to need chunks from..to-1 of r.
func (c *Cache) want(r fileRef, from, to int64, delta int32) {
	if from >= to {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	f := c.files[r.fileID]
	if f == nil {
		if delta < 0 {
			return
		}
		f = &cachedFile{chunks: make(map[chunkID]*entry), want: make(map[chunkID]int32)}
		c.files[r.fileID] = f
	}
	for n := from; n < to; n++ {
		id := chunkID{gen: r.gen, n: n}
		w := f.want[id] + delta
		if w <= 0 {
			delete(f.want, id)
		} else {
			f.want[id] = w
		}
		e := f.chunks[id]
		if e == nil || e.list == nil {
			continue
		}
		switch {
		case w > 0 && e.list == &c.cold:
			c.cold.remove(e)
			c.warm.pushFront(e)
		case w <= 0 && e.list == &c.warm:
			c.warm.remove(e)
			c.cold.pushFront(e)
		}
	}
	if len(f.chunks) == 0 && len(f.want) == 0 {
		delete(c.files, r.fileID)
	}
}

// entryList is a doubly linked list of entries, most recent at the front.
type entryList struct {
	head, tail *entry
}

func (l *entryList) pushFront(e *entry) {
	e.list, e.prev, e.next = l, nil, l.head
	if l.head != nil {
		l.head.prev = e
	} else {
		l.tail = e
	}
	l.head = e
}

func (l *entryList) remove(e *entry) {
	if e.prev != nil {
		e.prev.next = e.next
	} else {
		l.head = e.next
	}
	if e.next != nil {
		e.next.prev = e.prev
	} else {
		l.tail = e.prev
	}
	e.list, e.prev, e.next = nil, nil, nil
}

func (l *entryList) back() *entry { return l.tail }

// alloc returns a buffer for a chunk of n bytes: outside the Go heap for a
// cache that keeps chunks (see offHeap), pooled for one that keeps none.
func (c *Cache) alloc(n int) []byte {
	if c.max == 0 {
		return getBuffer(n)
	}
	return c.mem.get(n)
}

// free gives back a buffer alloc returned, once nobody holds it.
func (c *Cache) free(b []byte) {
	if c.max == 0 {
		putBuffer(b)
		return
	}
	c.mem.put(b)
}
