package gateway

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/gridfsd/gridfsd/buckets"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/bson"
	"github.com/labstack/echo/v4"
)

// handler holds the API's handlers as plain methods; routes.go maps paths
// to them.
type handler struct {
	db      *buckets.DB
	cfg     Config
	metrics *metrics
	live    *liveUploads // uploads in progress, which the sweeper spares
}

// healthz says the process answers; it never touches MongoDB, so that a
// store outage does not get healthy gateways restarted.
func (h *handler) healthz(c echo.Context) error {
	return c.JSON(http.StatusOK, map[string]string{"status": "ok"})
}

// readyz says whether MongoDB answers a ping, so that a load balancer stops
// sending requests to a gateway that cannot serve them. With the embedded
// store it also reports the free disk space; a store below its reserve is
// still ready (downloads and deletes work, and deletes are how space comes
// back), with "uploads": "refused".
func (h *handler) readyz(c echo.Context) error {
	ctx, cancel := context.WithTimeout(c.Request().Context(), h.cfg.ReadyTimeout)
	defer cancel()
	if err := h.db.Database().Client().Ping(ctx, nil); err != nil {
		return fmt.Errorf("%w: ping: %w", errUnavailable, err)
	}
	reply := readiness{Status: "ready"}
	if s, ok, err := h.db.Space(); ok && err == nil {
		reply.FreeBytes, reply.MinFreeBytes = &s.Free, &s.Reserve
		reply.Uploads = "accepted"
		if s.Low() {
			reply.Uploads = "refused: less than minFreeBytes free; delete files to free space"
		}
	}
	return c.JSON(http.StatusOK, reply)
}

// readiness is /readyz's reply.
type readiness struct {
	Status string `json:"status"`
	// The embedded store's room (buckets.Space); absent on MongoDB.
	FreeBytes    *uint64 `json:"freeBytes,omitempty"`
	MinFreeBytes *uint64 `json:"minFreeBytes,omitempty"`
	Uploads      string  `json:"uploads,omitempty"`
}

// bucket opens the bucket named in the path.
func (h *handler) bucket(c echo.Context) (*buckets.Bucket, error) {
	name, err := bucketParam(c)
	if err != nil {
		return nil, err
	}
	return h.db.Bucket(c.Request().Context(), name)
}

var objectIDPattern = regexp.MustCompile(`^[0-9a-fA-F]{24}$`)

// ParseFileID reads the {id} of /id/{bucket}/{id}: 24 hexadecimal digits
// are an ObjectId; anything else is read by buckets.ParseID, as mongofiles
// reads ids: Extended JSON when it looks like JSON ({"$oid":"..."},
// {"$numberLong":"7"}, 7, "quoted string"), else the string itself. A
// string id that is 24 hex digits must therefore be quoted.
func ParseFileID(s string) (any, error) {
	if objectIDPattern.MatchString(s) {
		id, err := bson.ObjectIDFromHex(strings.ToLower(s))
		if err != nil {
			return nil, fmt.Errorf("%w: %v", buckets.ErrInvalidID, err)
		}
		return id, nil
	}
	if !utf8.ValidString(s) {
		// A BSON string is UTF-8; the driver would store a mangled id
		// that no path could name again.
		return nil, fmt.Errorf("%w: not valid UTF-8", buckets.ErrInvalidID)
	}
	return buckets.ParseID(s)
}

// FileIDPath is the {id} path segment ParseFileID reads back to id: the
// hex of an ObjectId, else the escaped canonical Extended JSON.
func FileIDPath(id any) string {
	if oid, ok := id.(bson.ObjectID); ok {
		return oid.Hex()
	}
	return url.PathEscape(buckets.FormatID(id))
}

// fileID reads the id in the path.
func fileID(c echo.Context) (any, error) {
	s, err := idParam(c)
	if err != nil {
		return nil, err
	}
	return ParseFileID(s)
}
