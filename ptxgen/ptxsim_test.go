package ptxgen

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/tilec/tilec/ir"
	"github.com/tilec/tilec/lower"
)

// This file is a tiny interpreter for the straight-line PTX of elementwise
// kernels (no branches, no shared memory): enough to run the global load
// and store address math on strided views here, without a GPU, and to
// count which access path (vector or element-wise) each access took.

type simView struct {
	off             int // element offset of [0, 0] in the storage
	dims, strides   [2]int
	storageElements int
}

type simMem struct {
	base  uint64
	bytes []byte
}

type simStats struct{ vecAccesses, scalarAccesses int }

var simInstr = regexp.MustCompile(`^(@(!?)(%p\d+) )?([a-z0-9.]+)(?: (.*))?;$`)

// simRun runs kernel k over the grid on the given memory, one thread after
// another; params maps a .param name to its value.
func simRun(t *testing.T, k *Kernel, grid [2]int, params map[string]uint64, mem *simMem) simStats {
	t.Helper()
	var body []string
	in := false
	for _, l := range strings.Split(k.PTX, "\n") {
		l = strings.TrimSpace(l)
		switch {
		case l == "{":
			in = true
		case l == "}":
			in = false
		case in && l != "" && !strings.HasPrefix(l, ".reg"):
			body = append(body, l)
		}
	}
	var st simStats
	for by := 0; by < grid[1]; by++ {
		for bx := 0; bx < grid[0]; bx++ {
			for tid := 0; tid < k.Block[0]; tid++ {
				simThread(t, body, map[string]uint64{"%tid.x": uint64(tid), "%ctaid.x": uint64(bx), "%ctaid.y": uint64(by)}, params, mem, &st)
			}
		}
	}
	return st
}

