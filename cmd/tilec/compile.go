package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/lang"
	"github.com/tilec/tilec/lower"
	"github.com/tilec/tilec/runtime"
)

func cmdCompile(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("compile", flag.ContinueOnError)
	fs.SetOutput(stderr)
	emit := fs.String("emit", "ir", "what to print: ast, ir, lowered or ptx")
	target := fs.String("target", runtime.DefaultTarget, "GPU target for lowered and ptx: sm_80 or sm_120a")
	kernel := fs.String("kernel", "", "kernel to compile (default: every kernel in the file)")
	dumpAfter := fs.String("dump-after", "", "print the IR after this lowering pass (to stderr)")
	consts := defines{}
	fs.Var(consts, "D", "bake a constant: -D name=value (repeatable)")
	srcPath, err := sourceArg(fs, args)
	if err != nil {
		return err
	}
	src, err := os.ReadFile(srcPath)
	if err != nil {
		return err
	}
	file, err := lang.Parse(srcPath, src)
	if err != nil {
		return err
	}
	if *emit == "ast" {
		fmt.Fprint(stdout, lang.FormatAST(file))
		return nil
	}
	mod, err := ir.Build(file, ir.BuildOptions{Kernel: *kernel, Consts: consts})
	if err != nil {
		return err
	}
	switch *emit {
	case "ir":
		fmt.Fprint(stdout, ir.PrintModule(mod))
		return nil
	case "lowered", "ptx":
	default:
		return usagef("--emit must be ast, ir, lowered or ptx, not %q", *emit)
	}
	if !lower.Target(*target).Valid() {
		return usagef("--target must be sm_80 or sm_120a, not %q", *target)
	}
	for _, f := range mod.Funcs {
		if *emit == "lowered" || *dumpAfter != "" {
			lowered, err := lower.LowerWithDump(f, lower.Target(*target), *dumpAfter, stderr)
			if err != nil {
				return err
			}
			if *emit == "lowered" {
				fmt.Fprint(stdout, ir.Print(lowered))
				continue
			}
		}
		k, err := runtime.CompilePTX(f, *target)
		if err != nil {
			return err
		}
		fmt.Fprint(stdout, k.PTX)
	}
	return nil
}
