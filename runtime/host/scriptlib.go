package host

// What cuTile's sample scripts use around their kernels besides torch's
// tensors: argparse for their flags (tilec run FILE -- --flag), and
// torch.cuda's device queries and precision settings.

import (
	"fmt"
	goruntime "runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/tilec/tilec/lang"
	"github.com/tilec/tilec/runtime/cuda"
)

// Device describes the GPU a script asks torch.cuda about: the CUDA
// backend's facts (runtime.CUDA.Facts). Options.Device nil is the
// interpreter's: capability 8.0 (the sm_80 code tilec compiles by
// default), one "SM" per interpreter worker, and no memory size.
type Device = cuda.DeviceFacts

func (in *interp) device() Device {
	if in.opts.Device != nil {
		return *in.opts.Device
	}
	return Device{Name: "tilec CPU interpreter", Major: 8, Minor: 0, SMs: goruntime.GOMAXPROCS(0)}
}

// deviceProps is torch.cuda.get_device_properties(...)'s result.
type deviceProps struct{ d Device }

// argParser is argparse.ArgumentParser: its arguments, parsed from
// Options.Argv by parse_args.
type argParser struct {
	desc  string
	specs []*argSpec
}

type argSpec struct {
	flags      []string // "--correctness-check", "-c"; nil for a positional
	dest       string
	action     string // "store", "store_true", "store_false"
	typ        string // "str", "int", "float"
	def        any
	choices    Tuple
	required   bool
	positional bool
}

// namespace is parse_args()'s result: one attribute per argument.
type namespace map[string]any

var scriptlibFuncs = map[module][]string{
	"argparse":           {"ArgumentParser"},
	"torch.cuda":         {"get_device_capability", "get_device_properties", "get_device_name", "is_available", "device_count", "synchronize"},
	"torch":              {"set_float32_matmul_precision", "get_float32_matmul_precision", "no_grad", "inference_mode", "enable_grad"},
	"torch.nn.attention": {"sdpa_kernel"},
	"ct":                 {"compiler_timeout"},
}

// context is what a with statement of host code may enter: contexts that
// do not change what tilec computes (no autograd here; SDPA's reference is
// one algorithm whatever backend is asked; kernels compile without a
// timeout of cuTile's).
type context struct{ name string }

// scriptlibCall runs one of scriptlibFuncs; ok is false when name is not one.
func (in *interp) scriptlibCall(c *callSite, mod, fn string) (any, bool) {
	if !slices.Contains(scriptlibFuncs[module(mod)], fn) {
		return nil, false
	}
	name := mod + "." + fn
	d := in.device()
	switch name {
	case "argparse.ArgumentParser":
		a := c.bind(name, "prog=", "description=", "epilog=", "formatter_class=", "usage=", "add_help=", "allow_abbrev=")
		p := &argParser{}
		if s, ok := a[1].(string); ok {
			p.desc = s
		}
		return p, true
	case "torch.cuda.get_device_capability":
		c.bind(name, "device=")
		return Tuple{int64(d.Major), int64(d.Minor)}, true
	case "torch.cuda.get_device_properties":
		c.bind(name, "device=")
		return deviceProps{d}, true
	case "torch.cuda.get_device_name":
		c.bind(name, "device=")
		return d.Name, true
	case "torch.cuda.is_available":
		c.bind(name)
		return true, true
	case "torch.cuda.device_count":
		c.bind(name)
		return int64(1), true
	case "torch.cuda.synchronize":
		c.bind(name, "device=")
		return none{}, true
	case "torch.set_float32_matmul_precision":
		a := c.bind(name, "precision")
		s, ok := a[0].(string)
		if !ok || (s != "highest" && s != "high" && s != "medium") {
			in.fail(c.argPos(0), "%s takes \"highest\", \"high\" or \"medium\", got %s", name, describe(a[0]))
		}
		// "high" and "medium" let float32 matmuls use TF32 (the driver's
		// matmul rounds their inputs to tf32 then, as torch on a GPU).
		in.matmulPrecision = s
		return none{}, true
	case "torch.no_grad", "torch.inference_mode", "torch.enable_grad":
		c.bind(name, "mode=")
		return context{name}, true
	case "torch.nn.attention.sdpa_kernel":
		c.bind(name, "backends", "set_priority=")
		return context{name}, true
	case "ct.compiler_timeout":
		c.bind(name, "seconds")
		return context{name}, true
	case "torch.get_float32_matmul_precision":
		c.bind(name)
		if in.matmulPrecision == "" {
			return "highest", true
		}
		return in.matmulPrecision, true
	}
	return nil, false
}

