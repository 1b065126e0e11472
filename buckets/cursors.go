package buckets

import (
	"context"
	"time"

	"github.com/gridfsd/gridfsd/third_party/mongo-driver/mongo"
)

// CursorCloseTimeout bounds the killCursors a closed cursor sends.
const CursorCloseTimeout = 5 * time.Second

// closeCursor closes cur with a context that survives ctx's cancellation:
// a request cancelled mid-listing (a client gone, a timeout) must still
// tell the server to free the cursor, which would otherwise hold its
// resources until the server's idle timeout (10 minutes on MongoDB). The
// timeout keeps a stuck store from holding the caller. (Cursor.All closes
// with a context of its own already.)
func closeCursor(ctx context.Context, cur *mongo.Cursor) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), CursorCloseTimeout)
	defer cancel()
	_ = cur.Close(ctx) // nothing to do about it: the server's idle timeout frees the cursor
}
