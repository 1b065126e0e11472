package main

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/gridfsd/gridfsd/buckets"
	"github.com/spf13/cobra"
)

// Exit statuses of every command (API.md): scripts tell a typo from a
// failed transfer, and a failed check from both.
const (
	exitFailure = 1
	exitUsage   = 2
	exitDamage  = 3
)

// damageError is what verify and fsck found wrong with the data: exit 3.
type damageError struct{ msg string }

func (e damageError) Error() string { return e.msg }

func damagef(format string, args ...any) error {
	return damageError{fmt.Sprintf(format, args...)}
}

// usageError is wrong usage: an unknown flag, a missing or extra argument,
// a flag or configuration value out of range. Exit 2, and nothing written.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// usagef is a usageError with a message of its own.
func usagef(format string, args ...any) error {
	return usageError{fmt.Errorf(format, args...)}
}

// asUsage marks err, if any, as wrong usage.
func asUsage(err error) error {
	if err == nil {
		return nil
	}
	return usageError{err}
}

// exitStatus is the status the process ends with after err.
func exitStatus(err error) int {
	var u usageError
	var d damageError
	switch {
	case errors.As(err, &u):
		return exitUsage
	case errors.As(err, &d):
		return exitDamage
	// A regex or --regexOptions the command was given that no store
	// would read: the typo is the user's, whichever side caught it.
	case errors.Is(err, buckets.ErrInvalidQuery):
		return exitUsage
	// cobra reports an unknown command with a plain error of its own.
	case strings.HasPrefix(err.Error(), "unknown command "):
		return exitUsage
	}
	return exitFailure
}

// usageArgs marks the errors of a cobra argument check as wrong usage.
func usageArgs(check cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		return asUsage(check(cmd, args))
	}
}

// argsBetween checks the positional arguments, with mongofiles' messages
// followed by the name of the missing argument taken from the command's
// Use line ("get_id <id>").
func argsBetween(lo, hi int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		for i, a := range args {
			if a == "" && i < lo {
				return usagef("'%s' argument missing: %s is empty (usage: gridfsd %s)", cmd.Name(), argName(cmd, i), cmd.Use)
			}
		}
		switch {
		case len(args) < lo:
			return usagef("'%s' argument missing: %s (usage: gridfsd %s)", cmd.Name(), argName(cmd, len(args)), cmd.Use)
		case hi >= 0 && len(args) > hi:
			return usagef("'%s': too many positional arguments (usage: gridfsd %s)", cmd.Name(), cmd.Use)
		}
		return nil
	}
}

// argName is the i-th argument's name in the Use line, "<id>" in
// "put_id <file> <id>"; a trailing "<name>..." names every later one. A
// "<name|--id id>" is not counted when --id was given.
func argName(cmd *cobra.Command, i int) string {
	var names []string
	for _, n := range useArgs.FindAllString(cmd.Use, -1) {
		if strings.Contains(n, "|--id") && cmd.Flags().Changed("id") {
			continue
		}
		names = append(names, n)
	}
	switch {
	case len(names) == 0:
		return "an argument"
	case i < len(names):
		return names[i]
	}
	return names[len(names)-1]
}

// useArgs are the argument names of a Use line.
var useArgs = regexp.MustCompile(`<[^>]*>|\[[^\]]*\]`)
