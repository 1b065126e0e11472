package buckets

import (
	"context"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// DeleteOlderRevisions removes the revisions of f's name uploaded no later
// than f, other than f itself, and returns how many it removed. It is the
// second half of a safe replace: upload the new revision first, and only
// once it has committed remove what it replaces, so that a failed upload
// loses nothing. A revision another client committed after f stays.
func (b *Bucket) DeleteOlderRevisions(ctx context.Context, f *File) (int, error) {
	ids, err := b.idsOf(ctx, bson.D{
		{Key: "filename", Value: f.Filename},
		{Key: "uploadDate", Value: bson.D{{Key: "$lte", Value: bson.NewDateTimeFromTime(f.UploadDate)}}},
		{Key: "_id", Value: bson.D{{Key: "$ne", Value: f.ID}}},
	})
	if err != nil {
		return 0, fmt.Errorf("delete older revisions of %q: %w", f.Filename, err)
	}
	removed, err := b.deleteAll(ctx, ids)
	if err != nil {
		return removed, fmt.Errorf("delete older revisions of %q: %w", f.Filename, err)
	}
	return removed, nil
}
