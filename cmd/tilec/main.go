package main

import (
	"flag"
	"fmt"
	"github.com/tilec/tilec/ir/build"
	"io"
	"math"
	"os"
	"sort"
	"strings"
)

func main() { os.Exit(main1()) }

// main1 is main without os.Exit, so that testscript can run the command in-process.
func main1() int {
	return runCommand(os.Args[1:], os.Stdout, os.Stderr)
}

func runCommand(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	var err error
	switch args[0] {
	case "compile":
		err = cmdCompile(args[1:], stdout, stderr)
	case "run":
		err = cmdRun(args[1:], stdout, stderr)
	case "bench":
		err = cmdBench(args[1:], stdout, stderr)
	case "tune":
		err = cmdTune(args[1:], stdout, stderr)
	case "plot":
		err = cmdPlot(args[1:], stdout, stderr)
	case "cache":
		err = cmdCache(args[1:], stdout, stderr)
	case "help", "-h", "--help":
		if len(args) == 2 && args[0] == "help" && args[1] != "help" {
			return runCommand([]string{args[1], "--help"}, stdout, stderr)
		}
		fmt.Fprint(stdout, usage)
		return 0
	default:
		fmt.Fprintf(stderr, "tilec: unknown command %q\n%s", args[0], usage)
		return 2
	}
	if err == errHelp {
		return 0
	}
	if err != nil {
		if err != errUsage {
			fmt.Fprintln(stderr, err)
		}
		if err == errUsage || isUsage(err) {
			return 2
		}
		return 1
	}
	return 0
}

// errUsage reports a command-line mistake already printed by the flag package.
var errUsage = fmt.Errorf("usage")

type usageError struct{ msg string }

func (e *usageError) Error() string { return "tilec: " + e.msg }

func isUsage(err error) bool { _, ok := err.(*usageError); return ok }

func usagef(format string, args ...any) error {
	return &usageError{fmt.Sprintf(format, args...)}
}

// sourceArg parses args with fs and returns the one source file that every
// subcommand takes.
func sourceArg(fs *flag.FlagSet, args []string) (string, error) {
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return "", err
	}
	if helpAsked(fs) {
		return "", errHelp
	}
	if len(pos) != 1 {
		return "", usagef("%s takes one source file, got %d", fs.Name(), len(pos))
	}
	return pos[0], nil
}

// parseInterleaved parses flags that may come before or after positional
// arguments (`tilec run FILE -D tm=64` and `tilec run -D tm=64 FILE` both work).
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, errUsage
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// defines collects repeated -D name=value flags.
type defines map[string]string

func (d defines) String() string {
	keys := make([]string, 0, len(d))
	for k := range d {
		keys = append(keys, k+"="+d[k])
	}
	sort.Strings(keys)
	return strings.Join(keys, ",")
}

// Set takes one name=value. A name given twice with two values is an
// error, as an --in given twice is: which one was meant is not for tilec
// to guess (the last one silently won).
func (d defines) Set(s string) error {
	name, value, ok := strings.Cut(s, "=")
	name, value = strings.TrimSpace(name), strings.TrimSpace(value)
	if !ok || name == "" {
		return fmt.Errorf("want name=value, got %q", s)
	}
	if old, dup := d[name]; dup && old != value {
		return fmt.Errorf("%s given twice (%s and %s)", name, old, value)
	}
	d[name] = value
	return nil
}

// argSigs collects repeated --arg name=signature flags: the launch
// signature of an unannotated kernel parameter (A=f16[M,K], x=f32).
type argSigs map[string]build.ArgSig

func (a argSigs) String() string {
	keys := make([]string, 0, len(a))
	for k, v := range a {
		keys = append(keys, k+"="+v.String())
	}
	sort.Strings(keys)
	return strings.Join(keys, " ")
}

func (a argSigs) Set(s string) error {
	name, value, ok := strings.Cut(s, "=")
	name = strings.TrimSpace(name)
	if !ok || name == "" {
		return fmt.Errorf("want name=signature (A=f16[M,K], x=f32), got %q", s)
	}
	if _, dup := a[name]; dup {
		return fmt.Errorf("%s given twice", name)
	}
	sig, err := build.ParseArgSig(value)
	if err != nil {
		return err
	}
	for _, e := range append([]build.ArgSig{sig}, sig.Elems...) {
		for _, d := range e.Dims {
			if d.Sym == "" && d.Size > math.MaxInt32 {
				return fmt.Errorf("%s: dimension %d is more than %d: array dims are i32 in kernels", strings.TrimSpace(value), d.Size, math.MaxInt32)
			}
		}
	}
	a[name] = sig
	return nil
}

// keyValues collects repeated or comma-separated name=value lists (--shape
// M=1,N=2 --in A=a.npy). A name given twice is an error: which of two
// files or sizes was meant is not for tilec to guess.
type keyValues map[string]string

func (kv keyValues) String() string { return defines(kv).String() }

func (kv keyValues) Set(s string) error {
	for _, part := range strings.Split(s, ",") {
		if part = strings.TrimSpace(part); part == "" {
			continue
		}
		name, value, _ := strings.Cut(part, "=")
		if old, dup := kv[strings.TrimSpace(name)]; dup {
			return fmt.Errorf("%s given twice (%s and %s)", strings.TrimSpace(name), old, strings.TrimSpace(value))
		}
		if err := defines(kv).Set(part); err != nil {
			return err
		}
	}
	return nil
}
