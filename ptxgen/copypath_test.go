package ptxgen

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tilec/tilec/lower"
)

var (
	ptxRegRef = regexp.MustCompile(`%[a-z]+\d+`)
	ptxBranch = regexp.MustCompile(`bra\.uni (\$L_cpslow_\d+);`)
)

// undefinedOnSlowPath returns the registers that the element-wise path of
// an auto copy (from $L_cpslow_N: to the next $L_cpdone) reads but that
// were first written only inside the vector path it skipped (from the
// branch to $L_cpslow_N up to that label): undefined values when the
// element-wise path runs.
func undefinedOnSlowPath(ptx string) []string {
	lines := strings.Split(ptx, "\n")
	defined := map[string]bool{} // written somewhere before, outside skipped vector paths
	var bad []string
	for i := 0; i < len(lines); i++ {
		m := ptxBranch.FindStringSubmatch(lines[i])
		if m == nil || !strings.Contains(lines[i], "@") {
			for _, r := range writtenRegs(lines[i]) {
				defined[r] = true
			}
			continue
		}
		slow := m[1] + ":"
		j := i + 1
		fastOnly := map[string]bool{}
		for ; j < len(lines) && strings.TrimSpace(lines[j]) != slow; j++ {
			for _, r := range writtenRegs(lines[j]) {
				if !defined[r] {
					fastOnly[r] = true
				}
			}
		}
		for k := j + 1; k < len(lines) && !strings.HasPrefix(strings.TrimSpace(lines[k]), "$L_cpdone"); k++ {
			for _, r := range readRegs(lines[k]) {
				if fastOnly[r] && !defined[r] {
					bad = append(bad, r+" in: "+strings.TrimSpace(lines[k]))
				}
			}
			for _, r := range writtenRegs(lines[k]) {
				defined[r] = true
			}
		}
		for r := range fastOnly {
			defined[r] = true // defined after the join on the vector path; fine later
		}
		i = j
	}
	return bad
}

// writtenRegs and readRegs split an instruction's register operands: the
// first operand is written unless the instruction is a store, a branch or a
// copy to memory (whose operands are all read).
func writtenRegs(line string) []string {
	ins, ops := splitInstr(line)
	if ins == "" || len(ops) == 0 || isReadOnlyInstr(ins) {
		return nil
	}
	return ptxRegRef.FindAllString(ops[0], -1)
}

func readRegs(line string) []string {
	ins, ops := splitInstr(line)
	if ins == "" {
		return nil
	}
	if p := strings.TrimSpace(line); strings.HasPrefix(p, "@") {
		ops = append(ops, strings.Fields(p)[0])
	}
	if !isReadOnlyInstr(ins) && len(ops) > 0 {
		ops = ops[1:]
	}
	var out []string
	for _, o := range ops {
		out = append(out, ptxRegRef.FindAllString(o, -1)...)
	}
	return out
}

func splitInstr(line string) (string, []string) {
	s := strings.TrimSpace(line)
	if strings.HasPrefix(s, "@") {
		if i := strings.IndexByte(s, ' '); i > 0 {
			s = s[i+1:]
		}
	}
	if s == "" || strings.HasPrefix(s, "//") || strings.HasPrefix(s, ".") || strings.HasSuffix(s, ":") {
		return "", nil
	}
	s = strings.TrimSuffix(s, ";")
	ins, rest, _ := strings.Cut(s, " ")
	var ops []string
	depth := 0
	start := 0
	for i, c := range rest {
		switch c {
		case '[', '{':
			depth++
		case ']', '}':
			depth--
		case ',':
			if depth == 0 {
				ops = append(ops, rest[start:i])
				start = i + 1
			}
		}
	}
	if strings.TrimSpace(rest) != "" {
		ops = append(ops, rest[start:])
	}
	return ins, ops
}

func isReadOnlyInstr(ins string) bool {
	for _, p := range []string{"st.", "cp.async", "bra", "red.", "bar.", "ret", "exit", "mbarrier", "cp.async.bulk"} {
		if strings.HasPrefix(ins, p) {
			return true
		}
	}
	return false
}

// The element-wise path of an auto copy reads only registers defined before
// the branch that picks it or on its own path. A 64x256 f32 tile copied by
// 256 threads (the f32 GEMM's default tiles on sm_80) once read a shared
// base register made inside the vector path: its unaligned copies wrote
// garbage rows on the H100.
func TestAutoCopySlowPathDefinesItsRegisters(t *testing.T) {
	for _, c := range []struct {
		consts map[string]string
		target string
	}{
		{map[string]string{"T": "f32"}, "sm_80"}, // one stage: no fast/general variants, an auto copy
	} {
		_, _, k := compileFile(t, filepath.Join("..", "testdata", "kernels", "matmul.tile"), c.consts, lower.MustTarget(c.target))
		if !strings.Contains(k.PTX, "$L_cpslow_") {
			t.Errorf("%v %s: no auto copy to check", c.consts, c.target)
			continue
		}
		if bad := undefinedOnSlowPath(k.PTX); len(bad) > 0 {
			t.Errorf("%v %s: the element-wise copy path reads registers only the vector path writes:\n%s", c.consts, c.target, strings.Join(bad, "\n"))
		}
	}
}
