package main

// One PTX module for the kernels of a file: ptxgen makes one complete
// module per kernel (.version, .target, .address_size, its module-scope
// declarations, one .entry), and ptxas rejects modules printed back to
// back ("Parsing error near '.version'"). tilec compile --emit ptx of a
// file with several kernels joins them: the directives once, every
// module-scope declaration once, then each kernel's comment and entry.

import (
	"fmt"
	"strings"
)

// ptxModule is a module split at its first entry: the comment that opens
// it, its directives (.version, .target, .address_size), its module-scope
// declarations, and the rest, from the first entry on.
type ptxModule struct {
	comment, directives, decls []string
	entries                    string
	entryName                  string
}

// splitModule splits one module as ptxgen prints it.
func splitModule(mod string) (*ptxModule, error) {
	m := &ptxModule{}
	lines := strings.SplitAfter(mod, "\n")
	for i, l := range lines {
		t := strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(t, ".visible .entry ") || strings.HasPrefix(t, ".entry "):
			m.entries = strings.Join(lines[i:], "")
			name := strings.TrimPrefix(strings.TrimPrefix(t, ".visible "), ".entry ")
			m.entryName, _, _ = strings.Cut(name, "(")
			return m, nil
		case t == "":
		case strings.HasPrefix(t, "//"):
			if len(m.directives) == 0 && len(m.decls) == 0 {
				m.comment = append(m.comment, l)
			}
		case strings.HasPrefix(t, ".version ") || strings.HasPrefix(t, ".target ") || strings.HasPrefix(t, ".address_size "):
			m.directives = append(m.directives, t)
		default:
			m.decls = append(m.decls, t)
		}
	}
	return nil, fmt.Errorf("a PTX module without an .entry")
}

// declName is the symbol a module-scope declaration names: the word
// before its array bounds, initializer or semicolon.
func declName(decl string) string {
	d, _, _ := strings.Cut(decl, "=")
	d, _, _ = strings.Cut(d, "[")
	d = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(d), ";"))
	f := strings.Fields(d)
	if len(f) == 0 {
		return ""
	}
	return f[len(f)-1]
}

// joinPTX makes one module of the modules of a file's kernels, all for
// one target: one module as it is; several with their directives once,
// their module-scope declarations once each (the same declaration in two
// modules, the dynamic shared memory, say, is one symbol), then every
// kernel's comment and entry in order. Two kernels that declare one
// symbol differently, or share an entry name, cannot share a module: the
// error says to compile them one at a time.
func joinPTX(mods []string) (string, error) {
	if len(mods) == 1 {
		return mods[0], nil
	}
	var ms []*ptxModule
	for _, mod := range mods {
		m, err := splitModule(mod)
		if err != nil {
			return "", err
		}
		ms = append(ms, m)
	}
	oneAtATime := "compile them one at a time with --kernel"
	var decls []string
	declared := map[string]string{} // symbol -> its declaration
	entries := map[string]bool{}
	for _, m := range ms {
		if strings.Join(m.directives, "\n") != strings.Join(ms[0].directives, "\n") {
			return "", fmt.Errorf("kernels %s and %s have different PTX directives (%s; %s): %s",
				ms[0].entryName, m.entryName, strings.Join(ms[0].directives, " "), strings.Join(m.directives, " "), oneAtATime)
		}
		if entries[m.entryName] {
			return "", fmt.Errorf("two kernels are named %s in PTX: %s", m.entryName, oneAtATime)
		}
		entries[m.entryName] = true
		for _, d := range m.decls {
			name := declName(d)
			if old, ok := declared[name]; ok {
				if old != d {
					return "", fmt.Errorf("kernel %s declares %s as %q, another kernel as %q: %s", m.entryName, name, d, old, oneAtATime)
				}
				continue
			}
			declared[name] = d
			decls = append(decls, d)
		}
	}
	var b strings.Builder
	b.WriteString(strings.Join(ms[0].comment, ""))
	b.WriteString("\n" + strings.Join(ms[0].directives, "\n") + "\n\n")
	for _, d := range decls {
		b.WriteString(d + "\n\n")
	}
	for i, m := range ms {
		if i > 0 {
			b.WriteString(strings.Join(m.comment, "") + "\n")
		}
		b.WriteString(m.entries)
	}
	return b.String(), nil
}
