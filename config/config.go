// Package config is gridfsd's one configuration: every command reads it
// from flags, GRIDFSD_* environment variables and an optional YAML or TOML
// file, in that order of precedence, with the defaults below. Only this
// package and cmd/gridfsd know viper; the rest of gridfsd takes plain structs.
package config

import (
	"errors"
	"fmt"
	"net"
	"slices"
	"strings"
	"time"

	"github.com/gridfsd/gridfsd/auth"
	"github.com/spf13/viper"
)

// Keys, as used in files, flags (the same) and the environment
// (GRIDFSD_ + upper case with "-" as "_": GRIDFSD_DATA_DIR).
const (
	KeyURI               = "uri"
	KeyDB                = "db"
	KeyListen            = "listen"
	KeyDataDir           = "data-dir"
	KeyEmbeddedListen    = "embedded-listen"
	KeyConnectTimeout    = "connect-timeout"
	KeyMaxUploadSize     = "max-upload-size"
	KeyReadHeaderTimeout = "read-header-timeout"
	KeyIdleTimeout       = "idle-timeout"
	KeyShutdownTimeout   = "shutdown-timeout"
	KeyLogLevel          = "log-level"
	KeyLogFormat         = "log-format"
	KeyPrefix            = "prefix"
	KeyQuiet             = "quiet"

	KeyMaxConcurrentUploads = "max-concurrent-uploads"
	KeyMaxHeaderBytes       = "max-header-bytes"
	KeyRequestTimeout       = "request-timeout"
	KeySweepInterval        = "sweep-interval"
	KeySweepGrace           = "sweep-grace"
	KeyS3Listen             = "s3-listen"
	KeyS3MultipartExpiry    = "s3-multipart-expiry"
	KeyExpirySweepInterval  = "expiry-sweep-interval"
	// KeyLifecycleDebugDay is for testing only: how long a lifecycle
	// rule's day lasts (Ceph RGW's rgw_lc_debug_interval); 0s is 24 h.
	KeyLifecycleDebugDay = "lifecycle-debug-day"
	KeyChunkCacheSize    = "chunk-cache-size"
	KeyUploadExpiry      = "upload-expiry"
	KeyMinFreeSpace      = "min-free-space"
	KeyEmbeddedPageSize  = "embedded-page-size"
	KeyS3Domain          = "s3-domain"

	// Nested keys, set in a config file (or GRIDFSD_AUTH_SIGNING_KEY etc.).
	KeyAuthTokens        = "auth.tokens"
	KeyAuthAnonymousRead = "auth.anonymous_read"
	KeyAuthSigningKey    = "auth.signing_key"
	KeyAuthMaxSignedLife = "auth.max_signed_life"
	KeyAuthPublicACLs    = "auth.public_acls"
	KeyTLSCert           = "tls.cert"
	KeyTLSKey            = "tls.key"
	KeyCORSOrigins       = "cors.origins"
)

// Config is the resolved configuration.
type Config struct {
	URI               string        // MongoDB connection string; empty: serve starts the embedded store
	DB                string        // database; default "test", or the one in URI's path
	Listen            string        // HTTP listen address of serve
	DataDir           string        // embedded store's directory
	EmbeddedListen    string        // embedded store's MongoDB wire protocol address
	ConnectTimeout    time.Duration // server selection timeout: how long an unreachable store may take to fail
	MaxUploadSize     int64         // bytes; 0 means no limit
	ReadHeaderTimeout time.Duration
	IdleTimeout       time.Duration
	ShutdownTimeout   time.Duration
	LogLevel          string // debug, info, warn, error
	LogFormat         string // text or json
	Prefix            string // bucket of the file commands, mongofiles' --prefix
	Quiet             bool

	MaxConcurrentUploads int           // 0 means no limit; past it uploads get 503 with Retry-After
	MaxHeaderBytes       int64         // request header limit
	RequestTimeout       time.Duration // whole-request limit for everything but upload and download bodies; 0 none
	SweepInterval        time.Duration // background removal of orphaned chunks; 0 disables it
	SweepGrace           time.Duration // orphans younger than this are left alone (uploads in progress)
	S3Listen             string        // S3 API listen address; empty disables it
	S3MultipartExpiry    time.Duration // unfinished multipart uploads older than this are aborted
	ExpirySweepInterval  time.Duration // removal of expired files; 0 disables it
	LifecycleDebugDay    time.Duration // testing only: a lifecycle day lasts this long; 0 is 24 h
	ChunkCacheSize       int64         // bytes of chunks downloads share; 0 keeps none
	UploadExpiry         time.Duration // resumable (tus) uploads idle this long are removed
	MinFreeSpace         int64         // embedded store: uploads are refused (507) before free disk falls below it
	EmbeddedPageSize     int64         // embedded store: SQLite page size of its databases (embedded.Config.PageSize)
	S3Domain             string        // virtual-hosted-style S3 addressing under this domain; empty: path-style only
	PublicACLs           bool          // canned ACLs may make buckets and objects public (auth.public_acls)

	Auth auth.Config
	TLS  TLS
	CORS CORS
}

