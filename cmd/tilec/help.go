package main

// Help that teaches: every subcommand's --help names its FILE, says what the
// command does and shows examples that run as printed from the repository's
// root (TestHelpExamplesRun runs them), before the flags.

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// usage is what `tilec`, `tilec help` and `tilec --help` print.
const usage = `tilec compiles cuTile kernels to PTX and runs them: on a CPU interpreter
everywhere, and on an NVIDIA GPU in a cuda build (go build -tags cuda).

Three ways to run a file:
  tilec run FILE                    its if __name__ == "__main__": block, as Python would
  tilec run FILE --entry FUNC ...   its host launch function FUNC, inputs from --arg, --shape, --in
  tilec run FILE --kernel NAME ...  one kernel, with --arg signatures, -D constants and --grid

Commands:
  compile   print a file's AST, typed IR, lowered IR or PTX for a target
  run       run a file's __main__ block, a host function or one kernel, and check the result
  bench     time kernels on the GPU over a sweep of shapes (against cuBLAS for GEMMs)
  tune      search a kernel's constants and knobs on the GPU and cache the fastest
  plot      draw a saved bench --json report
  cache     list, clear or locate the cache of compiled kernels and tuned constants
  help      this text; tilec help CMD is tilec CMD --help

Usage:
  tilec compile FILE [--emit ast|ir|lowered|ptx] [--target T] [-D name=value ...] [--arg A=f16[M,K] ...] [--kernel NAME] [--dump-after PASS]
  tilec run FILE [--backend cpu|cuda] [--seed N] [-- script args]
  tilec run FILE --entry FUNC [--arg A=f16[M,K] ...] [--shape M=..,N=..] [--scalar x=1] [--in A=a.npy] [--out result=c.npy] [--backend cpu|cuda]
  tilec run FILE --kernel NAME [--arg A=f16[M,K] ...] [-D name=value ...] [--grid x,y,z] [--shape M=..,N=..] [--in A=a.npy] [--out C=c.npy] [--progress auto|off|1s]
  tilec bench FILE [--shape M=1024:16384:x2,N=M | --sizes 1024,2048] [-D name=value ...] [--grid x,y,z] [--json] [--plot out.png]
  tilec bench FILE --entry FUNC --arg X=f16[M,N] ... [--shape M=4096,8192,N=M] [--scalar x=1] [--json] [--plot out.png]
  tilec tune FILE [--space tm=64,128,256 ...] [--space "stages=2,3,4 occupancy=1,2"] [--shape M=4096,N=4096] [-D name=value ...]
  tilec plot REPORT.json [--figure rate|ratio] -o out.png
  tilec cache list|clear|dir

Examples (from the repository's root):
  tilec run examples/matmul.tile
  tilec run examples/matmul.tile --entry matmul --arg A=f16[M,K] --arg B=f16[K,N] --shape M=1000,K=700,N=500
  tilec compile examples/cutile/vector_add.py --arg a=f32[N] --arg b=f32[N] --arg c=f32[N] -D TILE=256 --emit ptx

Run "tilec CMD --help" for a command's flags and examples.
`

// commandHelp is what `tilec CMD --help` prints above the command's flags.
type commandHelp struct {
	usage    []string // synopsis lines, each naming FILE
	summary  string   // what the command does, in one line
	file     string   // what FILE is
	examples []string // commands that run as printed from the repository's root
}

