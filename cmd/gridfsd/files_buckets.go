package main

import (
	"bufio"
	"encoding/json"
	"fmt"

	"github.com/gridfsd/gridfsd/buckets"
	"github.com/gridfsd/gridfsd/chunker"
	"github.com/gridfsd/gridfsd/config"
	"github.com/spf13/cobra"
)

// buckets, buckets create, buckets drop: the buckets of the database.

func (a *app) bucketsCommand() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "buckets",
		Short: "List the database's buckets: name<TAB>files<TAB>bytes<TAB>chunkSize; create and drop them",
		Args:  argsBetween(0, 0),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := a.open(cmd, false)
			if err != nil {
				return err
			}
			defer s.close()
			list, err := s.db.List(s.ctx)
			if err != nil {
				return err
			}
			w := bufio.NewWriter(s.out())
			for _, b := range list {
				if asJSON {
					out, err := json.Marshal(b)
					if err != nil {
						return err
					}
					fmt.Fprintf(w, "%s\n", out)
					continue
				}
				cs := b.Settings.ChunkSize
				if cs == 0 {
					cs = chunker.DefaultChunkSize
				}
				fmt.Fprintf(w, "%s\t%d\t%d\t%d\n", b.Name, b.Files, b.Bytes, cs)
			}
			return w.Flush()
		},
	}
	cmd.Flags().Bool(config.KeyQuiet, false, "print no log lines on stderr, only errors")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON document per bucket instead")
	cmd.AddCommand(a.bucketsCreateCommand(), a.bucketsDropCommand(), a.bucketsLifecycleCommand())
	return cmd
}

func (a *app) bucketsCreateCommand() *cobra.Command {
	var chunkSize, maxFileSize string
	cmd := &cobra.Command{
		Use:   "create <name>",
		Short: "Create a bucket (its indexes and settings), or change the settings of one",
		Args:  argsBetween(1, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var st buckets.Settings
			if chunkSize != "" {
				n, err := config.ParseSize(chunkSize)
				if err != nil {
					return usagef("--chunk-size: %w", err)
				}
				// Settings read 0 as "the default"; asked for, it is an error.
				if err := chunker.CheckChunkSize(n); err != nil {
					return usagef("--chunk-size: %w", err)
				}
				st.ChunkSize = int(n)
			}
			if maxFileSize != "" {
				n, err := config.ParseSize(maxFileSize)
				if err != nil {
					return usagef("--max-file-size: %w", err)
				}
				st.MaxFileSize = n
			}
			s, err := a.open(cmd, false)
			if err != nil {
				return err
			}
			defer s.close()
			if _, err := s.db.Create(s.ctx, args[0], st); err != nil {
				return err
			}
			s.logf("created bucket %s", args[0])
			return nil
		},
	}
	cmd.Flags().Bool(config.KeyQuiet, false, "print no log lines on stderr, only errors")
	cmd.Flags().StringVar(&chunkSize, "chunk-size", "", "chunk size of uploads that choose none, such as 261120 or 1MiB (default 255 KiB)")
	cmd.Flags().StringVar(&maxFileSize, "max-file-size", "", "refuse larger uploads, such as 5GiB (default no limit)")
	return cmd
}

func (a *app) bucketsDropCommand() *cobra.Command {
	var force bool
	cmd := &cobra.Command{
		Use:   "drop <name>",
		Short: "Drop a bucket: its files, chunks and settings; refuses a bucket with files unless --force",
		Args:  argsBetween(1, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := a.open(cmd, false)
			if err != nil {
				return err
			}
			defer s.close()
			if err := s.db.Drop(s.ctx, args[0], force); err != nil {
				return err
			}
			s.logf("dropped bucket %s", args[0])
			return nil
		},
	}
	cmd.Flags().Bool(config.KeyQuiet, false, "print no log lines on stderr, only errors")
	cmd.Flags().BoolVar(&force, "force", false, "drop the bucket even if it holds files")
	return cmd
}

func (a *app) bucketsLifecycleCommand() *cobra.Command {
	var set string
	var clear bool
	cmd := &cobra.Command{
		Use:   "lifecycle <name> [--set JSON | --clear]",
		Short: "Print a bucket's lifecycle rules as JSON, or replace them with --set, or remove them with --clear",
		Long: `Print a bucket's lifecycle rules as JSON, or replace them with --set, or remove them with --clear.
A rule: {"id": "tmp", "prefix": "tmp/", "expireAfter": "30d", "expireDate": "2030-01-01T00:00:00Z",
"keepRevisions": 3, "expireOldRevisionsAfter": "7d", "abortUnfinishedAfter": "1d", "disabled": false};
"tags": [{"key": "k", "value": "v"}] restricts expireAfter and expireDate to files carrying them
(docs/API.md, "Expiry and lifecycle"). Files a rule expires are invisible through gridfsd at once;
the sweeper of a running gateway removes them, and until then other GridFS tools still see them.`,
		Args: argsBetween(1, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if set != "" && clear {
				return usagef("--set and --clear exclude each other")
			}
			var rules []buckets.Rule
			if set != "" || clear {
				var err error
				if rules, err = buckets.ParseLifecycleJSON([]byte(set)); err != nil {
					return usagef("--set: %v", err)
				}
			}
			s, err := a.open(cmd, false)
			if err != nil {
				return err
			}
			defer s.close()
			b, err := s.db.Bucket(s.ctx, args[0])
			if err != nil {
				return err
			}
			if set != "" || clear {
				if b, err = s.db.SetLifecycle(s.ctx, args[0], rules); err != nil {
					return err
				}
				s.logf("set %d lifecycle rules of bucket %s", len(rules), args[0])
			}
			out, err := json.Marshal(b.Settings().Lifecycle)
			if err != nil {
				return err
			}
			if string(out) == "null" {
				out = []byte("[]")
			}
			_, err = fmt.Fprintf(s.out(), "%s\n", out)
			return err
		},
	}
	cmd.Flags().Bool(config.KeyQuiet, false, "print no log lines on stderr, only errors")
	cmd.Flags().StringVar(&set, "set", "", `replace the rules with this JSON list, such as '[{"prefix": "tmp/", "expireAfter": "7d"}]'`)
	cmd.Flags().BoolVar(&clear, "clear", false, "remove every rule")
	return cmd
}
