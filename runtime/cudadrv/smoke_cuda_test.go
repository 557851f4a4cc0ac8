//go:build cuda

package cudadrv

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"unsafe"
)

// These tests need a GPU. Build here and run the binary on the GPU machine:
//
//	go test -tags cuda -c -o .dev/cudadrv.test ./runtime/cudadrv/
//	.dev/cudadrv.test -test.v
//
// gorgonia.org/cu exits the process during initialisation when cuInit fails,
// so "no GPU" usually ends the binary before a test can skip; the skip below
// covers a driver that initialises but cannot open the device.

var (
	devOnce sync.Once
	dev     *Device
	devErr  error
)

func openDevice(t *testing.T) *Device {
	t.Helper()
	devOnce.Do(func() { dev, devErr = Open(0) })
	if devErr != nil {
		t.Skipf("no usable GPU: %v", devErr)
	}
	return dev
}

func TestDeviceProperties(t *testing.T) {
	d := openDevice(t)
	t.Logf("%+v (sm_%d)", d.Props, d.Props.SM())
	if d.Props.SMs <= 0 || d.Props.SharedPerBlockOptin < d.Props.SharedPerBlock {
		t.Errorf("implausible properties %+v", d.Props)
	}
}

const vaddPTX = `.version 8.0
.target sm_80
.address_size 64

// c[i] = a[i] + s * b[i] for i < n
.visible .entry vadd(
	.param .u64 pa,
	.param .u64 pb,
	.param .u64 pc,
	.param .f32 ps,
	.param .u32 pn
)
{
	.reg .pred %p<2>;
	.reg .b32 %r<6>;
	.reg .f32 %f<5>;
	.reg .b64 %rd<11>;

	ld.param.u64 %rd1, [pa];
	ld.param.u64 %rd2, [pb];
	ld.param.u64 %rd3, [pc];
	ld.param.f32 %f4, [ps];
	ld.param.u32 %r1, [pn];
	mov.u32 %r2, %ctaid.x;
	mov.u32 %r3, %ntid.x;
	mov.u32 %r4, %tid.x;
	mad.lo.s32 %r5, %r2, %r3, %r4;
	setp.ge.u32 %p1, %r5, %r1;
	@%p1 bra DONE;
	cvta.to.global.u64 %rd4, %rd1;
	cvta.to.global.u64 %rd5, %rd2;
	cvta.to.global.u64 %rd6, %rd3;
	mul.wide.u32 %rd7, %r5, 4;
	add.s64 %rd8, %rd4, %rd7;
	add.s64 %rd9, %rd5, %rd7;
	add.s64 %rd10, %rd6, %rd7;
	ld.global.f32 %f1, [%rd8];
	ld.global.f32 %f2, [%rd9];
	fma.rn.f32 %f3, %f4, %f2, %f1;
	st.global.f32 [%rd10], %f3;
DONE:
	ret;
}

// Copies its scalar and blob parameters to out, to check argument layout.
.visible .entry params(
	.param .u64 pout,
	.param .s32 pa,
	.param .s64 pb,
	.param .align 64 .b8 blob[128],
	.param .f32 pc,
	.param .u16 pd
)
{
	.reg .b16 %h<2>;
	.reg .b32 %r<3>;
	.reg .f32 %f<2>;
	.reg .b64 %rd<9>;

	ld.param.u64 %rd1, [pout];
	cvta.to.global.u64 %rd1, %rd1;
	ld.param.s32 %r1, [pa];
	cvt.s64.s32 %rd2, %r1;
	st.global.u64 [%rd1], %rd2;
	ld.param.s64 %rd3, [pb];
	st.global.u64 [%rd1+8], %rd3;
	ld.param.u64 %rd4, [blob];
	st.global.u64 [%rd1+16], %rd4;
	ld.param.u64 %rd5, [blob+120];
	st.global.u64 [%rd1+24], %rd5;
	ld.param.f32 %f1, [pc];
	mov.b32 %r2, %f1;
	cvt.u64.u32 %rd6, %r2;
	st.global.u64 [%rd1+32], %rd6;
	ld.param.u16 %h1, [pd];
	cvt.u64.u16 %rd7, %h1;
	st.global.u64 [%rd1+40], %rd7;
	ret;
}
`

