package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/gridfsd/gridfsd/config"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/spf13/viper"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/connstring"
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
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			if a.configFile != "" {
				return config.ReadFile(a.v, a.configFile)
			}
			return nil
		},
	}
	pf := root.PersistentFlags()
	pf.StringVar(&a.configFile, "config", "", "read settings from this YAML or TOML file")
	pf.String(config.KeyURI, "", "MongoDB connection string (serve: empty starts the embedded store; file commands: mongodb://localhost:27017)")
	pf.StringP(config.KeyDB, "d", "", `database (default "test", or the database in --uri)`)
	pf.String(config.KeyConnectTimeout, config.Default(config.KeyConnectTimeout), "how long to look for a reachable MongoDB before failing")
	a.bind(pf.Lookup(config.KeyURI), pf.Lookup(config.KeyDB), pf.Lookup(config.KeyConnectTimeout))

	a.addCommands(root)
	return root
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

// load resolves the configuration after flags are parsed.
func (a *app) load() (config.Config, error) {
	c, err := config.Load(a.v)
	if err != nil {
		return c, fmt.Errorf("configuration: %w", err)
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
