// Package replybuf lets the caller of an operation supply the buffers its
// replies are read into (gridfsd patch, PATCHES.md item 4).
//
// The driver reads every reply into a buffer it allocates, zeroed, for that
// reply alone: a download of chunks in replies of 2 MiB allocated and
// cleared 2 MiB of memory per 2 MiB moved. A caller that knows when it is
// done with every reply of its operations (nothing it keeps refers to them:
// it copied what it needs) can hand the driver recycled buffers instead.
package replybuf

import "context"

type key struct{}

// Alloc returns a buffer of len size for a reply; its contents need not be
// zero: the reply overwrites all of it.
type Alloc func(size int) []byte

// With returns ctx carrying alloc: the replies to operations run with it
// are read into buffers alloc returns.
func With(ctx context.Context, alloc Alloc) context.Context {
	return context.WithValue(ctx, key{}, alloc)
}

// From returns the Alloc ctx carries, or nil.
func From(ctx context.Context) Alloc {
	alloc, _ := ctx.Value(key{}).(Alloc)
	return alloc
}
