package host

// A program's own modules (lang.ModuleFile): host code loads such a
// module when one of its names is first used, with the same host subset,
// and runs its functions in their own module's globals.

import (
	"time"

	"github.com/tilec/tilec/lang"
)

// moduleMember is a name imported from a module of the program's own,
// resolved on first use.
type moduleMember struct {
	file string // the module's path
	name string
	pos  lang.Pos // of the import
}

// modules are the program's own modules loaded so far, by path, shared by
// the program and every module it loads (a module is loaded once).
type modules map[string]*Program

// moduleFile is the file of the module that a `from M import x` names by
// its path, beside the program's file (lang.ModuleFile).
func (p *Program) moduleFile(path string) string {
	if p.src == nil {
		return ""
	}
	return lang.ModuleFile(p.src.Name, path)
}

// moduleOf is the file of module mod itself (import utils, from . import
// utils), beside the program's file (lang.ModuleOf).
func (p *Program) moduleOf(mod string) string {
	if p.src == nil {
		return ""
	}
	return lang.ModuleOf(p.src.Name, mod)
}

// progModule is a module of the program's own as a value: its members
// are loaded on first use (utils.f is moduleValue's).
type progModule struct {
	file string
	pos  lang.Pos // of the import
}

// loadModule parses and loads one of the program's own modules (once).
func (in *evaluator) loadModule(m moduleMember) *Program {
	p := in.prog
	if p.mods == nil {
		p.mods = modules{}
	}
	if q, ok := p.mods[m.file]; ok {
		return q
	}
	src, err := lang.ReadModule(m.file)
	if err != nil {
		in.fail(m.pos, "importing %s: %v", m.name, err)
	}
	file, err := lang.ParseProgram(m.file, src)
	if err != nil {
		panic(hostError{err})
	}
	q, err := Load(file)
	if err != nil {
		panic(hostError{err})
	}
	q.mods = p.mods
	p.mods[m.file] = q
	return q
}

// moduleValue is the value of a name imported from one of the program's
// own modules: a def (which runs in its module), or a module-level value
// (evaluated there).
func (in *evaluator) moduleValue(m moduleMember) any {
	q := in.loadModule(m)
	if _, ok := q.globals[m.name]; !ok {
		if _, ok := q.assigns[m.name]; !ok {
			in.fail(m.pos, "ImportError: cannot import name %s from %s", m.name, m.file)
		}
	}
	defer in.enter(q)()
	return in.global(m.name, m.pos)
}

// enter makes q the program whose globals and source host code reads (a
// function of q runs), and returns what restores the previous one.
func (in *evaluator) enter(q *Program) func() {
	prev := in.prog
	in.prog = q
	return func() { in.prog = prev }
}

// cudaEvent is torch.cuda.Event(enable_timing=True), as the samples' own
// benchmark helper times a function with it: host code runs every launch
// to its end before going on (the interpreter, and tilec's GPU launches,
// which check each against it), so an event's time is the wall-clock
// time at its record(), and elapsed_time the milliseconds between two.
type cudaEvent struct {
	at       time.Time
	recorded bool
}

// eventMethod is ev.record(), ev.elapsed_time(end), ev.synchronize(),
// ev.query().
func (in *evaluator) eventMethod(c *callSite, ev *cudaEvent, name string) any {
	switch name {
	case "record":
		c.bind("Event.record", "stream=")
		ev.at, ev.recorded = time.Now(), true
		return none{}
	case "elapsed_time":
		a := c.bind("Event.elapsed_time", "end_event")
		end, ok := a[0].(*cudaEvent)
		if !ok {
			in.fail(c.argPos(0), "Event.elapsed_time takes another torch.cuda.Event, got %s", describe(a[0]))
		}
		if !ev.recorded || !end.recorded {
			in.fail(c.e.Pos, "RuntimeError: Both events must be recorded before calculating elapsed time.")
		}
		return float64(end.at.Sub(ev.at).Nanoseconds()) / 1e6
	case "synchronize":
		c.bind("Event.synchronize")
		return none{}
	}
	c.bind("Event.query")
	return true
}
