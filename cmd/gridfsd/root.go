package main

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
	"time"

	"github.com/gridfsd/gridfsd/config"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/mongo"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/mongo/options"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/x/mongo/driver/connstring"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/spf13/viper"
)

// app carries what every command shares: the configuration being read.
// It lives for one run of the binary; nothing is package-level.
type app struct {
	v          *viper.Viper
	configFile string
}

func newRootCommand() *cobra.Command {
	a := &app{v: config.New()}
	root := &cobra.Command{
		Use:           "gridfsd",
		Short:         "HTTP gateway and command line for MongoDB GridFS",
		Version:       version(),
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			if a.configFile != "" {
				return asUsage(config.ReadFile(a.v, a.configFile))
			}
			return nil
		},
	}
	root.SetVersionTemplate("gridfsd {{.Version}}\n")
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return asUsage(err) })
	pf := root.PersistentFlags()
	pf.StringVar(&a.configFile, "config", "", "read settings from this YAML or TOML file")
	pf.String(config.KeyURI, "", "MongoDB connection string (serve: empty starts the embedded store; file commands: mongodb://<embedded-listen>, the store serve starts)")
	pf.StringP(config.KeyDB, "d", "", `database (default "test", or the database in --uri)`)
	durationFlag(pf, config.KeyConnectTimeout, "how long to look for a reachable MongoDB before failing (a store refusing connections fails at once)")
	pf.String(config.KeyEmbeddedListen, config.Default(config.KeyEmbeddedListen), "MongoDB wire protocol address of the embedded store: serve listens there without --uri, file commands connect there without --uri")
	a.bind(pf.Lookup(config.KeyURI), pf.Lookup(config.KeyDB), pf.Lookup(config.KeyConnectTimeout), pf.Lookup(config.KeyEmbeddedListen))

	a.addCommands(root)
	root.AddCommand(&cobra.Command{
		Use:   "version",
		Short: "Print the version, the commit and the Go version",
		Args:  argsBetween(0, 0),
		Run: func(cmd *cobra.Command, _ []string) {
			fmt.Fprintln(cmd.OutOrStdout(), "gridfsd", version())
		},
	})
	return root
}

// version is the module version (a tag when installed with go install
// module@version, "(devel)" when built in a clone), the commit and whether
// the tree had changes, and the Go version that built the binary.
func version() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "(unknown) " + runtime.Version()
	}
	v := info.Main.Version
	if v == "" {
		v = "(devel)"
	}
	var commit, modified string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			commit = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				modified = " (modified)"
			}
		}
	}
	if commit != "" {
		v += " commit " + commit[:min(12, len(commit))] + modified
	}
	return fmt.Sprintf("%s %s %s/%s", v, info.GoVersion, runtime.GOOS, runtime.GOARCH)
}

// durationFlag defines a duration-valued key as a flag of type duration,
// so --help says what to type ("--connect-timeout duration").
func durationFlag(fs *pflag.FlagSet, key, usage string) {
	d, err := time.ParseDuration(config.Default(key))
	if err != nil {
		panic(fmt.Sprintf("default of %s: %v", key, err)) // a programming error
	}
	fs.Duration(key, d, usage)
}

// sizeValue is a byte count typed as "size" in --help (512MiB, 2GB).
type sizeValue string

func (s *sizeValue) String() string { return string(*s) }
func (s *sizeValue) Type() string   { return "size" }
func (s *sizeValue) Set(v string) error {
	if _, err := config.ParseSize(v); err != nil {
		return err
	}
	*s = sizeValue(v)
	return nil
}

// sizeFlag defines a size-valued key as a flag of type size.
func sizeFlag(fs *pflag.FlagSet, key, usage string) {
	v := sizeValue(config.Default(key))
	fs.Var(&v, key, usage)
}

// commandFirst moves the command's path (its name, and the names of the
// subcommands leading to it: "buckets drop") in front of the flags typed
// before or between them, so that "gridfsd --quiet -d media list" and
// "gridfsd --force buckets drop x" work as mongofiles' own "mongofiles
// <options> <command>" does: cobra alone knows only a command's own flags
// before the name of its subcommand. A flag's value is never taken for a
// command; the first argument that names no subcommand ends the path.
func commandFirst(root *cobra.Command, args []string) []string {
	// Whether a flag takes a value, over every command: a flag typed
	// before the command belongs to one not found yet. A name means the
	// same in every command that has it (TestFlagsBeforeCommand).
	takesValue := map[string]bool{}
	var note func(c *cobra.Command)
	note = func(c *cobra.Command) {
		for _, fs := range []*pflag.FlagSet{c.PersistentFlags(), c.Flags()} {
			fs.VisitAll(func(f *pflag.Flag) {
				v := f.NoOptDefVal == ""
				takesValue["--"+f.Name] = v
				if f.Shorthand != "" {
					takesValue["-"+f.Shorthand] = v
				}
			})
		}
		for _, sub := range c.Commands() {
			note(sub)
		}
	}
	note(root)
	var path, flags []string
	c := root
	i := 0
scan:
	for ; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			break scan
		case strings.HasPrefix(a, "-"):
			flags = append(flags, a)
			if !strings.Contains(a, "=") && takesValue[a] && i+1 < len(args) {
				i++ // its value
				flags = append(flags, args[i])
			}
		default:
			sub := subcommand(c, a)
			if sub == nil {
				break scan // a positional argument, or an unknown command cobra reports
			}
			path = append(path, a)
			c = sub
		}
	}
	if len(path) == 0 {
		return args
	}
	out := append(path, flags...)
	return append(out, args[i:]...)
}

// subcommand is c's subcommand called name, or nil.
func subcommand(c *cobra.Command, name string) *cobra.Command {
	for _, sub := range c.Commands() {
		if sub.Name() == name {
			return sub
		}
	}
	return nil
}

// bind makes flags that were set on the command line override the
// environment and the config file for their key.
func (a *app) bind(flags ...*pflag.Flag) {
	for _, f := range flags {
		if err := a.v.BindPFlag(f.Name, f); err != nil {
			panic(err) // only for a flag that does not exist: a programming error
		}
	}
}

// load resolves the configuration after flags are parsed. A value out of
// range is wrong usage.
func (a *app) load() (config.Config, error) {
	c, err := config.Load(a.v)
	if err != nil {
		return c, usageError{fmt.Errorf("configuration: %w", err)}
	}
	return c, nil
}

// connect opens a client to uri and returns the database the
// configuration names: --db, else the database in the URI, else "test".
func connect(ctx context.Context, uri string, c config.Config) (*mongo.Client, *mongo.Database, error) {
	cs, err := connstring.ParseAndValidate(uri)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", config.KeyURI, err)
	}
	db := c.DB
	if db == "" {
		db = cs.Database
	}
	if db == "" {
		db = config.DefaultDB
	}
	client, err := mongo.Connect(options.Client().ApplyURI(uri).SetServerSelectionTimeout(c.ConnectTimeout))
	if err != nil {
		return nil, nil, fmt.Errorf("connect to MongoDB: %w", err)
	}
	return client, client.Database(db), nil
}

// oneLine keeps an error to the single line a command prints.
func oneLine(err error) string {
	return strings.ReplaceAll(err.Error(), "\n", "; ")
}
