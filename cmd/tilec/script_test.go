package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestMain lets testscript run tilec in-process as a command named "tilec".
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"tilec": func() { os.Exit(main1()) },
	})
}

// TestScripts runs the CLI scenarios in testdata/script: each archive holds
// the commands, the files they read and the output they must print.
// The examples are available under $EXAMPLES, and the kernels written with
// tilec's extensions (annotated arrays, declared grids) under $KERNELS;
// $ROOT is the repository, for scripts that run README's commands as
// printed (paths relative to the root).
func TestScripts(t *testing.T) {
	examples, err := filepath.Abs("../../examples")
	if err != nil {
		t.Fatal(err)
	}
	kernels, err := filepath.Abs("../../testdata/kernels")
	if err != nil {
		t.Fatal(err)
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Setup: func(env *testscript.Env) error {
			env.Setenv("EXAMPLES", examples)
			env.Setenv("KERNELS", kernels)
			env.Setenv("ROOT", root)
			return nil
		},
		UpdateScripts: os.Getenv("UPDATE_SCRIPTS") != "",
	})
}