// propsAttr is an attribute of get_device_properties' result.
func (in *interp) propsAttr(pos lang.Pos, p deviceProps, name string) any {
	switch name {
	case "multi_processor_count":
		return int64(p.d.SMs)
	case "name":
		return p.d.Name
	case "major":
		return int64(p.d.Major)
	case "minor":
		return int64(p.d.Minor)
	case "total_memory":
		if p.d.TotalBytes == 0 {
			in.fail(pos, "total_memory is not known on the interpreter (run with --backend cuda)")
		}
		return p.d.TotalBytes
	}
	in.fail(pos, "device properties have no %s in the host subset (they have multi_processor_count, name, major, minor, total_memory)", name)
	return nil
}

// parserMethod is parser.add_argument(...) or parser.parse_args().
func (in *interp) parserMethod(c *callSite, p *argParser, name string) any {
	switch name {
	case "add_argument":
		var flags []string
		for i, x := range c.args {
			s, ok := x.(string)
			if !ok || s == "" {
				in.fail(c.argPos(i), "add_argument: names are strings (\"--flag\", \"-f\" or a positional's name), got %s", describe(x))
			}
			flags = append(flags, s)
		}
		if len(flags) == 0 {
			in.fail(c.e.Pos, "add_argument needs a name")
		}
		kw := &callSite{in: in, e: c.e, kw: c.kw}
		a := kw.bind("add_argument", "action=", "type=", "default=", "help=", "choices=", "required=", "dest=", "metavar=")
		sp := &argSpec{action: "store", typ: "str", positional: !strings.HasPrefix(flags[0], "-")}
		if !sp.positional {
			sp.flags = flags
			long := flags[0]
			for _, f := range flags {
				if strings.HasPrefix(f, "--") {
					long = f
					break
				}
			}
			sp.dest = strings.ReplaceAll(strings.TrimLeft(long, "-"), "-", "_")
		} else {
			sp.dest = flags[0]
			sp.required = true
		}
		if s, ok := a[6].(string); ok {
			sp.dest = s
		}
		if a[0] != nil {
			s, _ := a[0].(string)
			switch s {
			case "store", "store_true", "store_false":
				sp.action = s
			default:
				in.fail(c.e.Pos, "add_argument: action=%s is not part of the host subset (it has store, store_true, store_false)", describe(a[0]))
			}
		}
		switch sp.action {
		case "store_true":
			sp.def = false
		case "store_false":
			sp.def = true
		default:
			sp.def = none{}
		}
		if a[1] != nil {
			b, ok := a[1].(builtin)
			if !ok || (b != "int" && b != "float" && b != "str") {
				in.fail(c.e.Pos, "add_argument: type= is int, float or str in the host subset, got %s", describe(a[1]))
			}
			sp.typ = string(b)
		}
		if a[2] != nil {
			sp.def = a[2]
		}
		if t, ok := a[4].(Tuple); ok {
			sp.choices = t
		}
		if a[5] != nil {
			sp.required = in.truth(c.e.Pos, a[5])
		}
		p.specs = append(p.specs, sp)
		return none{}
	case "parse_args":
		argv := in.opts.Argv
		if len(c.args) > 0 {
			t, ok := c.args[0].(Tuple)
			if !ok {
				in.fail(c.argPos(0), "parse_args takes a list of strings, got %s", describe(c.args[0]))
			}
			argv = nil
			for _, x := range t {
				argv = append(argv, in.str(x))
			}
		}
		return in.parseArgs(c.e.Pos, p, argv)
	case "print_help":
		if in.opts.Stdout != nil {
			fmt.Fprintln(in.opts.Stdout, p.usage())
		}
		return none{}
	}
	in.fail(c.e.Pos, "ArgumentParser.%s is not part of the host subset (it has add_argument, parse_args, print_help)", name)
	return nil
}

