package main

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/gridfsd/gridfsd/auth"
	"github.com/gridfsd/gridfsd/resumable"
	"github.com/spf13/cobra"
)

// newSignCommand prints a signed URL, so that a browser can play or upload
// one file without a token.
func (a *app) newSignCommand() *cobra.Command {
	var expires time.Duration
	var base string
	cmd := &cobra.Command{
		Use:   "sign <METHOD> <path>",
		Short: "Print a URL that allows METHOD on path until it expires (needs auth.signing_key)",
		Example: `  gridfsd sign GET /b/media/clip.webm --expires 1h
  gridfsd sign PUT /b/uploads/report.pdf --expires 15m --base https://files.example.com`,
		Args: argsBetween(2, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := a.load()
			if err != nil {
				return err
			}
			method := strings.ToUpper(args[0])
			switch method {
			case "GET", "HEAD", "PUT", "DELETE", "PATCH":
			case "POST":
				// Only the creation of resumable uploads is signed for POST.
				if !strings.HasPrefix(args[1], resumable.DefaultPrefix) {
					return usagef("POST is signed only for %s{bucket}/ (resumable uploads)", resumable.DefaultPrefix)
				}
			default:
				return usagef("method %q is not GET, HEAD, PUT, DELETE, PATCH or POST", args[0])
			}
			if expires <= 0 {
				return usagef("--expires must be more than 0")
			}
			u, err := url.Parse(args[1])
			if err != nil || !strings.HasPrefix(u.Path, "/") || u.Host != "" {
				return usagef("path %q must be an absolute path such as /b/media/clip.webm?download=1", args[1])
			}
			query, err := url.ParseQuery(u.RawQuery)
			if err != nil {
				return usagef("path %q: query: %w", args[1], err)
			}
			authz, err := auth.New(c.Auth)
			if err != nil {
				return fmt.Errorf("configuration: %w", err)
			}
			// Refused beyond auth's maximum: the gateway would refuse the
			// URL anyway, and a long-lived one is what a leak must not give.
			q, err := authz.Sign(auth.KeyHolder, method, u.Path, query, time.Now().Add(expires))
			if errors.Is(err, auth.ErrSignedLifeTooLong) {
				return usagef("--expires %s: %w (auth.max_signed_life is %s)", expires, err, authz.MaxSignedLife())
			}
			if err != nil {
				return err
			}
			if base == "" {
				scheme := "http"
				if c.TLS.Cert != "" {
					scheme = "https"
				}
				base = scheme + "://" + c.Listen
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s%s?%s\n", strings.TrimSuffix(base, "/"), u.EscapedPath(), q)
			return nil
		},
	}
	cmd.Flags().DurationVar(&expires, "expires", time.Hour, "how long the URL stays valid")
	cmd.Flags().StringVar(&base, "base", "", "scheme and host the URL starts with (default: http(s)://<listen>)")
	return cmd
}
