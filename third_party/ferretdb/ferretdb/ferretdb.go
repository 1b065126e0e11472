// Copyright 2021 FerretDB Inc.
//
// Licensed under the Apache License, Version 2.0 (the "License");
// you may not use this file except in compliance with the License.
// You may obtain a copy of the License at
//
//     http://www.apache.org/licenses/LICENSE-2.0
//
// Unless required by applicable law or agreed to in writing, software
// distributed under the License is distributed on an "AS IS" BASIS,
// WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
// See the License for the specific language governing permissions and
// limitations under the License.

// Package ferretdb provides embeddable FerretDB implementation.
//
// See [github.com/FerretDB/FerretDB/build/version] package documentation
// for information about Go build tags that affect this package.
package ferretdb

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"

	"github.com/gridfsd/gridfsd/third_party/ferretdb/build/version"
	"github.com/gridfsd/gridfsd/third_party/ferretdb/internal/clientconn"
	"github.com/gridfsd/gridfsd/third_party/ferretdb/internal/clientconn/connmetrics"
	"github.com/gridfsd/gridfsd/third_party/ferretdb/internal/handler/registry"
	"github.com/gridfsd/gridfsd/third_party/ferretdb/internal/util/state"
)

// Config represents FerretDB configuration.
type Config struct {
	Listener ListenerConfig

	// Logger to use; if nil, `slog.Default()` is used.
	Logger *slog.Logger

	// NoticeLogger receives the reports on the data directory: the conversions of databases and
	// documents written by earlier releases (their progress, and the warnings that one could not
	// run, such as too little free disk) and failures of the background vacuum. Nil: Logger.
	// gridfsd patch (PATCHES.md item 43).
	NoticeLogger *slog.Logger

	// Handler to use; only `sqlite` is kept in this fork.
	Handler string

	// SQLite URI (directory) for `sqlite` handler.
	// See https://www.sqlite.org/uri.html.
	SQLiteURL string // For example: `file:data/`.

	// DisablePushdown makes the handler filter and sort every query itself, reading whole collections:
	// the reference the tests compare the index pushdown with (gridfsd patch, PATCHES.md "pushdown switch").
	DisablePushdown bool

	// KeepBinaryInText stores binary data inside each document's text, as upstream did: the
	// reference the tests compare the binary column with (gridfsd patch, PATCHES.md item 23).
	KeepBinaryInText bool
}

// ListenerConfig represents listener configuration.
type ListenerConfig struct {
	// Listen TCP address.
	// If empty, TCP listener is disabled.
	TCP string

	// Listen Unix domain socket path.
	// If empty, Unix listener is disabled.
	Unix string

	// Listen TLS address.
	// If empty, TLS listener is disabled.
	TLS string

	// Server certificate path.
	TLSCertFile string

	// Server key path.
	TLSKeyFile string

	// Root CA certificate path.
	TLSCAFile string
}

// FerretDB represents an instance of embeddable FerretDB implementation.
type FerretDB struct {
	config *Config

	closeBackend func()

	l *clientconn.Listener
}

// New creates a new instance of embeddable FerretDB implementation.
func New(config *Config) (*FerretDB, error) {
	version.Get().Package = "embedded"

	if config.Listener.TCP == "" &&
		config.Listener.Unix == "" &&
		config.Listener.TLS == "" {
		return nil, errors.New("Listener TCP, Unix and TLS are empty")
	}

	sp, err := state.NewProvider("")
	if err != nil {
		return nil, fmt.Errorf("failed to construct handler: %s", err)
	}

	// Telemetry reporter is not created or running anyway,
	// but disable telemetry explicitly to disable confusing startupWarnings.
	err = sp.Update(func(s *state.State) {
		s.DisableTelemetry()
		s.TelemetryLocked = true
	})
	if err != nil {
		return nil, fmt.Errorf("failed to construct handler: %s", err)
	}

	metrics := connmetrics.NewListenerMetrics()

	logger := config.Logger
	if logger == nil {
		logger = slog.Default()
	}

	h, closeBackend, err := registry.NewHandler(config.Handler, &registry.NewHandlerOpts{
		Logger:        logger,
		NoticeLogger:  config.NoticeLogger,
		ConnMetrics:   metrics.ConnMetrics,
		StateProvider: sp,
		TCPHost:       config.Listener.TCP,

		SQLiteURL: config.SQLiteURL,

		TestOpts: registry.TestOpts{
			DisablePushdown:         config.DisablePushdown,
			KeepBinaryInText:        config.KeepBinaryInText,
			CappedCleanupPercentage: 10,
			BatchSize:               100,
		},
	})
	if err != nil {
		if closeBackend != nil {
			closeBackend()
		}
		return nil, fmt.Errorf("failed to construct handler: %s", err)
	}

	l, err := clientconn.Listen(&clientconn.NewListenerOpts{
		TCP:  config.Listener.TCP,
		Unix: config.Listener.Unix,

		TLS:         config.Listener.TLS,
		TLSCertFile: config.Listener.TLSCertFile,
		TLSKeyFile:  config.Listener.TLSKeyFile,
		TLSCAFile:   config.Listener.TLSCAFile,

		Mode:    clientconn.NormalMode,
		Metrics: metrics,
		Handler: h,
		Logger:  logger,
	})
	if err != nil {
		return nil, fmt.Errorf("failed to construct handler: %s", err)
	}

	return &FerretDB{
		config:       config,
		closeBackend: closeBackend,
		l:            l,
	}, nil
}

// Run runs FerretDB until ctx is canceled.
//
// When this method returns, listener and all connections, as well as handler are closed.
//
// It is required to run this method in order to initialize the listeners with their respective
// IP address and port. Calling methods which require the listener's address (eg: [*FerretDB.MongoDBURI]
// requires it for configuring its Host URL) before calling this method might result in a deadlock.
func (f *FerretDB) Run(ctx context.Context) error {
	defer f.closeBackend()

	f.l.Run(ctx)

	return nil
}

// MongoDBURI returns MongoDB URI for this FerretDB instance.
//
// TCP's connection string is returned if both TCP and Unix listeners are enabled.
// TLS is preferred over both.
func (f *FerretDB) MongoDBURI() string {
	var u *url.URL

	switch {
	case f.config.Listener.TLS != "":
		q := url.Values{
			"tls": []string{"true"},
		}

		u = &url.URL{
			Scheme:   "mongodb",
			Host:     f.l.TLSAddr().String(),
			Path:     "/",
			RawQuery: q.Encode(),
		}
	case f.config.Listener.TCP != "":
		u = &url.URL{
			Scheme: "mongodb",
			Host:   f.l.TCPAddr().String(),
			Path:   "/",
		}
	case f.config.Listener.Unix != "":
		// MongoDB really wants Unix domain socket path in the host part of the URI
		u = &url.URL{
			Scheme: "mongodb",
			Host:   f.l.UnixAddr().String(),
			Path:   "/",
		}
	}

	return u.String()
}