func (p *argParser) usage() string {
	var parts []string
	for _, sp := range p.specs {
		switch {
		case sp.positional:
			parts = append(parts, sp.dest)
		case sp.action == "store":
			parts = append(parts, "["+sp.flags[0]+" "+strings.ToUpper(sp.dest)+"]")
		default:
			parts = append(parts, "["+sp.flags[0]+"]")
		}
	}
	return "usage: tilec run FILE -- " + strings.Join(parts, " ")
}

// parseArgs parses argv as argparse does for the subset: --flag value,
// --flag=value, store_true/store_false flags, positionals in order.
func (in *interp) parseArgs(pos lang.Pos, p *argParser, argv []string) namespace {
	ns := namespace{}
	seen := map[*argSpec]bool{}
	for _, sp := range p.specs {
		ns[sp.dest] = sp.def
	}
	set := func(sp *argSpec, text string) {
		var v any = text
		switch sp.typ {
		case "int":
			n, err := strconv.ParseInt(text, 0, 64)
			if err != nil {
				in.fail(pos, "%s\nargument %s: invalid int value: '%s'", p.usage(), sp.name(), text)
			}
			v = n
		case "float":
			f, err := strconv.ParseFloat(text, 64)
			if err != nil {
				in.fail(pos, "%s\nargument %s: invalid float value: '%s'", p.usage(), sp.name(), text)
			}
			v = f
		}
		if sp.choices != nil && !slices.ContainsFunc(sp.choices, func(x any) bool { return in.str(x) == in.str(v) }) {
			in.fail(pos, "%s\nargument %s: invalid choice: '%s'", p.usage(), sp.name(), text)
		}
		ns[sp.dest], seen[sp] = v, true
	}
	var positionals []*argSpec
	for _, sp := range p.specs {
		if sp.positional {
			positionals = append(positionals, sp)
		}
	}
	var extra []string
	for i := 0; i < len(argv); i++ {
		arg := argv[i]
		if !strings.HasPrefix(arg, "-") || arg == "-" {
			if len(positionals) == 0 {
				extra = append(extra, arg)
				continue
			}
			set(positionals[0], arg)
			positionals = positionals[1:]
			continue
		}
		flag, value, hasValue := strings.Cut(arg, "=")
		var sp *argSpec
		for _, s := range p.specs {
			if slices.Contains(s.flags, flag) {
				sp = s
			}
		}
		if sp == nil {
			extra = append(extra, arg)
			continue
		}
		switch sp.action {
		case "store_true", "store_false":
			if hasValue {
				in.fail(pos, "%s\nargument %s: ignored explicit argument '%s'", p.usage(), flag, value)
			}
			ns[sp.dest], seen[sp] = sp.action == "store_true", true
		default:
			if !hasValue {
				if i+1 >= len(argv) {
					in.fail(pos, "%s\nargument %s: expected one argument", p.usage(), flag)
				}
				i++
				value = argv[i]
			}
			set(sp, value)
		}
	}
	if len(extra) > 0 {
		in.fail(pos, "%s\nunrecognized arguments: %s", p.usage(), strings.Join(extra, " "))
	}
	var missing []string
	for _, sp := range p.specs {
		if sp.required && !seen[sp] {
			missing = append(missing, sp.name())
		}
	}
	if len(missing) > 0 {
		in.fail(pos, "%s\nthe following arguments are required: %s", p.usage(), strings.Join(missing, ", "))
	}
	return ns
}

func (sp *argSpec) name() string {
	if sp.positional {
		return sp.dest
	}
	return strings.Join(sp.flags, "/")
}
