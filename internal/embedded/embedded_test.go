package embedded

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
)

func TestLazyAttrsKeepsWhatIsLogged(t *testing.T) {
	var buf bytes.Buffer
	text := slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelError})
	log := slog.New(&lazyAttrs{h: text}).With("component", "store").WithGroup("q").With("sql", "SELECT 1")
	log.Info("dropped")
	log.Error("kept", "n", 1)
	got := buf.String()
	if strings.Contains(got, "dropped") {
		t.Errorf("a record below the level was written: %s", got)
	}
	for _, want := range []string{"msg=kept", "component=store", "q.sql=\"SELECT 1\"", "q.n=1"} {
		if !strings.Contains(got, want) {
			t.Errorf("log %q lacks %s", got, want)
		}
	}
}

func TestStartAndClose(t *testing.T) {
	s, err := Start(Config{DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(s.URI(), "mongodb://127.0.0.1:") {
		t.Errorf("URI = %s", s.URI())
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := Start(Config{}); err == nil {
		t.Error("Start without a data dir succeeded")
	}
}
