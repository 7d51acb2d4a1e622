// Command taglens learns contextualized concept embeddings of tags (Sandouk & Chen,
// "Learning Contextualized Semantics from Co-occurring Terms via a Siamese Architecture")
// and serves them in a web app. Run "taglens help" for the subcommands.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(exitCode(err, os.Stderr))
}

// exitCode reports err on stderr and maps it to the process exit status:
// 0 for success or an explicit -h, 2 for usage errors, 1 for everything else.
func exitCode(err error, stderr io.Writer) int {
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, new(*usageError)):
		var ue *usageError
		if errors.As(err, &ue) && !ue.shown {
			fmt.Fprintf(stderr, "taglens: %v\n", err)
		}
		return 2
	default:
		fmt.Fprintf(stderr, "taglens: %v\n", err)
		return 1
	}
}

// A command is one subcommand of taglens. Each lives in its own file and adds
// itself to commands in an init function.
type command struct {
	name    string
	summary string // one line for the usage text
	run     func(ctx context.Context, args []string, stdout, stderr io.Writer) error
}

var commands = map[string]command{}

func register(c command) {
	if _, dup := commands[c.name]; dup {
		panic("taglens: command registered twice: " + c.name)
	}
	commands[c.name] = c
}

// usageError is returned for unknown subcommands and bad flags; main exits 2.
// shown records that the message was already printed (with the usage text);
// exitCode prints the others.
type usageError struct {
	msg   string
	shown bool
}

func (e *usageError) Error() string { return e.msg }

// run is the whole program: it dispatches args[0] to a subcommand.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		printUsage(stderr)
		return &usageError{msg: "no subcommand", shown: true}
	}
	name := args[0]
	switch name {
	case "help", "-h", "-help", "--help":
		printUsage(stdout)
		return nil
	case "version", "-version", "--version":
		fmt.Fprintf(stdout, "taglens %s\n", version)
		return nil
	}
	c, ok := commands[name]
	if !ok {
		fmt.Fprintf(stderr, "taglens: unknown subcommand %q\n\n", name)
		printUsage(stderr)
		return &usageError{msg: "unknown subcommand " + name, shown: true}
	}
	return c.run(ctx, args[1:], stdout, stderr)
}

// version is set at build time with -ldflags "-X main.version=...".
var version = "devel"

func printUsage(w io.Writer) {
	fmt.Fprintln(w, "usage: taglens <subcommand> [flags]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "subcommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-8s %s\n", n, commands[n].summary)
	}
	fmt.Fprintf(w, "  %-8s %s\n", "version", "print the version")
	fmt.Fprintln(w)
	fmt.Fprintln(w, `Run "taglens <subcommand> -h" for its flags.`)
}

// newFlagSet returns a flag set for a subcommand that reports errors instead of exiting.
func newFlagSet(name, synopsis string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("taglens "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: taglens %s %s\n\nflags:\n", name, synopsis)
		fs.PrintDefaults()
	}
	return fs
}

// parseFlags parses args into fs and checks that the flags named in required
// are not empty. A bad flag, a stray positional argument or a missing required
// flag is a usageError (exit 2); -h is flag.ErrHelp (exit 0).
func parseFlags(fs *flag.FlagSet, args []string, required ...string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return &usageError{msg: err.Error(), shown: true}
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(fs.Output(), "unexpected arguments: %s\n", strings.Join(fs.Args(), " "))
		fs.Usage()
		return &usageError{msg: "unexpected arguments", shown: true}
	}
	return requireFlags(fs, required...)
}

// requireFlags returns a usageError naming the first listed flag left empty.
func requireFlags(fs *flag.FlagSet, names ...string) error {
	for _, n := range names {
		f := fs.Lookup(n)
		if f == nil {
			panic("taglens: requireFlags: no flag " + n)
		}
		if f.Value.String() == "" {
			fmt.Fprintf(fs.Output(), "flag -%s is required\n", n)
			fs.Usage()
			return &usageError{msg: "missing -" + n, shown: true}
		}
	}
	return nil
}
