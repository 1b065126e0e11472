package embedded

import (
	"context"
	"testing"

	"github.com/gridfsd/gridfsd/third_party/mongo-driver/bson"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/mongo/options"
)

// TestFindAtLimitClosesCursor: a find whose first batch reaches its limit
// answers cursor id 0, as MongoDB does, so the store keeps no cursor that a
// lost reply would leave behind (fork item 22); without a limit, or below
// it, the cursor stays open for a getMore.
func TestFindAtLimitClosesCursor(t *testing.T) {
	ctx := context.Background()
	c := connect(t, startStore(t, t.TempDir())).Database("test").Collection("chunks")
	for i := range 10 {
		if _, err := c.InsertOne(ctx, bson.D{{Key: "files_id", Value: 1}, {Key: "n", Value: i}}); err != nil {
			t.Fatal(err)
		}
	}
	filter := bson.D{{Key: "files_id", Value: 1}, {Key: "n", Value: bson.D{{Key: "$gte", Value: 2}, {Key: "$lte", Value: 7}}}}
	for _, tc := range []struct {
		limit, batch int64
		open         bool
	}{
		{limit: 0, batch: 3, open: true},
		{limit: 6, batch: 3, open: true},
		{limit: 3, batch: 3, open: false},
		{limit: 6, batch: 6, open: false},
	} {
		opts := options.Find().SetSort(bson.D{{Key: "n", Value: 1}}).SetBatchSize(int32(tc.batch))
		if tc.limit > 0 {
			opts.SetLimit(tc.limit)
		}
		cur, err := c.Find(ctx, filter, opts)
		if err != nil {
			t.Fatal(err)
		}
		if open := cur.ID() != 0; open != tc.open {
			t.Errorf("limit %d, batch %d: cursor open %v, want %v", tc.limit, tc.batch, open, tc.open)
		}
		var docs []bson.Raw
		if err := cur.All(ctx, &docs); err != nil {
			t.Fatal(err)
		}
		want := int64(6)
		if tc.limit > 0 {
			want = min(want, tc.limit)
		}
		if int64(len(docs)) != want {
			t.Errorf("limit %d, batch %d: %d documents, want %d", tc.limit, tc.batch, len(docs), want)
		}
	}
}