// TLS is the gateway's certificate; both set or neither.
type TLS struct {
	Cert string
	Key  string
}

// CORS lists the origins browsers may call the gateway from; "*" for any.
type CORS struct {
	Origins []string
}

// Defaults are the values of keys nobody set.
var defaults = map[string]any{
	KeyURI:               "",
	KeyDB:                "",
	KeyListen:            "127.0.0.1:8080",
	KeyDataDir:           "./gridfsd-data",
	KeyEmbeddedListen:    "127.0.0.1:27017",
	KeyConnectTimeout:    "10s",
	KeyMaxUploadSize:     "0",
	KeyReadHeaderTimeout: "10s",
	KeyIdleTimeout:       "120s",
	KeyShutdownTimeout:   "30s",
	KeyLogLevel:          "info",
	KeyLogFormat:         "text",
	KeyPrefix:            "fs",
	KeyQuiet:             false,

	KeyMaxConcurrentUploads: 0,
	KeyMaxHeaderBytes:       "64KiB",
	KeyRequestTimeout:       "60s",
	KeySweepInterval:        "0s",
	KeySweepGrace:           "1h",
	KeyS3Listen:             "127.0.0.1:9000",
	KeyS3MultipartExpiry:    "24h",
	KeyExpirySweepInterval:  "1m",
	KeyLifecycleDebugDay:    "0s",
	KeyChunkCacheSize:       "64MiB",
	KeyUploadExpiry:         "24h",
	KeyMinFreeSpace:         "128MiB",
	KeyEmbeddedPageSize:     "32KiB",
	KeyS3Domain:             "",
	KeyAuthPublicACLs:       true,
}

// DefaultDB is mongofiles' default database.
const DefaultDB = "test"

// New returns a viper instance with gridfsd's defaults and environment
// binding. Commands bind their flags to it and call Load.
func New() *viper.Viper {
	v := viper.New()
	for k, d := range defaults {
		v.SetDefault(k, d)
	}
	v.SetEnvPrefix("GRIDFSD")
	v.SetEnvKeyReplacer(strings.NewReplacer("-", "_", ".", "_"))
	v.AutomaticEnv()
	return v
}

// Default is the default value of key as a string, for flag help.
func Default(key string) string { return fmt.Sprint(defaults[key]) }

// keys are every key a configuration file may set.
var keys = []string{
	KeyURI, KeyDB, KeyListen, KeyDataDir, KeyEmbeddedListen, KeyConnectTimeout, KeyMaxUploadSize,
	KeyReadHeaderTimeout, KeyIdleTimeout, KeyShutdownTimeout, KeyLogLevel, KeyLogFormat, KeyPrefix, KeyQuiet,
	KeyMaxConcurrentUploads, KeyMaxHeaderBytes, KeyRequestTimeout, KeySweepInterval, KeySweepGrace,
	KeyS3Listen, KeyS3MultipartExpiry, KeyS3Domain, KeyExpirySweepInterval, KeyLifecycleDebugDay, KeyChunkCacheSize, KeyUploadExpiry, KeyMinFreeSpace,
	KeyEmbeddedPageSize, KeyAuthTokens, KeyAuthAnonymousRead, KeyAuthSigningKey, KeyAuthMaxSignedLife, KeyAuthPublicACLs,
	KeyTLSCert, KeyTLSKey, KeyCORSOrigins,
}

// ErrUnknownKey is a key in a configuration file that gridfsd does not
// know: a typo such as "token:" for "tokens:" would otherwise silently
// leave a setting (here: access control) at its default.
var ErrUnknownKey = errors.New("unknown key")

// ReadFile merges a YAML or TOML file (by its extension) into v. A key
// the file sets that gridfsd does not know is an error naming it.
func ReadFile(v *viper.Viper, path string) error {
	file := viper.New()
	file.SetConfigFile(path)
	if err := file.ReadInConfig(); err != nil {
		return fmt.Errorf("read config file %s: %w", path, err)
	}
	for _, k := range file.AllKeys() {
		if !slices.Contains(keys, k) {
			return fmt.Errorf("config file %s: %w %q%s", path, ErrUnknownKey, k, suggest(k))
		}
	}
	v.SetConfigFile(path)
	if err := v.ReadInConfig(); err != nil {
		return fmt.Errorf("read config file %s: %w", path, err)
	}
	return nil
}