func mustAlloc(t *testing.T, d *Device, bytes int) DevicePtr {
	t.Helper()
	p, err := d.Alloc(bytes)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Free(p) })
	return p
}

func TestVectorAdd(t *testing.T) {
	d := openDevice(t)
	m, err := d.LoadModule(vaddPTX)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Unload()
	t.Logf("JIT info log:\n%s", m.InfoLog)
	f, err := m.Function("vadd")
	if err != nil {
		t.Fatal(err)
	}
	attrs, err := f.Attributes()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("vadd attributes: %+v", attrs)

	const n = 1 << 20
	const s = float32(2.5)
	a, b := make([]float32, n), make([]float32, n)
	for i := range a {
		a[i] = float32(i)
		b[i] = float32(i%1000) * 0.25
	}
	pa, pb, pc := mustAlloc(t, d, 4*n), mustAlloc(t, d, 4*n), mustAlloc(t, d, 4*n)
	if err := d.CopyHtoD(pa, Bytes(a)); err != nil {
		t.Fatal(err)
	}
	if err := d.CopyHtoD(pb, Bytes(b)); err != nil {
		t.Fatal(err)
	}
	if err := d.Memset(pc, 0xff, 4*n); err != nil {
		t.Fatal(err)
	}
	// Opt in to 100 KiB of dynamic shared memory, above the 48 KiB default,
	// and launch with it: without the attribute this launch fails.
	const smem = 100 << 10
	if err := f.SetMaxDynamicSharedMemory(smem); err != nil {
		t.Fatal(err)
	}
	if err := d.Launch(f, [3]int{n / 256, 1, 1}, [3]int{256, 1, 1}, smem, pa, pb, pc, s, uint32(n)); err != nil {
		t.Fatal(err)
	}
	if err := d.Synchronize(); err != nil {
		t.Fatal(err)
	}
	c := make([]float32, n)
	if err := d.CopyDtoH(Bytes(c), pc); err != nil {
		t.Fatal(err)
	}
	for i := range c {
		if want := a[i] + s*b[i]; c[i] != want {
			t.Fatalf("c[%d] = %v, want %v", i, c[i], want)
		}
	}

	ms, err := d.TimeLaunches(func() error {
		return d.Launch(f, [3]int{n / 256, 1, 1}, [3]int{256, 1, 1}, 0, pa, pb, pc, s, uint32(n))
	}, 3, 10)
	if err != nil {
		t.Fatal(err)
	}
	med := Median(ms)
	t.Logf("vadd 1M f32: median %.4f ms, %.0f GB/s", med, 12*n/med/1e6)
}

func TestLaunchParams(t *testing.T) {
	d := openDevice(t)
	m, err := d.LoadModule(vaddPTX)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Unload()
	f, err := m.Function("params")
	if err != nil {
		t.Fatal(err)
	}
	blob := make([]byte, 128)
	for i := range blob {
		blob[i] = byte(i + 1)
	}
	out := mustAlloc(t, d, 48)
	if err := d.Launch(f, [3]int{1, 1, 1}, [3]int{1, 1, 1}, 0,
		out, int32(-7), int64(-1<<40), blob, float32(1.5), uint16(0xbeef)); err != nil {
		t.Fatal(err)
	}
	got := make([]uint64, 6)
	if err := d.CopyDtoH(Bytes(got), out); err != nil {
		t.Fatal(err)
	}
	le := func(b []byte) uint64 { return *(*uint64)(unsafe.Pointer(&b[0])) }
	want := []uint64{
		uint64(0xfffffffffffffff9), // int32(-7) sign-extended
		uint64(0xffffff0000000000), // -1<<40
		le(blob[0:8]),
		le(blob[120:128]),
		uint64(math.Float32bits(1.5)),
		0xbeef,
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("param word %d = %#x, want %#x", i, got[i], want[i])
		}
	}
	if err := d.Launch(f, [3]int{1, 1, 1}, [3]int{1, 1, 1}, 0, out, 3); err == nil {
		t.Error("Launch accepted a Go int argument")
	}
}