var commandHelps = map[string]*commandHelp{
	"compile": {
		usage:   []string{"tilec compile FILE [flags]"},
		summary: "Compile FILE's kernels and print their AST, typed IR, lowered IR or PTX (--emit) for a target.",
		file: "a cuTile source (.tile or .py); a kernel without annotations takes its parameters'\n" +
			"signatures with --arg and its constants with -D.",
		examples: []string{
			"tilec compile testdata/kernels/matmul.tile",
			"tilec compile examples/matmul.tile --kernel matmul_kernel --arg A=f16[M,K] --arg B=f16[K,N] --arg C=f16[M,N] -D tm=128 -D tn=256 -D tk=64 --emit ptx --target sm_90a",
			"tilec compile testdata/kernels/softmax.tile --emit lowered --dump-after layout",
		},
	},
	"run": {
		usage: []string{
			"tilec run FILE [-- script args]          its if __name__ == \"__main__\": block",
			"tilec run FILE --entry FUNC [flags]      its host launch function FUNC",
			"tilec run FILE --kernel NAME [flags]     one kernel (a file with one kernel: --kernel may be left out)",
		},
		summary: "Run FILE on the CPU interpreter, or on the GPU with --backend cuda (each launch checked against the interpreter).",
		file: "a cuTile program: with a __main__ block, tilec run FILE runs it as Python would;\n" +
			"--entry and --kernel take their inputs from --arg, --shape, --scalar and --in.",
		examples: []string{
			"tilec run examples/softmax.tile",
			"tilec run examples/softmax.tile --entry softmax --arg X=f32[M,N] --shape M=100,N=300",
			"tilec run examples/cutile/vector_add.py --kernel vector_add_kernel --arg a=f32[N] --arg b=f32[N] --arg c=f32[N] -D TILE=256 --shape N=3000 --grid 12",
		},
	},
	"bench": {
		usage: []string{
			"tilec bench FILE [--shape M=1024:16384:x2,N=M | --sizes 1024,2048] [flags]",
			"tilec bench FILE --entry FUNC --arg X=f16[M,N] ... [--shape M=4096,8192,N=M] [flags]",
		},
		summary: "Time FILE's kernels on the GPU over a sweep of shapes (a cuda build); GEMMs beside cuBLAS.",
		file: "a kernel with a declared grid (testdata/kernels/), a plain cuTile kernel with --grid,\n" +
			"or a program whose host function --entry launches the kernels.",
		examples: []string{
			"tilec bench testdata/kernels/matmul.tile --sizes 1024,2048,4096",
			"tilec bench testdata/kernels/softmax.tile --shape M=1024:8192:x2,N=M --plot softmax.png",
			"tilec bench examples/cutile/softmax.py --entry softmax --arg X=f16[M,N] --shape M=4096,8192,N=M",
		},
	},
	"tune": {
		usage:   []string{"tilec tune FILE [--space name=v1,v2,... ...] [--shape M=..,N=..] [flags]"},
		summary: "Search a kernel's constants and knobs on the GPU at one shape (a cuda build) and cache the fastest.",
		file: "a kernel with a declared grid (testdata/kernels/), or a plain cuTile kernel with its --arg\n" +
			"signatures; the space is --space, the source's '# tilec: tune' block, or the default.",
		examples: []string{
			"tilec tune testdata/kernels/matmul.tile --shape M=4096,N=4096,K=4096",
			"tilec tune testdata/kernels/matmul.tile --space tm=64,128 --space tn=128,256 --shape M=1024,N=1024,K=1024",
			"tilec tune testdata/kernels/matmul.tile --space \"stages=2,3,4 occupancy=1,2\" --shape M=4096,N=4096,K=4096",
		},
	},
	"plot": {
		usage:    []string{"tilec plot REPORT.json [--figure rate|ratio] -o OUT"},
		summary:  "Draw a report saved by tilec bench --json, one figure a plot: TFLOP/s or GB/s against the shape (rate), or tilec's speed over the baseline's (ratio); no GPU needed.",
		file:     "REPORT.json, the output of tilec bench --json; OUT is .png, .svg or .pdf.",
		examples: []string{"tilec bench testdata/kernels/matmul.tile --json > matmul.json", "tilec plot matmul.json -o matmul.png", "tilec plot matmul.json --figure ratio -o matmul-vs-cublas.png"},
	},
}

// errHelp ends a command whose --help was printed: exit status 0.
var errHelp = errors.New("help")

// helpFlag is --help and -h of a subcommand; sourceArg prints the help to
// stdout when it is set, where the flag package's own -h would print the
// flags to stderr and fail.
type helpFlag struct {
	asked bool
	print func()
}

func (h *helpFlag) String() string   { return "" }
func (h *helpFlag) IsBoolFlag() bool { return true }
func (h *helpFlag) Set(s string) error {
	h.asked = s != "false"
	return nil
}

// newFlagSet returns subcommand name's flag set: a mistake prints the
// error, the command's usage lines and where its help is to stderr (the
// whole help, 50 lines, would scroll the mistake out of view); --help
// prints the help to stdout.
func newFlagSet(name string, stdout, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	h := &helpFlag{print: func() { printCommandHelp(stdout, fs) }}
	fs.Var(h, "help", "print this help, with examples, and exit")
	fs.Var(h, "h", "the same as --help")
	fs.Usage = func() { printCommandUsage(fs.Output(), fs) }
	return fs
}

// printCommandUsage prints a command's usage lines and where its help is.
func printCommandUsage(w io.Writer, fs *flag.FlagSet) {
	h := commandHelps[fs.Name()]
	if h == nil {
		printCommandHelp(w, fs)
		return
	}
	fmt.Fprintln(w, "usage:")
	for _, u := range h.usage {
		fmt.Fprintln(w, "  "+u)
	}
	fmt.Fprintf(w, "Run \"tilec %s --help\" for its flags and examples.\n", fs.Name())
}

// helpAsked prints fs's help if --help was given and says whether it was.
func helpAsked(fs *flag.FlagSet) bool {
	f := fs.Lookup("help")
	if f == nil {
		return false
	}
	h, ok := f.Value.(*helpFlag)
	if !ok || !h.asked {
		return false
	}
	h.print()
	return true
}

func printCommandHelp(w io.Writer, fs *flag.FlagSet) {
	h := commandHelps[fs.Name()]
	if h == nil {
		fmt.Fprintf(w, "usage: tilec %s\n\nFlags:\n", fs.Name())
		fs.PrintDefaults()
		return
	}
	fmt.Fprintln(w, "usage:")
	for _, u := range h.usage {
		fmt.Fprintln(w, "  "+u)
	}
	fmt.Fprintf(w, "\n%s\n\n", h.summary)
	fmt.Fprintf(w, "FILE: %s\n\n", strings.ReplaceAll(h.file, "\n", "\n      "))
	fmt.Fprintln(w, "Examples (from the repository's root):")
	for _, e := range h.examples {
		fmt.Fprintln(w, "  "+e)
	}
	fmt.Fprintln(w, "\nFlags:")
	out := fs.Output()
	fs.SetOutput(w)
	fs.PrintDefaults()
	fs.SetOutput(out)
}