func simThread(t *testing.T, body []string, special, params map[string]uint64, mem *simMem, st *simStats) {
	t.Helper()
	reg := map[string]uint64{}
	val := func(s string) uint64 {
		s = strings.TrimSpace(s)
		if v, ok := special[s]; ok {
			return v
		}
		if strings.HasPrefix(s, "%") {
			v, ok := reg[s]
			if !ok {
				t.Fatalf("read of unset %s", s)
			}
			return v
		}
		if strings.HasPrefix(s, "0f") {
			v, _ := strconv.ParseUint(s[2:], 16, 32)
			return v
		}
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			t.Fatalf("operand %q", s)
		}
		return uint64(v)
	}
	addr := func(s string) uint64 {
		s = strings.Trim(strings.TrimSpace(s), "[]")
		if p, ok := params[s]; ok {
			return p
		}
		if i := strings.IndexByte(s, '+'); i >= 0 {
			return val(s[:i]) + val(s[i+1:])
		}
		return val(s)
	}
	access := func(a uint64, n int) []byte {
		if a%uint64(n) != 0 {
			t.Fatalf("misaligned %d-byte access at %#x", n, a)
		}
		if a < mem.base || a+uint64(n) > mem.base+uint64(len(mem.bytes)) {
			t.Fatalf("access out of the allocation at %#x", a)
		}
		return mem.bytes[a-mem.base : a-mem.base+uint64(n)]
	}
	s32 := func(x uint64) int64 { return int64(int32(uint32(x))) }
	for _, line := range body {
		m := simInstr.FindStringSubmatch(line)
		if m == nil {
			t.Fatalf("cannot parse %q", line)
		}
		if m[3] != "" && (reg[m[3]] != 0) == (m[2] == "!") {
			continue
		}
		op := m[4]
		var args []string
		if m[5] != "" {
			// split on commas outside braces
			depth, startI := 0, 0
			for i, c := range m[5] {
				switch c {
				case '{':
					depth++
				case '}':
					depth--
				case ',':
					if depth == 0 {
						args = append(args, strings.TrimSpace(m[5][startI:i]))
						startI = i + 1
					}
				}
			}
			args = append(args, strings.TrimSpace(m[5][startI:]))
		}
		f := strings.Split(op, ".")
		typ := f[len(f)-1]
		wide := typ == "s64" || typ == "u64" || typ == "b64"
		norm := func(x uint64) uint64 {
			if wide {
				return x
			}
			if typ == "b16" {
				return x & 0xffff
			}
			return x & 0xffffffff
		}
		set := func(v uint64) { reg[args[0]] = norm(v) }
		switch {
		case op == "ret":
			return
		case strings.HasPrefix(op, "ld.param."):
			set(addr(args[1]))
		case op == "cvta.to.global.u64", strings.HasPrefix(op, "mov."):
			set(val(args[1]))
		case op == "cvt.s64.s32":
			reg[args[0]] = uint64(s32(val(args[1])))
		case op == "cvt.rn.f16.f32":
			if val(args[1]) != 0 {
				t.Fatalf("cvt of a nonzero value")
			}
			reg[args[0]] = 0
		case f[0] == "add":
			set(val(args[1]) + val(args[2]))
		case f[0] == "sub":
			set(val(args[1]) - val(args[2]))
		case f[0] == "mul":
			set(val(args[1]) * val(args[2]))
		case f[0] == "mad":
			set(val(args[1])*val(args[2]) + val(args[3]))
		case op == "and.pred":
			reg[args[0]] = val(args[1]) & val(args[2])
		case op == "not.pred":
			reg[args[0]] = 1 - val(args[1])
		case f[0] == "and":
			set(val(args[1]) & val(args[2]))
		case f[0] == "or":
			set(val(args[1]) | val(args[2]))
		case f[0] == "shr":
			set(val(args[1]) >> val(args[2]))
		case op == "bfe.u32":
			set((val(args[1]) >> val(args[2])) & (1<<val(args[3]) - 1))
		case f[0] == "setp":
			x, y := val(args[1]), val(args[2])
			var a, b int64
			if wide {
				a, b = int64(x), int64(y)
			} else {
				a, b = s32(x), s32(y)
			}
			var r bool
			switch f[1] {
			case "eq":
				r = a == b
			case "ne":
				r = a != b
			case "gt":
				r = a > b
			case "lt":
				r = a < b
			default:
				t.Fatalf("setp %s", f[1])
			}
			reg[args[0]] = 0
			if r {
				reg[args[0]] = 1
			}
		case f[0] == "ld" || f[0] == "st":
			if f[1] != "global" {
				t.Fatalf("%s", op)
			}
			eb := 4
			if typ == "b16" {
				eb = 2
			}
			regs := []string{args[0]}
			a := args[1]
			if f[0] == "st" {
				regs, a = []string{args[1]}, args[0]
			}
			if strings.HasPrefix(regs[0], "{") {
				regs = strings.Split(strings.Trim(regs[0], "{}"), ",")
				st.vecAccesses++
			} else {
				st.scalarAccesses++
			}
			b := access(addr(a), eb*len(regs))
			for i, r := range regs {
				r = strings.TrimSpace(r)
				if f[0] == "ld" {
					if eb == 2 {
						reg[r] = uint64(binary.LittleEndian.Uint16(b[2*i:]))
					} else {
						reg[r] = uint64(binary.LittleEndian.Uint32(b[4*i:]))
					}
				} else if eb == 2 {
					binary.LittleEndian.PutUint16(b[2*i:], uint16(val(r)))
				} else {
					binary.LittleEndian.PutUint32(b[4*i:], uint32(val(r)))
				}
			}
		default:
			t.Fatalf("interpreter: unsupported %q", line)
		}
	}
}