func TestBrokenPTX(t *testing.T) {
	d := openDevice(t)
	const bad = `.version 8.0
.target sm_80
.address_size 64

.visible .entry broken(.param .u64 p)
{
	.reg .f32 %f<3>;
	mov.f32 %f1, 0f3F800000;
	add.f33 %f2, %f1, %f1;
	ret;
}
`
	_, err := d.LoadModule(bad)
	if err == nil {
		t.Fatal("broken PTX loaded")
	}
	t.Logf("error text:\n%v", err)
	var le *LoadError
	if !errors.As(err, &le) {
		t.Fatalf("error is %T, want *LoadError", err)
	}
	if le.Driver.Code != 218 { // CUDA_ERROR_INVALID_PTX
		t.Errorf("code %d, want 218", le.Driver.Code)
	}
	if !strings.Contains(err.Error(), "PTX line 9: \tadd.f33 %f2, %f1, %f1;") {
		t.Errorf("error does not quote PTX line 9")
	}
}

func TestEncodeTensorMap(t *testing.T) {
	d := openDevice(t)
	if d.Props.Major < 9 {
		t.Skip("tensor maps need sm_90+")
	}
	const M, K = 256, 512
	p := mustAlloc(t, d, M*K*2)
	tm, err := d.EncodeTensorMap(TiledTensor{
		DataType: TMBFloat16, Global: p,
		Dims: []uint64{K, M}, Strides: []uint64{2 * K}, Box: []uint32{64, 128},
		Swizzle: Swizzle128B, L2Promotion: L2Promotion256B,
	})
	if err != nil {
		t.Fatal(err)
	}
	if tm == (TensorMap{}) {
		t.Fatal("tensor map is all zero")
	}
	// The map must reach a kernel intact through Launch.
	m, err := d.LoadModule(vaddPTX)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Unload()
	f, err := m.Function("params")
	if err != nil {
		t.Fatal(err)
	}
	out := mustAlloc(t, d, 48)
	if err := d.Launch(f, [3]int{1, 1, 1}, [3]int{1, 1, 1}, 0,
		out, int32(0), int64(0), tm, float32(0), uint16(0)); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, 48)
	if err := d.CopyDtoH(got, out); err != nil {
		t.Fatal(err)
	}
	if string(got[16:24]) != string(tm[0:8]) || string(got[24:32]) != string(tm[120:128]) {
		t.Errorf("tensor map bytes changed in transit")
	}
	// A box wider than the 128-byte swizzle span must be refused.
	_, err = d.EncodeTensorMap(TiledTensor{
		DataType: TMBFloat16, Global: p,
		Dims: []uint64{K, M}, Strides: []uint64{2 * K}, Box: []uint32{128, 128},
		Swizzle: Swizzle128B,
	})
	if err == nil {
		t.Error("bad tensor map accepted")
	} else {
		t.Logf("bad map: %v", err)
	}
}

// f32ToF16 rounds to nearest even; inputs here are small normal numbers.
func f32ToF16(f float32) uint16 {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	exp := int((b>>23)&0xff) - 127 + 15
	mant := b & 0x7fffff
	switch {
	case exp >= 31:
		return sign | 0x7c00
	case exp <= 0:
		if exp < -10 {
			return sign
		}
		mant |= 0x800000
		shift := uint(14 - exp)
		h, rem, half := mant>>shift, mant&(1<<shift-1), uint32(1)<<(shift-1)
		if rem > half || rem == half && h&1 == 1 {
			h++
		}
		return sign | uint16(h)
	}
	h := uint16(exp)<<10 | uint16(mant>>13)
	if rem := mant & 0x1fff; rem > 0x1000 || rem == 0x1000 && h&1 == 1 {
		h++
	}
	return sign | h
}

