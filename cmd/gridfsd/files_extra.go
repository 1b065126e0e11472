package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/gridfsd/gridfsd/buckets"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/bson"
	"github.com/spf13/cobra"
)

// The file commands mongofiles lacks: rename, meta, stat and cat.

func (a *app) renameCommand() *cobra.Command {
	var t target
	cmd := &cobra.Command{
		Use:   "rename <name|--id id> <new-name>",
		Short: "Rename every revision of a file (one revision with --revision, one file with --id)",
		Args:  t.args(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := a.open(cmd, true)
			if err != nil {
				return err
			}
			defer s.close()
			newName := args[len(args)-1]
			if !cmd.Flags().Changed("id") && !cmd.Flags().Changed("revision") {
				if err := s.bucket.RenameName(s.ctx, args[0], newName); err != nil {
					return err
				}
				s.logf("renamed every revision of '%s' to '%s'", args[0], newName)
				return nil
			}
			f, err := t.resolve(s, firstArg(args, len(args)-1))
			if err != nil {
				return err
			}
			if err := s.bucket.Rename(s.ctx, f.ID, newName); err != nil {
				return err
			}
			s.logf("renamed file with _id %s from '%s' to '%s'", buckets.FormatID(f.ID), f.Filename, newName)
			return nil
		},
	}
	fileFlags(cmd)
	t.flags(cmd)
	return cmd
}

// firstArg is args[0] when the name is among the n leading arguments.
func firstArg(args []string, n int) string {
	if n > 0 {
		return args[0]
	}
	return ""
}

func (a *app) metaCommand() *cobra.Command {
	var t target
	var set string
	cmd := &cobra.Command{
		Use:   "meta <name|--id id> [--set json]",
		Short: "Print a file's metadata, or replace it with --set",
		Args:  t.args(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			var md bson.D
			if cmd.Flags().Changed("set") {
				var err error
				if md, err = buckets.ParseMetadataJSON([]byte(set)); err != nil {
					return asUsage(fmt.Errorf("--set: %w", err))
				}
			}
			s, err := a.open(cmd, true)
			if err != nil {
				return err
			}
			defer s.close()
			f, err := t.resolve(s, firstArg(args, len(args)))
			if err != nil {
				return err
			}
			if cmd.Flags().Changed("set") {
				if err := s.bucket.SetMetadata(s.ctx, f.ID, md); err != nil {
					return err
				}
				if f, err = s.bucket.Stat(s.ctx, f.ID); err != nil {
					return err
				}
			}
			out := []byte("{}")
			if f.Metadata != nil {
				if out, err = bson.MarshalExtJSON(f.Metadata, false, false); err != nil {
					return fmt.Errorf("metadata of %s as JSON: %w", buckets.FormatID(f.ID), err)
				}
			}
			_, err = fmt.Fprintf(s.out(), "%s\n", out)
			return err
		},
	}
	fileFlags(cmd)
	t.flags(cmd)
	cmd.Flags().StringVar(&set, "set", "", `replace the metadata with this Extended JSON object ("{}" removes it)`)
	return cmd
}

func (a *app) statCommand() *cobra.Command {
	var t target
	var raw bool
	cmd := &cobra.Command{
		Use:   "stat <name|--id id>",
		Short: "Print a file's files document as JSON",
		Args:  t.args(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := a.open(cmd, true)
			if err != nil {
				return err
			}
			defer s.close()
			f, err := t.resolve(s, firstArg(args, len(args)))
			if err != nil {
				return err
			}
			var out []byte
			if raw {
				out, err = bson.MarshalExtJSON(f.Raw, false, false)
			} else {
				out, err = json.Marshal(f)
			}
			if err != nil {
				return fmt.Errorf("file %s as JSON: %w", buckets.FormatID(f.ID), err)
			}
			_, err = fmt.Fprintf(s.out(), "%s\n", out)
			return err
		},
	}
	fileFlags(cmd)
	t.flags(cmd)
	cmd.Flags().BoolVar(&raw, "raw", false, "print the stored document as relaxed Extended JSON, every field as it is")
	return cmd
}

// errRange is a --range outside the file.
var errRange = errors.New("range not satisfiable")

func (a *app) catCommand() *cobra.Command {
	var t target
	var spec string
	cmd := &cobra.Command{
		Use:   "cat <name|--id id> [--range A-B]",
		Short: "Write a file, or a byte range of it, to stdout",
		Args:  t.args(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			// The spec's syntax, before connecting: no offset is past a
			// file of the largest length.
			if _, _, err := parseRange(spec, math.MaxInt64); err != nil {
				return err
			}
			s, err := a.open(cmd, true)
			if err != nil {
				return err
			}
			defer s.close()
			f, err := t.resolve(s, firstArg(args, len(args)))
			if err != nil {
				return err
			}
			off, n, err := parseRange(spec, f.Length)
			if err != nil {
				return err
			}
			d, err := s.bucket.Open(s.ctx, f)
			if err != nil {
				return err
			}
			defer d.Close()
			// Seek is O(1) and the reader starts its chunk cursor at the
			// chunk holding off, so only the chunks of the range are read.
			if _, err := d.Seek(off, io.SeekStart); err != nil {
				return err
			}
			if _, err := io.Copy(s.out(), io.LimitReader(d, n)); err != nil {
				return fmt.Errorf("cat %s: %w", f.Filename, err)
			}
			return nil
		},
	}
	fileFlags(cmd)
	t.flags(cmd)
	cmd.Flags().StringVar(&spec, "range", "", "bytes A to B inclusive, counted from 0: A-B, A- (to the end) or -N (the last N)")
	return cmd
}

// parseRange reads an HTTP-style byte range of a file of length bytes and
// returns its offset and size. An empty spec is the whole file. A spec
// that is no range is wrong usage; errRange is a range outside the file.
func parseRange(spec string, length int64) (off, n int64, err error) {
	if spec == "" {
		return 0, length, nil
	}
	bad := func() (int64, int64, error) {
		return 0, 0, usagef("--range %q: want A-B, A- or -N with byte offsets from 0", spec)
	}
	first, last, ok := strings.Cut(strings.TrimSpace(spec), "-")
	if !ok {
		return bad()
	}
	num := func(s string) (int64, bool) {
		v, err := strconv.ParseInt(s, 10, 64)
		return v, err == nil && v >= 0
	}
	switch {
	case first == "": // the last N bytes
		suffix, ok := num(last)
		if !ok || suffix == 0 {
			return bad()
		}
		if length == 0 {
			return 0, 0, fmt.Errorf("%w: --range %s of an empty file", errRange, spec)
		}
		suffix = min(suffix, length)
		return length - suffix, suffix, nil
	default:
		start, ok := num(first)
		if !ok {
			return bad()
		}
		end := length - 1
		if last != "" {
			if end, ok = num(last); !ok || end < start {
				return bad()
			}
		}
		if start >= length {
			return 0, 0, fmt.Errorf("%w: --range %s starts at or after the end of the file (%d bytes)", errRange, spec, length)
		}
		end = min(end, length-1)
		return start, end - start + 1, nil
	}
}
