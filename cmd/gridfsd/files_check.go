package main

import (
	"bufio"
	"fmt"
	"time"

	"github.com/gridfsd/gridfsd/buckets"
	"github.com/spf13/cobra"
)

// verify and fsck: the checks live in package buckets, where the gateway
// and the background sweeper reuse them; these commands only print.

func (a *app) verifyCommand() *cobra.Command {
	var id string
	cmd := &cobra.Command{
		Use:   "verify [name...]",
		Short: "Re-read files and check their chunks and stored SHA-256 (every file when none is named)",
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := a.open(cmd, true)
			if err != nil {
				return err
			}
			defer s.close()
			files, err := s.filesToVerify(cmd, args, id)
			if err != nil {
				return err
			}
			bar, err := s.checkProgress("verify", func() (int64, error) { return totalLength(s, files) })
			if err != nil {
				return err
			}
			w := bufio.NewWriter(s.out())
			defer w.Flush()
			start := time.Now()
			var checked, damaged, bytes int64
			check := func(f *buckets.File) error {
				c, err := s.bucket.VerifyProgress(s.ctx, f, bar.add)
				if err != nil {
					return err
				}
				checked++
				bytes += f.Length
				if !c.OK() {
					damaged++
				}
				for _, p := range c.Problems {
					fmt.Fprintf(w, "%s\t%s\t%v\n", f.Filename, buckets.FormatID(f.ID), p)
				}
				return nil
			}
			if files == nil {
				// Every file, and as damage every files document the
				// listing skips because no reader can use it.
				q := buckets.Query{Limit: buckets.MaxLimit}
				for err == nil {
					var page *buckets.Page
					if page, err = s.bucket.Find(s.ctx, q); err != nil {
						break
					}
					for _, f := range page.Files {
						if err = check(f); err != nil {
							break
						}
					}
					for _, sk := range page.Skipped {
						checked++
						damaged++
						fmt.Fprintf(w, "%s\t%s\t%v\n", "", buckets.FormatID(sk.ID), sk.Err)
					}
					if page.Next == "" {
						break
					}
					q.After = page.Next
				}
			} else {
				for _, f := range files {
					if err = check(f); err != nil {
						break
					}
				}
			}
			bar.finish()
			if err != nil {
				return err
			}
			if err := w.Flush(); err != nil {
				return err
			}
			s.logf("verified %d files (%s) in %s: %d damaged", checked, byteSize(bytes), took(start, bytes), damaged)
			if damaged > 0 {
				return damagef("%d of %d files are damaged", damaged, checked)
			}
			return nil
		},
	}
	fileFlags(cmd)
	cmd.Flags().StringVar(&id, "id", "", "verify the file with this _id")
	return cmd
}

