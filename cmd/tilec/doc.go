// Command tilec compiles and runs tile kernels.
//
//	tilec compile FILE [--emit ast|ir|lowered|ptx] [--target T] [-D name=value ...] [--kernel NAME] [--dump-after PASS]
//	tilec run FILE [-D name=value ...] [--shape M=..,N=..] [--seed N] [--backend cpu|cuda] [--target T] [--in A=a.npy] [--out C=c.npy]
//	tilec bench FILE --sizes 1024,2048,... [-D name=value ...] [--grid x,y,z] [--json]
//	tilec bench FILE --entry FUNC --arg X=f16[M,N] ... [--shape M=4096,8192,N=M] [--json]
//
// The command is a thin layer over the packages: lang parses, ir builds and
// verifies, lower and ptxgen produce PTX, runtime executes (the CPU
// interpreter everywhere, CUDA when built with -tags cuda).
package main