func f16ToF32(h uint16) float32 {
	sign := uint32(h&0x8000) << 16
	exp := uint32(h>>10) & 0x1f
	mant := uint32(h & 0x3ff)
	switch exp {
	case 0:
		return sgn(sign) * float32(mant) * float32(math.Ldexp(1, -24))
	case 31:
		return math.Float32frombits(sign | 0x7f800000 | mant<<13)
	}
	return math.Float32frombits(sign | (exp+112)<<23 | mant<<13)
}

func sgn(signBit uint32) float32 {
	if signBit != 0 {
		return -1
	}
	return 1
}

func f32ToBF16(f float32) uint16 {
	b := math.Float32bits(f)
	return uint16((b + 0x7fff + (b>>16)&1) >> 16)
}

func bf16ToF32(h uint16) float32 { return math.Float32frombits(uint32(h) << 16) }

// randomMatrix returns n values in [-1, 1) rounded to dt, as device bytes
// and as the float64 values those bytes hold.
func randomMatrix(rng *rand.Rand, dt DType, n int) ([]byte, []float64) {
	vals := make([]float64, n)
	switch dt {
	case F32:
		h := make([]float32, n)
		for i := range h {
			h[i] = rng.Float32()*2 - 1
			vals[i] = float64(h[i])
		}
		return Bytes(h), vals
	default:
		h := make([]uint16, n)
		for i := range h {
			x := rng.Float32()*2 - 1
			if dt == F16 {
				h[i] = f32ToF16(x)
				vals[i] = float64(f16ToF32(h[i]))
			} else {
				h[i] = f32ToBF16(x)
				vals[i] = float64(bf16ToF32(h[i]))
			}
		}
		return Bytes(h), vals
	}
}

func decode(dt DType, b []byte) []float64 {
	n := len(b) / dt.Size()
	out := make([]float64, n)
	for i := range out {
		switch dt {
		case F32:
			out[i] = float64(math.Float32frombits(*(*uint32)(unsafe.Pointer(&b[4*i]))))
		case F16:
			out[i] = float64(f16ToF32(*(*uint16)(unsafe.Pointer(&b[2*i]))))
		case BF16:
			out[i] = float64(bf16ToF32(*(*uint16)(unsafe.Pointer(&b[2*i]))))
		}
	}
	return out
}

func TestGemmAccuracy(t *testing.T) {
	d := openDevice(t)
	path, ver, err := d.BLASInfo()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("cuBLAS: %s, version %d", path, ver)
	const M, N, K = 512, 256, 128
	for _, dt := range []DType{F16, BF16, F32} {
		t.Run(dt.String(), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, uint64(dt)))
			ab, av := randomMatrix(rng, dt, M*K)
			bb, bv := randomMatrix(rng, dt, K*N)
			pa, pb, pc := mustAlloc(t, d, len(ab)), mustAlloc(t, d, len(bb)), mustAlloc(t, d, M*N*dt.Size())
			if err := d.CopyHtoD(pa, ab); err != nil {
				t.Fatal(err)
			}
			if err := d.CopyHtoD(pb, bb); err != nil {
				t.Fatal(err)
			}
			if err := d.Gemm(dt, M, N, K, pa, pb, pc); err != nil {
				t.Fatal(err)
			}
			cb := make([]byte, M*N*dt.Size())
			if err := d.CopyDtoH(cb, pc); err != nil {
				t.Fatal(err)
			}
			got := decode(dt, cb)
			var diff2, ref2, maxDiff, maxRef float64
			for i := range M {
				for j := range N {
					var ref float64
					for k := range K {
						ref += av[i*K+k] * bv[k*N+j]
					}
					e := got[i*N+j] - ref
					diff2 += e * e
					ref2 += ref * ref
					maxDiff = max(maxDiff, math.Abs(e))
					maxRef = max(maxRef, math.Abs(ref))
				}
			}
			rel := math.Sqrt(diff2 / ref2)
			t.Logf("%v %dx%dx%d: relative Frobenius error %.2e, max abs error %.2e (max |ref| %.1f)",
				dt, M, N, K, rel, maxDiff, maxRef)
			if rel > 1e-2 || maxDiff/maxRef > 1e-2 {
				t.Errorf("error too large")
			}
		})
	}
}