// filesToVerify is the newest revision of each name, the file --id names,
// or nil for every file of the bucket.
func (s *session) filesToVerify(cmd *cobra.Command, names []string, id string) ([]*buckets.File, error) {
	var files []*buckets.File
	if cmd.Flags().Changed("id") {
		v, err := parseID(id)
		if err != nil {
			return nil, err
		}
		f, err := s.bucket.Stat(s.ctx, v)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	for _, name := range names {
		f, err := s.bucket.FindByName(s.ctx, name, -1)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	return files, nil
}

func (a *app) fsckCommand() *cobra.Command {
	var grace time.Duration
	var repair bool
	cmd := &cobra.Command{
		Use:   "fsck",
		Short: "Find orphaned chunks and files with missing or wrong-size chunks; --repair removes the orphans",
		Args:  argsBetween(0, 0),
		RunE: func(cmd *cobra.Command, args []string) error {
			if grace <= 0 {
				return usagef("--grace %s: must be more than 0", grace)
			}
			s, err := a.open(cmd, true)
			if err != nil {
				return err
			}
			defer s.close()
			bar, err := s.checkProgress("fsck "+s.bucket.Name(), func() (int64, error) { return totalLength(s, nil) })
			if err != nil {
				return err
			}
			start := time.Now()
			rep, err := s.bucket.FsckProgress(s.ctx, grace, bar.add)
			bar.finish()
			if err != nil {
				return err
			}
			w := bufio.NewWriter(s.out())
			defer w.Flush()
			for _, d := range rep.Damaged {
				for _, p := range d.Problems {
					fmt.Fprintf(w, "damaged\t%s\t%s\t%v\n", d.File.Filename, buckets.FormatID(d.File.ID), p)
				}
			}
			var orphanChunks int64
			for _, o := range rep.Old {
				orphanChunks += o.Chunks
				if !repair {
					fmt.Fprintf(w, "orphan\t%s\t%d chunks\tnewest %s\n", buckets.FormatID(o.FilesID), o.Chunks, o.Newest().UTC().Format(time.RFC3339))
				}
			}
			if repair && len(rep.Old) > 0 {
				removed, chunks, err := s.bucket.RemoveOrphans(s.ctx, rep.Old)
				for _, o := range removed {
					fmt.Fprintf(w, "removed\t%s\t%d chunks\n", buckets.FormatID(o.FilesID), o.Chunks)
				}
				if err != nil {
					return err
				}
				s.logf("removed %d orphaned chunks of %d files", chunks, len(removed))
			}
			// Not damage: gridfsd hides them already, and the expiry
			// sweeper of a running gateway removes them.
			expired, err := s.bucket.ExpiredPresent(s.ctx)
			if err != nil {
				return err
			}
			if expired > 0 {
				fmt.Fprintf(w, "expired\t%d files\tpast their expiry, still stored: other GridFS tools see them until the expiry sweeper removes them\n", expired)
			}
			if err := w.Flush(); err != nil {
				return err
			}
			s.logf("checked %d files and %d chunks in %s: %d damaged files, %d orphaned chunks of %d files older than %s, %d files_ids with recent chunks left alone (uploads in progress?), %d expired files still stored",
				rep.Files, rep.Chunks, took(start, -1), len(rep.Damaged), orphanChunks, len(rep.Old), grace, len(rep.Pending), expired)
			switch {
			case len(rep.Damaged) > 0:
				return damagef("%d damaged files in bucket %s (verify shows what is wrong with them)", len(rep.Damaged), s.bucket.Name())
			case len(rep.Old) > 0 && !repair:
				return damagef("%d orphaned chunks of %d files in bucket %s (fsck --repair removes them)", orphanChunks, len(rep.Old), s.bucket.Name())
			}
			return nil
		},
	}
	fileFlags(cmd)
	cmd.Flags().DurationVar(&grace, "grace", buckets.DefaultGrace, "leave chunks newer than this alone: they may belong to an upload in progress")
	cmd.Flags().BoolVar(&repair, "repair", false, "remove the orphaned chunks older than --grace")
	return cmd
}

// checkProgress is the progress bar of verify and fsck on stderr: nil
// unless stderr is a terminal and --quiet is off. total, the bytes the
// check will read, costs a query, so it is asked only when a bar is drawn.
func (s *session) checkProgress(label string, total func() (int64, error)) (*progress, error) {
	w := s.cmd.ErrOrStderr()
	if s.cfg.Quiet || !isTerminal(w) {
		return nil, nil
	}
	n, err := total()
	if err != nil {
		return nil, err
	}
	return newProgress(w, false, label, n), nil
}

// totalLength is the bytes of files, or of every file in the bucket when
// files is nil.
func totalLength(s *session, files []*buckets.File) (int64, error) {
	if files == nil {
		st, err := s.bucket.Stats(s.ctx)
		return st.Bytes, err
	}
	var n int64
	for _, f := range files {
		n += f.Length
	}
	return n, nil
}

// took says how long a check since start took and, when bytes is not
// negative, how fast it read.
func took(start time.Time, bytes int64) string {
	d := time.Since(start)
	s := d.Round(time.Millisecond).String()
	if bytes >= 0 && d > 0 {
		s += fmt.Sprintf(", %s/s", byteSize(int64(float64(bytes)/d.Seconds())))
	}
	return s
}
