package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/gridfsd/gridfsd/buckets"
	"github.com/gridfsd/gridfsd/config"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/x/mongo/driver/connstring"
)

// banner is what serve tells whoever started it: where each front door
// is, which store holds the data and how to reach it with other tools,
// whether access control is on, and how to stop.
type banner struct {
	HTTP            string // URL of the HTTP API and the UI
	S3              string // URL of the S3 API; empty when s3-listen is empty
	Database        string
	EmbeddedURI     string // the embedded store's MongoDB URI; empty with --uri
	DataDir         string // absolute; only for the embedded store
	MongoDBHosts    string // hosts of --uri, without credentials; empty for the embedded store
	FilesCommand    string // a gridfsd file command that reaches the same store
	Mongofiles      string // the same for mongofiles
	AccessControl   bool
	Tokens          int
	AnonymousRead   []string
	SignedURLs      bool
	ShutdownTimeout string
	MaxUploadSize   int64
	SweepInterval   string
	// FreeSpace is the embedded store's room and reserve, as
	// buckets.DB.Space measured it at start; empty on MongoDB.
	FreeSpace string
	LowSpace  bool
}

// space fills in the store's free space, when db watches it.
func (b *banner) space(db *buckets.DB) {
	s, ok, err := db.Space()
	switch {
	case !ok:
	case err != nil:
		b.FreeSpace = "unknown (" + err.Error() + ")"
	default:
		b.FreeSpace = fmt.Sprintf("%s (uploads are refused below %s: --%s)", buckets.FormatBytes(s.Free), buckets.FormatBytes(s.Reserve), config.KeyMinFreeSpace)
		b.LowSpace = s.Low()
	}
}

// newBanner describes the running gateway; embeddedURI is empty when
// --uri names the store.
func newBanner(c config.Config, httpAddr, s3Addr net.Addr, embeddedURI, db string) banner {
	scheme := "http"
	if c.TLS.Cert != "" {
		scheme = "https"
	}
	b := banner{
		HTTP:            scheme + "://" + httpAddr.String() + "/",
		Database:        db,
		AccessControl:   c.Auth.Enabled(),
		Tokens:          len(c.Auth.Tokens),
		AnonymousRead:   c.Auth.AnonymousRead,
		SignedURLs:      c.Auth.SigningKey != "",
		ShutdownTimeout: c.ShutdownTimeout.String(),
		MaxUploadSize:   c.MaxUploadSize,
		SweepInterval:   c.SweepInterval.String(),
	}
	if s3Addr != nil {
		b.S3 = scheme + "://" + s3Addr.String() + "/"
	}
	if embeddedURI == "" {
		b.MongoDBHosts = mongoHosts(c.URI)
		b.FilesCommand = "gridfsd list   (with the same --uri, GRIDFSD_URI or --config as serve)"
		b.Mongofiles = "mongofiles --uri '<the same --uri>' --db " + db + " list"
		return b
	}
	b.EmbeddedURI = embeddedURI
	if dir, err := filepath.Abs(c.DataDir); err == nil {
		b.DataDir = dir
	} else {
		b.DataDir = c.DataDir
	}
	dbURI := strings.TrimSuffix(embeddedURI, "/") + "/" + db
	// The file commands connect to embedded-listen and use database test
	// unless told otherwise, as serve does.
	b.FilesCommand = "gridfsd list"
	if c.EmbeddedListen != config.Default(config.KeyEmbeddedListen) {
		b.FilesCommand += " --" + config.KeyEmbeddedListen + " " + c.EmbeddedListen
	}
	if db != config.DefaultDB {
		b.FilesCommand += " -d " + db
	}
	b.Mongofiles = "mongofiles --uri " + dbURI + " list"
	return b
}

// mongoHosts is the host list of uri, which may carry a password that
// has no place in a log.
func mongoHosts(uri string) string {
	cs, err := connstring.Parse(uri)
	if err != nil {
		return "(unparsable --uri)"
	}
	return strings.Join(cs.Hosts, ",")
}