// TestStridedCopySim runs the copy kernel (the runtime's TestCUDACopyStrided)
// on views with any strides and offsets and checks every element, and that
// vector accesses are used exactly when the views are aligned.
func TestStridedCopySim(t *testing.T) {
	const tm, tn = 16, 32
	for _, dt := range []ir.DType{ir.F32, ir.F16} {
		consts := map[string]string{"T": map[ir.DType]string{ir.F32: "float32", ir.F16: "float16"}[dt], "tm": fmt.Sprint(tm), "tn": fmt.Sprint(tn)}
		g, err := lower.Lower(buildFile(t, filepath.Join("testdata", "copy.tile"), consts), lower.MustTarget("sm_80"))
		if err != nil {
			t.Fatal(err)
		}
		k, err := EmitKernel(g, lower.MustTarget("sm_80"))
		if err != nil {
			t.Fatal(err)
		}
		eb := dt.Bytes()
		for _, c := range []struct {
			name    string
			A, C    simView
			wantVec bool // every in-bounds access vectorized
			noVec   bool // no vector access at all
		}{
			// The failing GPU case: A transposed, C offset by 3 with row stride 80.
			{"transposed/offset3", simView{0, [2]int{45, 77}, [2]int{1, 45}, 77 * 45}, simView{3, [2]int{45, 77}, [2]int{80, 1}, 50 * 80}, false, true},
			{"contiguous", simView{0, [2]int{64, 128}, [2]int{128, 1}, 64 * 128}, simView{0, [2]int{64, 128}, [2]int{128, 1}, 64 * 128}, true, false},
			{"offset8/pitch72", simView{0, [2]int{40, 64}, [2]int{64, 1}, 40 * 64}, simView{8, [2]int{40, 64}, [2]int{72, 1}, 41 * 72}, true, false},
			{"odd pitch", simView{1, [2]int{33, 70}, [2]int{71, 1}, 34 * 71}, simView{0, [2]int{33, 70}, [2]int{72, 1}, 33 * 72}, false, false},
			{"both transposed", simView{0, [2]int{20, 40}, [2]int{1, 20}, 800}, simView{0, [2]int{20, 40}, [2]int{1, 20}, 800}, false, true},
		} {
			t.Run(fmt.Sprintf("%s/%s", dt, c.name), func(t *testing.T) {
				rng := rand.New(rand.NewPCG(1, 2))
				aBytes, cBytes := c.A.storageElements*eb, c.C.storageElements*eb
				aOff := (aBytes + 255) &^ 255
				mem := &simMem{base: 1 << 20, bytes: make([]byte, aOff+cBytes)}
				for i := 0; i < aBytes; i++ {
					mem.bytes[i] = byte(rng.Uint32()) | 1 // no zero elements
				}
				params := map[string]uint64{
					"p_A_ptr": mem.base + uint64(c.A.off*eb), "p_C_ptr": mem.base + uint64(aOff+c.C.off*eb),
				}
				for i, v := range []*simView{&c.A, &c.C} {
					n := string("AC"[i])
					for d := 0; d < 2; d++ {
						params[fmt.Sprintf("p_%s_dim%d", n, d)] = uint64(v.dims[d])
						params[fmt.Sprintf("p_%s_stride%d", n, d)] = uint64(v.strides[d])
					}
				}
				grid := [2]int{(c.C.dims[0] + tm - 1) / tm, (c.C.dims[1] + tn - 1) / tn}
				st := simRun(t, k, grid, params, mem)
				elem := func(base int, v simView, i, j int) []byte {
					o := base + (v.off+i*v.strides[0]+j*v.strides[1])*eb
					return mem.bytes[o : o+eb]
				}
				bad := 0
				for i := 0; i < c.C.dims[0]; i++ {
					for j := 0; j < c.C.dims[1]; j++ {
						want := make([]byte, eb)
						if i < c.A.dims[0] && j < c.A.dims[1] {
							want = elem(0, c.A, i, j)
						}
						if got := elem(aOff, c.C, i, j); string(got) != string(want) {
							if bad++; bad < 5 {
								t.Errorf("C[%d %d] = %x, want %x", i, j, got, want)
							}
						}
					}
				}
				if bad > 0 {
					t.Errorf("%d elements wrong", bad)
				}
				if c.noVec && st.vecAccesses != 0 {
					t.Errorf("%d vector accesses on unaligned views", st.vecAccesses)
				}
				if c.wantVec && st.scalarAccesses != 0 {
					t.Errorf("%d element-wise accesses on aligned views (%d vector)", st.scalarAccesses, st.vecAccesses)
				}
				if !c.noVec && !c.wantVec && (st.vecAccesses == 0 || st.scalarAccesses == 0) {
					t.Errorf("mixed case: %d vector, %d element-wise accesses", st.vecAccesses, st.scalarAccesses)
				}
			})
		}
	}
}