// The strided-batched GEMM against a float64 reference, per product, with
// non-square shapes so that a swapped m and n or a wrong stride is caught;
// a bad shape is an error, not a launch.
func TestGemmStridedBatchedAccuracy(t *testing.T) {
	d := openDevice(t)
	const Bt, M, N, K = 3, 192, 64, 96
	for _, dt := range []DType{F16, BF16, F32} {
		t.Run(dt.String(), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(3, uint64(dt)))
			ab, av := randomMatrix(rng, dt, Bt*M*K)
			bb, bv := randomMatrix(rng, dt, Bt*K*N)
			pa, pb, pc := mustAlloc(t, d, len(ab)), mustAlloc(t, d, len(bb)), mustAlloc(t, d, Bt*M*N*dt.Size())
			if err := d.CopyHtoD(pa, ab); err != nil {
				t.Fatal(err)
			}
			if err := d.CopyHtoD(pb, bb); err != nil {
				t.Fatal(err)
			}
			if err := d.GemmStridedBatched(dt, Bt, M, N, K, pa, pb, pc); err != nil {
				t.Fatal(err)
			}
			cb := make([]byte, Bt*M*N*dt.Size())
			if err := d.CopyDtoH(cb, pc); err != nil {
				t.Fatal(err)
			}
			got := decode(dt, cb)
			for b := range Bt {
				var diff2, ref2 float64
				for i := range M {
					for j := range N {
						var ref float64
						for k := range K {
							ref += av[(b*M+i)*K+k] * bv[(b*K+k)*N+j]
						}
						e := got[(b*M+i)*N+j] - ref
						diff2 += e * e
						ref2 += ref * ref
					}
				}
				if rel := math.Sqrt(diff2 / ref2); rel > 1e-2 {
					t.Errorf("%v batch %d: relative Frobenius error %.2e", dt, b, rel)
				}
			}
		})
	}
	if err := d.GemmStridedBatched(F16, 0, M, N, K, 0, 0, 0); err == nil || !strings.Contains(err.Error(), "bad shape") {
		t.Errorf("batch 0: err = %v", err)
	}
}

func TestGemmThroughput(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	d := openDevice(t)
	const n = 4096
	for _, dt := range []DType{F16, BF16} {
		rng := rand.New(rand.NewPCG(2, uint64(dt)))
		ab, _ := randomMatrix(rng, dt, n*n)
		bb, _ := randomMatrix(rng, dt, n*n)
		pa, pb, pc := mustAlloc(t, d, len(ab)), mustAlloc(t, d, len(bb)), mustAlloc(t, d, n*n*dt.Size())
		if err := d.CopyHtoD(pa, ab); err != nil {
			t.Fatal(err)
		}
		if err := d.CopyHtoD(pb, bb); err != nil {
			t.Fatal(err)
		}
		ms, err := d.TimeLaunches(func() error { return d.Gemm(dt, n, n, n, pa, pb, pc) }, 5, 20)
		if err != nil {
			t.Fatal(err)
		}
		med := Median(ms)
		t.Logf("cuBLAS %v %d^3: median %.3f ms over %d runs = %.1f TFLOP/s", dt, n, med, len(ms), 2*n*n*n/(med*1e-3)/1e12)
	}
}
