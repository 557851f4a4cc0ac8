package host

// What cuTile's sample scripts use around their kernels besides torch's
// tensors: argparse for their flags (tilec run FILE -- --flag), and
// torch.cuda's device queries and precision settings.

import (
	"fmt"
	"io"
	goruntime "runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/tilec/tilec/lang"
	"github.com/tilec/tilec/runtime/cuda"
)

// Device describes the GPU a script asks torch.cuda about: the CUDA
// backend's facts (cuda.GPU.Facts). Options.Device nil is the
// interpreter's: capability 8.0 (the sm_80 code tilec compiles by
// default), one "SM" per interpreter worker, and no memory size.
type Device = cuda.DeviceFacts

func (in *evaluator) device() Device {
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
	desc, epilog string
	usageText    string // usage=, in place of the generated one
	formatter    string // formatter_class's name: the Raw ones keep line breaks
	noHelp       bool   // add_help=False: no -h/--help
	specs        []*argSpec
}

type argSpec struct {
	flags      []string // "--correctness-check", "-c"; nil for a positional
	dest       string
	action     string // "store", "store_true", "store_false"
	typ        string // "str", "int", "float"
	def        any
	help       string
	metavar    string
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
	"sys":                {"exit"},
}

// context is what a with statement of host code may enter: grad mode
// (torch.no_grad(), torch.inference_mode(), torch.enable_grad(): whether
// autograd records, autograd.go), and contexts that do not change what
// tilec computes (SDPA's reference is one algorithm whatever backend is
// asked; kernels compile without a timeout of cuTile's).
type context struct {
	name string
	grad int // gradOff, gradOn, or 0: grad mode as it is
}

// A context's effect on grad mode.
const (
	gradOff = 1
	gradOn  = 2
)