// suggest names the known key closest to an unknown one, if one is close.
func suggest(unknown string) string {
	best, bestDist := "", 3
	for _, k := range keys {
		if d := editDistance(unknown, k); d < bestDist {
			best, bestDist = k, d
		}
	}
	if best == "" {
		return " (see docs/CONFIGURATION.md)"
	}
	return fmt.Sprintf(" (did you mean %q?)", best)
}

// editDistance is the Levenshtein distance of a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// Load resolves and checks the configuration. Errors name the key.
func Load(v *viper.Viper) (Config, error) {
	var errs []error
	dur := func(key string) time.Duration {
		s := v.GetString(key)
		d, err := time.ParseDuration(s)
		if err != nil || d < 0 {
			errs = append(errs, fmt.Errorf("%s: %q is not a duration such as 10s or 2m", key, s))
		}
		return d
	}
	c := Config{
		URI:               strings.TrimSpace(v.GetString(KeyURI)),
		DB:                v.GetString(KeyDB),
		Listen:            v.GetString(KeyListen),
		DataDir:           v.GetString(KeyDataDir),
		EmbeddedListen:    v.GetString(KeyEmbeddedListen),
		ConnectTimeout:    dur(KeyConnectTimeout),
		ReadHeaderTimeout: dur(KeyReadHeaderTimeout),
		IdleTimeout:       dur(KeyIdleTimeout),
		ShutdownTimeout:   dur(KeyShutdownTimeout),
		LogLevel:          strings.ToLower(v.GetString(KeyLogLevel)),
		LogFormat:         strings.ToLower(v.GetString(KeyLogFormat)),
		Prefix:            v.GetString(KeyPrefix),
		Quiet:             v.GetBool(KeyQuiet),
	}
	c.MaxConcurrentUploads = v.GetInt(KeyMaxConcurrentUploads)
	if c.MaxConcurrentUploads < 0 {
		errs = append(errs, fmt.Errorf("%s: must not be negative", KeyMaxConcurrentUploads))
	}
	c.RequestTimeout = dur(KeyRequestTimeout)
	c.SweepInterval = dur(KeySweepInterval)
	c.SweepGrace = dur(KeySweepGrace)
	c.S3Listen = v.GetString(KeyS3Listen)
	if c.S3Listen != "" {
		if _, _, err := net.SplitHostPort(c.S3Listen); err != nil {
			errs = append(errs, fmt.Errorf("%s: %q is not host:port (empty disables the S3 API)", KeyS3Listen, c.S3Listen))
		}
	}
	c.S3MultipartExpiry = dur(KeyS3MultipartExpiry)
	c.ExpirySweepInterval = dur(KeyExpirySweepInterval)
	c.LifecycleDebugDay = dur(KeyLifecycleDebugDay)
	c.UploadExpiry = dur(KeyUploadExpiry)
	c.S3Domain = strings.TrimSuffix(strings.TrimSpace(v.GetString(KeyS3Domain)), ".")
	if strings.ContainsAny(c.S3Domain, "/: ") {
		errs = append(errs, fmt.Errorf("%s: %q is not a domain name (such as s3.example.com)", KeyS3Domain, c.S3Domain))
	}
	if hb, err := ParseSize(v.GetString(KeyMaxHeaderBytes)); err != nil || hb < 1024 {
		errs = append(errs, fmt.Errorf("%s: %q is not a size of at least 1KiB", KeyMaxHeaderBytes, v.GetString(KeyMaxHeaderBytes)))
	} else {
		c.MaxHeaderBytes = hb
	}
	c.TLS = TLS{Cert: v.GetString(KeyTLSCert), Key: v.GetString(KeyTLSKey)}
	if (c.TLS.Cert == "") != (c.TLS.Key == "") {
		errs = append(errs, fmt.Errorf("%s and %s: set both or neither", KeyTLSCert, KeyTLSKey))
	}
	c.CORS = CORS{Origins: v.GetStringSlice(KeyCORSOrigins)}
	a, err := loadAuth(v)
	if err != nil {
		errs = append(errs, err)
	}
	c.Auth = a
	c.PublicACLs = v.GetBool(KeyAuthPublicACLs)

	size, err := ParseSize(v.GetString(KeyMaxUploadSize))
	if err != nil {
		errs = append(errs, fmt.Errorf("%s: %w", KeyMaxUploadSize, err))
	}
	c.MaxUploadSize = size
	if c.ChunkCacheSize, err = ParseSize(v.GetString(KeyChunkCacheSize)); err != nil {
		errs = append(errs, fmt.Errorf("%s: %w", KeyChunkCacheSize, err))
	}
	if c.MinFreeSpace, err = ParseSize(v.GetString(KeyMinFreeSpace)); err != nil {
		errs = append(errs, fmt.Errorf("%s: %w", KeyMinFreeSpace, err))
	}
	if c.EmbeddedPageSize, err = ParseSize(v.GetString(KeyEmbeddedPageSize)); err != nil {
		errs = append(errs, fmt.Errorf("%s: %w", KeyEmbeddedPageSize, err))
	} else if n := c.EmbeddedPageSize; n < 512 || n > 64<<10 || n&(n-1) != 0 {
		errs = append(errs, fmt.Errorf("%s: %d bytes is not an SQLite page size (a power of two from 512B to 64KiB)", KeyEmbeddedPageSize, n))
	}
	for _, a := range []struct{ key, addr string }{{KeyListen, c.Listen}, {KeyEmbeddedListen, c.EmbeddedListen}} {
		if _, _, err := net.SplitHostPort(a.addr); err != nil {
			errs = append(errs, fmt.Errorf("%s: %q is not host:port", a.key, a.addr))
		}
	}
	switch c.LogLevel {
	case "debug", "info", "warn", "error":
	default:
		errs = append(errs, fmt.Errorf("%s: %q is not debug, info, warn or error", KeyLogLevel, c.LogLevel))
	}
	switch c.LogFormat {
	case "text", "json":
	default:
		errs = append(errs, fmt.Errorf("%s: %q is not text or json", KeyLogFormat, c.LogFormat))
	}
	if c.ConnectTimeout == 0 && len(errs) == 0 {
		errs = append(errs, fmt.Errorf("%s: must be more than 0", KeyConnectTimeout))
	}
	if c.URI != "" && !strings.HasPrefix(c.URI, "mongodb://") && !strings.HasPrefix(c.URI, "mongodb+srv://") {
		errs = append(errs, fmt.Errorf("%s: %q does not start with mongodb:// or mongodb+srv://", KeyURI, c.URI))
	}
	return c, errors.Join(errs...)
}

