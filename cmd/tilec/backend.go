package main

import (
	"fmt"
	"io"

	"github.com/tilec/tilec/lower"
	"github.com/tilec/tilec/runtime"
	"github.com/tilec/tilec/runtime/check"
	"github.com/tilec/tilec/runtime/cuda"
	"github.com/tilec/tilec/runtime/interp"
)

// defaultBackend is cuda in a cuda build (which only starts where a driver
// is present), cpu otherwise.
func defaultBackend() string {
	if cuda.Available {
		return "cuda"
	}
	return "cpu"
}

// gpuTarget looks up a --target flag; "" stays nil (the device's best).
func gpuTarget(name string) (*lower.Target, error) {
	if name == "" {
		return nil, nil
	}
	t, err := lower.LookupTarget(name)
	if err != nil {
		return nil, usagef("--target: %v", err)
	}
	return t, nil
}

func openBackend(name, target string, workers int) (runtime.Backend, error) {
	t, err := gpuTarget(target)
	if err != nil {
		return nil, err
	}
	switch name {
	case "cpu":
		return interp.CPU{Workers: workers}, nil
	case "cuda":
		gpu, err := cuda.New(0)
		if err != nil {
			return nil, err
		}
		gpu.Target = t
		return gpu, nil
	}
	return nil, usagef("--backend must be cpu or cuda, not %q", name)
}

// checkDevice compares a device launch's outputs with the interpreter's on
// the same inputs (every block for small outputs, a sample of blocks for
// large ones) and fails the command on a mismatch; launched is the
// launch's result (how the device summed float8 products).
func checkDevice(w io.Writer, k *runtime.Kernel, inputs, outputs []runtime.Arg, grid [3]int, seed int64, workers int, launched *runtime.LaunchResult) error {
	res, err := check.CheckAgainstInterpreter(k, inputs, outputs, check.CheckOptions{
		Grid: grid, Seed: uint64(seed), Workers: workers, Float8FastSums: launched != nil && launched.Float8FastSums,
	})
	if err != nil {
		return err
	}
	fmt.Fprintln(w, res)
	if !res.Pass {
		return fmt.Errorf("tilec: %s: device result differs from the interpreter", k.Name())
	}
	return nil
}