// announce tells the banner at info level. With log-format text it is a
// block of plain lines, because a person reads it and key=value pairs make
// URLs and commands hard to copy; with log-format json it is one record
// with fields, because a machine reads it and every line must stay JSON.
func (m *Main) announce(b banner) {
	log := m.Logger
	if !log.Enabled(context.Background(), slog.LevelInfo) {
		if b.EmbeddedURI != "" {
			m.warnEmbedded(b)
		}
		return
	}
	if m.Config.LogFormat == "text" && m.LogOut != nil {
		b.writeText(m.LogOut)
		return
	}
	if b.EmbeddedURI != "" {
		m.warnEmbedded(b)
	}
	attrs := []any{"http", b.HTTP, "s3", b.S3, "database", b.Database}
	if b.EmbeddedURI != "" {
		attrs = append(attrs, "store", "embedded", "mongodb_uri", b.EmbeddedURI, "data_dir", b.DataDir, "free_space", b.FreeSpace)
	} else {
		attrs = append(attrs, "store", "mongodb", "mongodb_hosts", b.MongoDBHosts)
	}
	attrs = append(attrs, "files_command", b.FilesCommand, "mongofiles", b.Mongofiles,
		"access_control", b.AccessControl, "max_upload_size", b.MaxUploadSize, "sweep_interval", b.SweepInterval,
		"stop", "SIGINT or SIGTERM, in-flight requests get "+b.ShutdownTimeout)
	log.Info("gridfsd is serving", attrs...)
}

// warnEmbedded says what the embedded store is not, where the banner does
// not: in JSON logs and above info level.
func (m *Main) warnEmbedded(b banner) {
	m.Logger.Warn("no --uri given: using the embedded store, a single-node FerretDB on SQLite for trying gridfsd and single-machine use; "+
		"for production, point gridfsd at MongoDB with --uri (replica set or sharded cluster)",
		"data_dir", b.DataDir, "mongodb_uri", b.EmbeddedURI)
}

func (b banner) writeText(w io.Writer) {
	var sb strings.Builder
	sb.WriteString("\ngridfsd is serving\n")
	tw := tabwriter.NewWriter(&sb, 0, 0, 2, ' ', 0)
	line := func(k, v string) { fmt.Fprintf(tw, "  %s\t%s\n", k, v) }
	line("HTTP API and UI", b.HTTP)
	if b.S3 != "" {
		line("S3 API", b.S3+"   (path-style; see docs/S3.md)")
	} else {
		line("S3 API", "off (--s3-listen is empty)")
	}
	if b.EmbeddedURI != "" {
		line("Store", "embedded single-node FerretDB on SQLite (GiBs of media, seeks in ms); for production: --uri mongodb://...")
		line("Data directory", b.DataDir)
		if b.FreeSpace != "" {
			free := b.FreeSpace
			if b.LowSpace {
				free = "LOW: " + free + "; delete files to free space"
			}
			line("Free space", free)
		}
		line("MongoDB URI", b.EmbeddedURI+"   (database "+b.Database+"; no authentication: keep it on loopback)")
	} else {
		line("Store", "MongoDB at "+b.MongoDBHosts+", database "+b.Database)
	}
	line("File commands", b.FilesCommand)
	line("mongofiles", b.Mongofiles)
	switch {
	case b.AccessControl:
		acl := fmt.Sprintf("on: %d token(s)", b.Tokens)
		if len(b.AnonymousRead) > 0 {
			acl += "; anyone may read bucket(s) " + strings.Join(b.AnonymousRead, ", ")
		}
		if b.SignedURLs {
			acl += "; signed URLs accepted"
		}
		line("Access control", acl)
	default:
		line("Access control", "off: whoever reaches these addresses may read, overwrite and delete every file (docs/SECURITY.md)")
	}
	line("Stop", "Ctrl-C or SIGTERM (requests in flight get "+b.ShutdownTimeout+" to finish)")
	tw.Flush()
	sb.WriteString("\n")
	io.WriteString(w, sb.String())
}
