// Command gridfsd is an HTTP gateway and a mongofiles-compatible command
// line for MongoDB GridFS. main only wires: it builds the commands, runs the
// one asked for, and exits once.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	root := newRootCommand()
	root.SetArgs(commandFirst(root, os.Args[1:]))
	err := root.ExecuteContext(ctx)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "gridfsd:", oneLine(err))
		os.Exit(exitStatus(err))
	}
}
