package main

import "github.com/spf13/cobra"

// addCommands registers every subcommand. serve lives in serve.go, the
// mongofiles-compatible commands in files*.go, sign in sign.go.
func (a *app) addCommands(root *cobra.Command) {
	a.addFileCommands(root)
	root.AddCommand(a.serveCommand())
	root.AddCommand(a.newSignCommand())
}
