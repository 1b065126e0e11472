package tests

import (
	"net"
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestDockerfileListens checks the addresses the image listens on: the
// HTTP and S3 APIs on every interface of the container, so that -p
// publishes them, and the embedded store's wire port, which has no
// authentication, on the container's loopback only and not exposed.
func TestDockerfileListens(t *testing.T) {
	raw, err := os.ReadFile("../Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	// Join continuation lines, then read ENV k=v pairs and EXPOSE.
	text := strings.ReplaceAll(string(raw), "\\\n", " ")
	env := map[string]string{}
	var exposed []string
	for _, line := range strings.Split(text, "\n") {
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		switch strings.ToUpper(fields[0]) {
		case "ENV":
			for _, kv := range fields[1:] {
				if k, v, ok := strings.Cut(kv, "="); ok {
					env[k] = strings.Trim(v, `"`)
				}
			}
		case "EXPOSE":
			exposed = append(exposed, fields[1:]...)
		}
	}
	host := func(key string) net.IP {
		h, _, err := net.SplitHostPort(env[key])
		if err != nil {
			t.Fatalf("%s=%q: %v", key, env[key], err)
		}
		return net.ParseIP(h)
	}
	if ip := host("GRIDFSD_EMBEDDED_LISTEN"); ip == nil || !ip.IsLoopback() {
		t.Errorf("GRIDFSD_EMBEDDED_LISTEN=%s: the unauthenticated store must stay on loopback", env["GRIDFSD_EMBEDDED_LISTEN"])
	}
	for _, key := range []string{"GRIDFSD_LISTEN", "GRIDFSD_S3_LISTEN"} {
		if ip := host(key); ip == nil || !ip.IsUnspecified() {
			t.Errorf("%s=%s: -p cannot publish a port bound to loopback inside the container", key, env[key])
		}
	}
	_, embeddedPort, _ := net.SplitHostPort(env["GRIDFSD_EMBEDDED_LISTEN"])
	for _, p := range exposed {
		if regexp.MustCompile(`^` + embeddedPort + `(/tcp)?$`).MatchString(p) {
			t.Errorf("EXPOSE %s: the embedded store's port is exposed", p)
		}
	}
	if strings.Join(exposed, " ") != "8080 9000" {
		t.Errorf("EXPOSE %v, want 8080 9000", exposed)
	}
}
