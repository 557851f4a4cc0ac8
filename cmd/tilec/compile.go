package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/ir/build"
	"github.com/tilec/tilec/lang"
	"github.com/tilec/tilec/lower"
	"github.com/tilec/tilec/runtime/compile"
	"github.com/tilec/tilec/runtime/cuda"
	"github.com/tilec/tilec/runtime/kcache"
)

func cmdCompile(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("compile", stdout, stderr)
	emit := fs.String("emit", "ir", "what to print: ast, ir, lowered or ptx")
	target := fs.String("target", cuda.DefaultTarget, "GPU target for lowered and ptx: "+strings.Join(lower.TargetNames(), ", "))
	variant := fs.String("variant", "fast", "with --emit ptx, which variant of a kernel that has two: fast (aligned launches) or general (any launch)")
	kernel := fs.String("kernel", "", "kernel to compile (default: every kernel in the file)")
	dumpAfter := fs.String("dump-after", "", "print the IR after this lowering pass (to stderr)")
	explain := fs.Bool("explain", false, "print the code path each kernel takes on the target and, where it is not the fastest, why (instead of --emit)")
	strict := fs.Bool("strict", false, "make tilec's extensions to cuTile 1.6 errors (t.sum(), ct.Array[...] annotations, @ct.kernel(grid=), ...)")
	consts := defines{}
	fs.Var(consts, "D", "bake a constant: -D name=value (repeatable)")
	sigs := argSigs{}
	fs.Var(sigs, "arg", "signature of an unannotated parameter: --arg A=f16[M,K], --arg x=f32, or a list of arrays --arg As=[f16[M0,K],f16[M1,K]] (repeatable)")
	srcPath, err := sourceArg(fs, args)
	if err != nil {
		return err
	}
	t, err := lower.LookupTarget(*target)
	if err != nil {
		return usagef("--target: %v", err)
	}
	switch *emit {
	case "ast", "ir", "lowered", "ptx":
	default:
		return usagef("--emit must be ast, ir, lowered or ptx, not %q", *emit)
	}
	if *explain && (flagSet(fs, "emit") || flagSet(fs, "variant") || *dumpAfter != "") {
		return usagef("--explain prints the path choices only: it goes without --emit, --variant and --dump-after")
	}
	if *variant != "fast" && *variant != "general" {
		return usagef("--variant must be fast or general, not %q", *variant)
	}
	// --emit lowered prints both variants and ast/ir come before the split:
	// a --variant there would be dropped without a word.
	if flagSet(fs, "variant") && *emit != "ptx" {
		return usagef("--variant picks the PTX of one variant: it needs --emit ptx, not --emit %s", *emit)
	}
	if *dumpAfter != "" {
		if *dumpAfter != "all" && lower.PassByName(*dumpAfter) == nil {
			return usagef("--dump-after: no lowering pass %q (passes: %s, or all)", *dumpAfter, strings.Join(lower.PassNames(), ", "))
		}
		if *emit != "lowered" && *emit != "ptx" {
			return usagef("--dump-after needs --emit lowered or ptx: --emit %s does not lower", *emit)
		}
	}
	src, err := compile.ReadSource(srcPath)
	if err != nil {
		return err
	}
	source := &lang.Source{Name: srcPath, Text: string(src)}
	file, err := lang.ParseProgram(srcPath, src)
	if err != nil {
		if *emit == "ast" {
			return err
		}
		return build.AfterParseErrors(file, err, build.Options{Kernel: *kernel, Consts: consts, Args: sigs, Strict: *strict})
	}
	if *emit == "ast" {
		fmt.Fprint(stdout, lang.FormatAST(file))
		return nil
	}
	mod, err := build.File(file, build.Options{Kernel: *kernel, Consts: consts, Args: sigs, Strict: *strict})
	if err != nil {
		return err
	}
	if len(mod.Funcs) == 0 {
		if *kernel != "" {
			return fmt.Errorf("%s: no kernel named %s", srcPath, *kernel)
		}
		return fmt.Errorf("%s: no kernel (a def decorated with @ct.kernel)", srcPath)
	}
	if *emit == "ir" && !*explain {
		fmt.Fprint(stdout, ir.PrintModule(mod))
		return nil
	}
	if *explain {
		return explainKernels(stdout, source, mod.Funcs, t)
	}
	// Each kernel is lowered even when an earlier one failed: the errors
	// of every kernel come out together (lowerErrs), not one per run.
	var lowerErrs []error
	var ptx []string // one module per kernel, joined into one at the end
	for _, f := range mod.Funcs {
		if *emit == "lowered" || *dumpAfter != "" {
			vs, err := lower.LowerVariants(f, t, lower.Options{DumpAfter: *dumpAfter, Dump: stderr})
			if err != nil {
				lowerErrs = append(lowerErrs, source.Quote(err))
				continue
			}
			if *emit == "lowered" {
				persistent := vs[0].Func.Facts.Persistent
				printHintNotes(stderr, f, t, persistent)
				for _, v := range vs {
					if note := variantNote(f, v); note != "" {
						fmt.Fprintln(stdout, note)
					}
					fmt.Fprint(stdout, ir.Print(v.Func))
				}
				continue
			}
		}
		// The PTX comes from the disk cache where this build compiled the
		// kernel before; --dump-after lowers above and reads no cache.
		cache := kcache.Open()
		if *dumpAfter != "" {
			cache = nil
		}
		k, _, err := cache.CompilePTXFor(f, t)
		if err != nil {
			lowerErrs = append(lowerErrs, source.Quote(err))
			continue
		}
		printHintNotes(stderr, f, t, k.Persistent)
		switch {
		case *variant == "general" && k.General != nil:
			ptx = append(ptx, k.General.PTX)
		default:
			// A kernel with one form: that form serves every launch.
			ptx = append(ptx, k.PTX)
		}
	}
	if len(ptx) > 0 {
		// ptxas takes one module: the kernels' entries share it.
		module, err := joinPTX(ptx)
		if err != nil {
			return lang.JoinErrors(append(lowerErrs, fmt.Errorf("%s: %v", srcPath, err))...)
		}
		fmt.Fprint(stdout, module)
	}
	return lang.JoinErrors(lowerErrs...)
}

// variantNote says which launches a lowered variant is for, as a comment
// line; "" for a kernel's only form.
func variantNote(f *ir.Func, v *lower.Variant) string {
	switch v.Name {
	case lower.VariantFast:
		names := make([]string, len(v.Aligned))
		for i, p := range v.Aligned {
			names[i] = f.Params[p].Name
		}
		how := "cp.async copies"
		if v.Func.Facts.Persistent {
			how = "TMA copies, wgmma, persistent"
		}
		return fmt.Sprintf("// variant fast: launches where %s are 16-byte aligned with 16-byte rows (%s)", strings.Join(names, ", "), how)
	case lower.VariantGeneral:
		return "// variant general: every other launch (element-wise copies)"
	}
	return ""
}

// printHintNotes says which of the kernel's hints the target's code does
// not act on (lower.HintNotes), one stderr line each: a hint is never an
// error, but a user should know when it did nothing.
func printHintNotes(w io.Writer, f *ir.Func, t *lower.Target, persistent bool) {
	for _, n := range lower.HintNotes(f, t, persistent) {
		fmt.Fprintf(w, "tilec: note: %s on %s: hint %s\n", f.Name, t, n)
	}
}
