package config_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gridfsd/gridfsd/auth"
	"github.com/gridfsd/gridfsd/config"
)

func TestDefaults(t *testing.T) {
	c, err := config.Load(config.New())
	if err != nil {
		t.Fatal(err)
	}
	if c.Listen != "127.0.0.1:8080" || c.DataDir != "./gridfsd-data" || c.EmbeddedListen != "127.0.0.1:27017" ||
		c.Prefix != "fs" || c.URI != "" || c.ConnectTimeout != 10*time.Second || c.Auth.Enabled() {
		t.Errorf("defaults = %+v", c)
	}
}

func TestFileAndEnvironment(t *testing.T) {
	path := filepath.Join(t.TempDir(), "gridfsd.yaml")
	yaml := `
listen: 0.0.0.0:9000
max-upload-size: 2GiB
auth:
  tokens:
    - name: uploader
      secret: "0123456789abcdef0123"
      buckets: ["media"]
      access: write
  anonymous_read: ["public"]
  signing_key: "fedcba9876543210fedcba"
`
	if err := os.WriteFile(path, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GRIDFSD_DATA_DIR", "/var/lib/gridfsd")
	t.Setenv("GRIDFSD_LISTEN", "127.0.0.1:9001") // the environment beats the file
	v := config.New()
	if err := config.ReadFile(v, path); err != nil {
		t.Fatal(err)
	}
	c, err := config.Load(v)
	if err != nil {
		t.Fatal(err)
	}
	if c.Listen != "127.0.0.1:9001" || c.DataDir != "/var/lib/gridfsd" || c.MaxUploadSize != 2<<30 || c.EmbeddedPageSize != 32<<10 {
		t.Errorf("config = %+v", c)
	}
	if len(c.Auth.Tokens) != 1 || c.Auth.Tokens[0].Access != auth.Write || c.Auth.AnonymousRead[0] != "public" || c.Auth.SigningKey == "" {
		t.Errorf("auth = %+v", c.Auth)
	}
}

func TestInvalidValuesNameTheirKey(t *testing.T) {
	for key, val := range map[string]string{
		"GRIDFSD_LISTEN":               "nope",
		"GRIDFSD_MAX_UPLOAD_SIZE":      "lots",
		"GRIDFSD_IDLE_TIMEOUT":         "soon",
		"GRIDFSD_LOG_LEVEL":            "loud",
		"GRIDFSD_URI":                  "http://localhost",
		"GRIDFSD_AUTH_SIGNING_KEY":     "short",
		"GRIDFSD_AUTH_MAX_SIGNED_LIFE": "forever",
		"GRIDFSD_MAX_HEADER_BYTES":     "10",
		"GRIDFSD_EMBEDDED_LISTEN":      "27017",
		"GRIDFSD_LOG_FORMAT":           "xml",
		"GRIDFSD_CONNECT_TIMEOUT":      "-1s",
		"GRIDFSD_SWEEP_GRACE":          "x",
		"GRIDFSD_REQUEST_TIMEOUT":      "1 hour",
		"GRIDFSD_TLS_CERT":             "cert.pem",
		"GRIDFSD_EMBEDDED_PAGE_SIZE":   "3000",
	} {
		t.Run(key, func(t *testing.T) {
			t.Setenv(key, val)
			_, err := config.Load(config.New())
			if err == nil {
				t.Fatalf("%s=%s accepted", key, val)
			}
			name := strings.ToLower(strings.ReplaceAll(strings.TrimPrefix(key, "GRIDFSD_"), "_", "-"))
			name = strings.Replace(name, "auth-signing-key", "auth.signing_key", 1)
			name = strings.Replace(name, "auth-max-signed-life", "auth.max_signed_life", 1)
			name = strings.Replace(name, "tls-cert", "tls.cert", 1)
			if !strings.Contains(err.Error(), name) {
				t.Errorf("error %q does not name %s", err, name)
			}
		})
	}
}

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{"0": 0, "1048576": 1 << 20, "512MiB": 512 << 20, "2GB": 2e9, "1 KiB": 1024, "7B": 7} {
		got, err := config.ParseSize(in)
		if err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "-1", "1.5GB", "GB", "12XB"} {
		if _, err := config.ParseSize(in); err == nil {
			t.Errorf("ParseSize(%q) accepted", in)
		}
	}
}

func TestMaxSignedLife(t *testing.T) {
	t.Setenv("GRIDFSD_AUTH_SIGNING_KEY", "fedcba9876543210fedcba")
	t.Setenv("GRIDFSD_AUTH_MAX_SIGNED_LIFE", "1h")
	c, err := config.Load(config.New())
	if err != nil {
		t.Fatal(err)
	}
	if c.Auth.MaxSignedLife != time.Hour {
		t.Errorf("auth.max_signed_life = %s, want 1h", c.Auth.MaxSignedLife)
	}
}

// TestUnknownKeyInFile: a typo in a configuration file is an error that
// names the key, not a setting silently left at its default ("token:" for
// "tokens:" turned access control off).
func TestUnknownKeyInFile(t *testing.T) {
	for _, tc := range []struct{ file, key, hint string }{
		{"auth:\n  token:\n    - name: a\n", `"auth.token"`, `did you mean "auth.tokens"?`},
		{"listen: 127.0.0.1:8080\nlisten_addr: 0.0.0.0:80\n", `"listen_addr"`, "docs/CONFIGURATION.md"},
		{"data_dir = \"/srv\"\n", `"data_dir"`, `did you mean "data-dir"?`},
	} {
		ext := ".yaml"
		if strings.Contains(tc.file, " = ") {
			ext = ".toml"
		}
		path := filepath.Join(t.TempDir(), "gridfsd"+ext)
		if err := os.WriteFile(path, []byte(tc.file), 0o600); err != nil {
			t.Fatal(err)
		}
		err := config.ReadFile(config.New(), path)
		if !errors.Is(err, config.ErrUnknownKey) || !strings.Contains(err.Error(), tc.key) || !strings.Contains(err.Error(), tc.hint) {
			t.Errorf("%q: err = %v, want unknown key %s with %q", tc.file, err, tc.key, tc.hint)
		}
	}
}

// auth.public_acls is on unless a file or GRIDFSD_AUTH_PUBLIC_ACLS turns it
// off.
func TestPublicACLs(t *testing.T) {
	c, err := config.Load(config.New())
	if err != nil || !c.PublicACLs {
		t.Fatalf("default: %v %v, want on", c.PublicACLs, err)
	}
	path := filepath.Join(t.TempDir(), "gridfsd.yaml")
	if err := os.WriteFile(path, []byte("auth:\n  public_acls: false\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	v := config.New()
	if err := config.ReadFile(v, path); err != nil {
		t.Fatal(err)
	}
	if c, err := config.Load(v); err != nil || c.PublicACLs {
		t.Errorf("file: %v %v, want off", c.PublicACLs, err)
	}
	t.Setenv("GRIDFSD_AUTH_PUBLIC_ACLS", "false")
	if c, err := config.Load(config.New()); err != nil || c.PublicACLs {
		t.Errorf("environment: %v %v, want off", c.PublicACLs, err)
	}
}