// loadAuth reads the auth section and checks it with auth.New, so that a
// bad token is reported at start with its key.
func loadAuth(v *viper.Viper) (auth.Config, error) {
	var raw []struct {
		Name    string   `mapstructure:"name"`
		Secret  string   `mapstructure:"secret"`
		Buckets []string `mapstructure:"buckets"`
		Access  string   `mapstructure:"access"`
	}
	if err := v.UnmarshalKey(KeyAuthTokens, &raw); err != nil {
		return auth.Config{}, fmt.Errorf("%s: %w", KeyAuthTokens, err)
	}
	c := auth.Config{
		AnonymousRead: v.GetStringSlice(KeyAuthAnonymousRead),
		SigningKey:    v.GetString(KeyAuthSigningKey),
	}
	if life := v.GetString(KeyAuthMaxSignedLife); life != "" {
		d, err := time.ParseDuration(life)
		if err != nil || d <= 0 {
			return auth.Config{}, fmt.Errorf("%s: %q is not a positive duration such as 24h", KeyAuthMaxSignedLife, life)
		}
		c.MaxSignedLife = d
	}
	for i, t := range raw {
		access, err := auth.ParseAccess(t.Access)
		if err != nil {
			return auth.Config{}, fmt.Errorf("%s[%d]: %w", KeyAuthTokens, i, err)
		}
		c.Tokens = append(c.Tokens, auth.Token{Name: t.Name, Secret: t.Secret, Buckets: t.Buckets, Access: access})
	}
	if _, err := auth.New(c); err != nil {
		return auth.Config{}, err
	}
	return c, nil
}

// ParseSize reads a byte count: a plain number, or one with a unit
// (KB, MB, GB, TB in powers of 1000; KiB, MiB, GiB, TiB in powers of 1024).
func ParseSize(s string) (int64, error) {
	s = strings.TrimSpace(s)
	units := []struct {
		suffix string
		mult   int64
	}{
		{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40},
		{"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12}, {"B", 1},
	}
	mult := int64(1)
	for _, u := range units {
		if rest, ok := strings.CutSuffix(s, u.suffix); ok {
			s, mult = strings.TrimSpace(rest), u.mult
			break
		}
	}
	var n int64
	if _, err := fmt.Sscan(s, &n); err != nil || n < 0 || fmt.Sprint(n) != s {
		return 0, fmt.Errorf("%q is not a size such as 1048576, 512MiB or 2GB", s)
	}
	if n > (1<<62)/mult {
		return 0, fmt.Errorf("%q is too large", s)
	}
	return n * mult, nil
}