// scriptlibCall runs one of scriptlibFuncs; ok is false when name is not one.
func (in *evaluator) scriptlibCall(c *callSite, mod, fn string) (any, bool) {
	if !slices.Contains(scriptlibFuncs[module(mod)], fn) {
		return nil, false
	}
	name := mod + "." + fn
	d := in.device()
	switch name {
	case "argparse.ArgumentParser":
		a := c.bind(name, "prog=", "description=", "epilog=", "formatter_class=", "usage=", "add_help=", "allow_abbrev=")
		p := &argParser{}
		p.desc, _ = a[1].(string)
		p.epilog, _ = a[2].(string)
		p.formatter, _ = a[3].(string)
		p.usageText, _ = a[4].(string)
		if a[5] != nil {
			p.noHelp = !in.truth(c.e.Pos, a[5])
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
	case "torch.no_grad", "torch.enable_grad":
		c.bind(name)
		if fn == "no_grad" {
			return context{name: name, grad: gradOff}, true
		}
		return context{name: name, grad: gradOn}, true
	case "torch.inference_mode":
		a := c.bind(name, "mode=")
		if a[0] != nil && !in.truth(c.argPos(0), a[0]) {
			return context{name: name}, true
		}
		return context{name: name, grad: gradOff}, true
	case "torch.nn.attention.sdpa_kernel":
		c.bind(name, "backends", "set_priority=")
		return context{name: name}, true
	case "ct.compiler_timeout":
		c.bind(name, "seconds")
		return context{name: name}, true
	case "sys.exit":
		// Exit status 0 ends the script as its end would; another status
		// or a message is an error (tilec run exits 1), as Python's.
		a := c.bind(name, "status=")
		switch v := num(a[0]).(type) {
		case nil, none:
			panic(scriptExit{})
		case int64:
			if v == 0 {
				panic(scriptExit{})
			}
			in.fail(c.e.Pos, "SystemExit: %d", v)
		}
		in.fail(c.e.Pos, "SystemExit: %s", in.str(a[0]))
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
func (in *evaluator) propsAttr(pos lang.Pos, p deviceProps, name string) any {
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
func (in *evaluator) parserMethod(c *callSite, p *argParser, name string) any {
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
		if a[3] != nil {
			sp.help = in.str(a[3])
		}
		if a[7] != nil {
			sp.metavar = in.str(a[7])
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
		in.printOut(in.help(p))
		return none{}
	case "print_usage":
		in.printOut(p.usage() + "\n")
		return none{}
	case "format_help":
		return in.help(p)
	case "format_usage":
		return p.usage() + "\n"
	}
	in.fail(c.e.Pos, "ArgumentParser.%s is not part of the host subset (it has add_argument, parse_args, print_help, print_usage, format_help, format_usage)", name)
	return nil
}

// argProg is the program name in the usage line: where a script's own
// arguments go on tilec's command line.
const argProg = "tilec run FILE --"

func (p *argParser) usage() string {
	if p.usageText != "" {
		return "usage: " + strings.ReplaceAll(p.usageText, "%(prog)s", argProg)
	}
	// argparse lists the optionals before the positionals, whatever
	// order they were added in.
	var opts, pos []string
	if !p.noHelp {
		opts = append(opts, "[-h]")
	}
	for _, sp := range p.specs {
		switch {
		case sp.positional:
			pos = append(pos, sp.metavarText())
		case sp.required:
			opts = append(opts, sp.usagePart())
		default:
			opts = append(opts, "["+sp.usagePart()+"]")
		}
	}
	prefix := "usage: "
	line := prefix + strings.Join(append(append([]string{argProg}, opts...), pos...), " ")
	if len(line) <= helpWidth {
		return line
	}
	// Too long for one line: argparse fills the optionals and then the
	// positionals, each group on lines of its own, under the first
	// argument (argparse's _format_usage and its get_lines).
	indent := strings.Repeat(" ", len(prefix)+len(argProg)+1)
	getLines := func(parts []string, lineLen int) []string {
		var lines, line []string
		for _, part := range parts {
			if lineLen+1+len(part) > helpWidth && len(line) > 0 {
				lines = append(lines, indent+strings.Join(line, " "))
				line, lineLen = nil, len(indent)-1
			}
			line = append(line, part)
			lineLen += len(part) + 1
		}
		if len(line) > 0 {
			lines = append(lines, indent+strings.Join(line, " "))
		}
		return lines
	}
	var lines []string
	if len(opts) > 0 {
		lines = getLines(append([]string{argProg}, opts...), len(prefix)-1)
		lines[0] = lines[0][len(indent):]
		lines = append(lines, getLines(pos, len(indent)-1)...)
	} else {
		lines = getLines(append([]string{argProg}, pos...), len(prefix)-1)
		lines[0] = lines[0][len(indent):]
	}
	return prefix + strings.Join(lines, "\n")
}

// helpWidth is argparse's text width on an 80-column terminal.
const helpWidth = 78

// usagePart is an optional as the usage line shows it: its first flag
// and, where it takes a value, the value's name.
func (sp *argSpec) usagePart() string {
	if sp.action != "store" {
		return sp.flags[0]
	}
	return sp.flags[0] + " " + sp.metavarText()
}

// metavarText names an argument's value: metavar=, the choices, or the
// dest (upper-cased for an optional), as argparse does.
func (sp *argSpec) metavarText() string {
	switch {
	case sp.metavar != "":
		return sp.metavar
	case sp.choices != nil:
		var cs []string
		for _, c := range sp.choices {
			cs = append(cs, fmt.Sprint(c))
		}
		return "{" + strings.Join(cs, ",") + "}"
	case sp.positional:
		return sp.dest
	}
	return strings.ToUpper(sp.dest)
}

// invocation is an argument as its help line names it: "--size SIZE,
// -n SIZE", "--check", or a positional's name.
func (sp *argSpec) invocation() string {
	if sp.positional {
		return sp.metavarText()
	}
	if sp.action != "store" {
		return strings.Join(sp.flags, ", ")
	}
	var parts []string
	for _, f := range sp.flags {
		parts = append(parts, f+" "+sp.metavarText())
	}
	return strings.Join(parts, ", ")
}

// help is parser.format_help(): what -h prints, laid out as argparse's
// HelpFormatter lays it out on an 80-column terminal (usage, description,
// positional arguments, options, epilog).
func (in *evaluator) help(p *argParser) string {
	raw := strings.HasPrefix(p.formatter, "Raw")
	rawHelp := p.formatter == "RawTextHelpFormatter"
	type entry struct{ inv, help string }
	var pos, opts []entry
	if !p.noHelp {
		opts = append(opts, entry{"-h, --help", "show this help message and exit"})
	}
	for _, sp := range p.specs {
		e := entry{sp.invocation(), in.argHelp(p, sp)}
		if sp.positional {
			pos = append(pos, e)
		} else {
			opts = append(opts, e)
		}
	}
	// The help column starts two past the longest invocation, at most
	// at column 24; a longer invocation puts its help on the next line.
	const indent = 2
	helpPos := 0
	for _, e := range append(append([]entry{}, pos...), opts...) {
		helpPos = max(helpPos, len(e.inv)+indent+2)
	}
	helpPos = min(helpPos, 24)
	invWidth := helpPos - indent - 2
	var b strings.Builder
	b.WriteString(p.usage() + "\n")
	if p.desc != "" {
		b.WriteString("\n" + fillText(p.desc, helpWidth, raw) + "\n")
	}
	section := func(title string, es []entry) {
		if len(es) == 0 {
			return
		}
		b.WriteString("\n" + title + ":\n")
		for _, e := range es {
			lines := splitHelp(e.help, max(helpWidth-helpPos, 11), rawHelp)
			switch {
			case len(lines) == 0:
				fmt.Fprintf(&b, "%*s%s\n", indent, "", e.inv)
				continue
			case len(e.inv) <= invWidth:
				fmt.Fprintf(&b, "%*s%-*s  %s\n", indent, "", invWidth, e.inv, lines[0])
			default:
				fmt.Fprintf(&b, "%*s%s\n%*s%s\n", indent, "", e.inv, helpPos, "", lines[0])
			}
			for _, l := range lines[1:] {
				fmt.Fprintf(&b, "%*s%s\n", helpPos, "", l)
			}
		}
	}
	section("positional arguments", pos)
	section("options", opts)
	if p.epilog != "" {
		b.WriteString("\n" + fillText(p.epilog, helpWidth, raw) + "\n")
	}
	return b.String()
}

// argHelp is an argument's help= with argparse's %(name)s fields filled
// in, and with ArgumentDefaultsHelpFormatter its default appended.
func (in *evaluator) argHelp(p *argParser, sp *argSpec) string {
	h := sp.help
	if strings.TrimSpace(h) == "" {
		return ""
	}
	if p.formatter == "ArgumentDefaultsHelpFormatter" && !sp.positional && !strings.Contains(h, "%(default)") {
		h += " (default: %(default)s)"
	}
	var choices string
	if sp.choices != nil {
		var cs []string
		for _, c := range sp.choices {
			cs = append(cs, in.str(c))
		}
		choices = strings.Join(cs, ", ")
	}
	return strings.NewReplacer("%(default)s", in.str(sp.def), "%(prog)s", argProg, "%(dest)s", sp.dest,
		"%(type)s", sp.typ, "%(metavar)s", sp.metavarText(), "%(choices)s", choices, "%%", "%").Replace(h)
}

// fillText is argparse's _fill_text: runs of white space become one
// space and the words fill lines of width, unless raw keeps the text as
// written.
func fillText(text string, width int, raw bool) string {
	if raw {
		return strings.Trim(text, "\n")
	}
	return strings.Join(wrapWords(text, width), "\n")
}

// splitHelp is argparse's _split_lines: a help text filled to width, or
// its own lines with RawTextHelpFormatter.
func splitHelp(text string, width int, raw bool) []string {
	if raw {
		return strings.Split(strings.Trim(text, "\n"), "\n")
	}
	return wrapWords(text, width)
}

func wrapWords(text string, width int) []string {
	var lines []string
	cur := ""
	for _, w := range strings.Fields(text) {
		if cur != "" && len(cur)+1+len(w) > width {
			lines = append(lines, cur)
			cur = ""
		}
		if cur != "" {
			cur += " "
		}
		cur += w
	}
	if cur != "" {
		lines = append(lines, cur)
	}
	return lines
}

// printOut writes script output where print() writes it.
func (in *evaluator) printOut(s string) {
	if in.opts.Stdout != nil {
		io.WriteString(in.opts.Stdout, s)
	}
}

// scriptExit stops a script as sys.exit(0) would: what argparse does
// after printing the help that -h asked for. RunMain and Run return
// without an error.
type scriptExit struct{}

// parseArgs parses argv as argparse does for the subset: --flag value,
// --flag=value, store_true/store_false flags, positionals in order.
func (in *evaluator) parseArgs(pos lang.Pos, p *argParser, argv []string) namespace {
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
		if sp == nil && !p.noHelp && (flag == "-h" || flag == "--help") {
			// argparse prints the help and exits 0 as soon as it reads
			// -h, before the errors of the arguments after it.
			in.printOut(in.help(p))
			panic(scriptExit{})
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
