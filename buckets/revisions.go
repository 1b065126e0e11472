package buckets

import (
	"context"
	"fmt"
)

// DeleteOlderRevisions removes the revisions of f's name that come before f
// in (uploadDate, _id) order, the order FindByName numbers revisions in,
// and returns how many it removed. It is the second half of a safe replace:
// upload the new revision first, and only once it has committed remove what
// it replaces, so that a failed upload loses nothing. A revision another
// client committed after f stays, even one of the same millisecond whose
// _id sorts after f's.
func (b *Bucket) DeleteOlderRevisions(ctx context.Context, f *File) (int, error) {
	ids, err := b.revisionsUpTo(ctx, f)
	if err != nil {
		return 0, fmt.Errorf("delete older revisions of %q: %w", f.Filename, err)
	}
	removed, err := b.deleteAll(ctx, ids)
	if err != nil {
		return removed, fmt.Errorf("delete older revisions of %q: %w", f.Filename, err)
	}
	return removed, nil
}
