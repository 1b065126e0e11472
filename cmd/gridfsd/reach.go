package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"syscall"
	"time"

	"github.com/gridfsd/gridfsd/third_party/mongo-driver/mongo"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/x/mongo/driver/connstring"
)

// embeddedURI is the connection string of the embedded store that serve
// starts on addr: what a file command uses without --uri, so that the
// same configuration reaches the same store. An unspecified host (every
// interface) is reached on loopback.
func embeddedURI(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "mongodb://" + addr
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		host = "127.0.0.1"
	}
	return "mongodb://" + net.JoinHostPort(host, port)
}

// probeAfter is how long a ping may take before reach asks the store's
// hosts what they are: a healthy store answers well within it.
const probeAfter = time.Second

// reach waits until the store answers a ping, at most timeout. Rather than
// the driver's wait for a selectable server (the whole timeout, then a
// topology dump), a store whose every host refuses connections fails at
// once, and one whose hosts answer HTTP (the gateway's port given for the
// store's) fails with a reason that says so.
func reach(ctx context.Context, client *mongo.Client, uri string, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	pinged := make(chan error, 1)
	go func() { pinged <- client.Ping(ctx, nil) }()
	hosts := seedHosts(uri)
	if len(hosts) > 0 {
		if refused(ctx, hosts) {
			return fmt.Errorf("cannot reach MongoDB at %s: connection refused; is `gridfsd serve` (or MongoDB) running there?", redactURI(uri))
		}
	}
	select {
	case err := <-pinged:
		return pingError(uri, timeout, err)
	case <-time.After(probeAfter):
	}
	for _, h := range hosts {
		if speaksHTTP(ctx, h) {
			return fmt.Errorf("cannot reach MongoDB at %s: %s answers HTTP, not the MongoDB protocol (is it gridfsd's HTTP port? the embedded store listens on --embedded-listen, 127.0.0.1:27017 by default)", redactURI(uri), h)
		}
	}
	return pingError(uri, timeout, <-pinged)
}

func pingError(uri string, timeout time.Duration, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("cannot reach MongoDB at %s within %s: %w", redactURI(uri), timeout, err)
}

// seedHosts are the host:port pairs of a mongodb:// URI; none for
// mongodb+srv:// (found through DNS) or unix sockets.
func seedHosts(uri string) []string {
	cs, err := connstring.Parse(uri)
	if err != nil || cs.Scheme != connstring.SchemeMongoDB {
		return nil
	}
	var hosts []string
	for _, h := range cs.Hosts {
		if strings.HasSuffix(h, ".sock") {
			return nil
		}
		if _, _, err := net.SplitHostPort(h); err != nil {
			h = net.JoinHostPort(h, "27017")
		}
		hosts = append(hosts, h)
	}
	return hosts
}

// refused reports whether every host refuses TCP connections. Any other
// outcome (accepted, timed out, unresolvable) leaves the answer to the
// driver.
func refused(ctx context.Context, hosts []string) bool {
	results := make(chan bool, len(hosts))
	for _, h := range hosts {
		go func() {
			d := net.Dialer{Timeout: probeAfter}
			c, err := d.DialContext(ctx, "tcp", h)
			if err == nil {
				c.Close()
			}
			results <- errors.Is(err, syscall.ECONNREFUSED)
		}()
	}
	all := true
	for range hosts {
		all = <-results && all
	}
	return all
}

// speaksHTTP reports whether host answers an HTTP request as an HTTP server
// that is not MongoDB (mongod answers HTTP on its port with a page saying
// it is MongoDB).
func speaksHTTP(ctx context.Context, host string) bool {
	d := net.Dialer{Timeout: probeAfter}
	c, err := d.DialContext(ctx, "tcp", host)
	if err != nil {
		return false
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(probeAfter))
	if _, err := c.Write([]byte("GET / HTTP/1.0\r\nHost: " + host + "\r\n\r\n")); err != nil {
		return false
	}
	r := bufio.NewReader(c)
	line, err := r.ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "HTTP/") {
		return false
	}
	var page strings.Builder
	for page.Len() < 4096 {
		l, err := r.ReadString('\n')
		page.WriteString(l)
		if err != nil {
			break
		}
	}
	return !strings.Contains(page.String(), "MongoDB over HTTP")
}
