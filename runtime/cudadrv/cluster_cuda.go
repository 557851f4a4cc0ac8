//go:build cuda

package cudadrv

/*
#include <dlfcn.h>
#include <stdint.h>
#include <cuda.h>

// cuOccupancyMaxActiveClusters arrived in CUDA 12.0, after the 11.8 cuda.h we
// build against: its prototype and CUlaunchConfig (CUDA Driver API,
// "Occupancy" and "Execution Control") are declared here and the symbol is
// looked up in the loaded driver. With attrs NULL the kernel's compile-time
// cluster shape (.reqnctapercluster) is used.
typedef struct {
	unsigned int gridDimX, gridDimY, gridDimZ;
	unsigned int blockDimX, blockDimY, blockDimZ;
	unsigned int sharedMemBytes;
	CUstream hStream;
	void *attrs;
	unsigned int numAttrs;
} tilec_launch_config;

typedef CUresult (*tilec_max_clusters_fn)(int *n, CUfunction f, const tilec_launch_config *cfg);

static tilec_max_clusters_fn tilec_max_clusters;

static int tilec_find_max_clusters(void) {
	if (tilec_max_clusters) return 0;
	void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
	if (!h) return -1;
	tilec_max_clusters = (tilec_max_clusters_fn)dlsym(h, "cuOccupancyMaxActiveClusters");
	return tilec_max_clusters ? 0 : -1;
}

static CUresult tilec_max_active_clusters(int *n, CUfunction f, unsigned int grid,
		unsigned int bx, unsigned int by, unsigned int bz, unsigned int smem) {
	tilec_launch_config c = {grid, 1, 1, bx, by, bz, smem, 0, 0, 0};
	return tilec_max_clusters(n, f, &c);
}
*/
import "C"

import "errors"

// MaxActiveClusters is the number of clusters of f (its compile-time
// cluster shape) that can be resident on the device at once, for blocks of
// block threads with sharedBytes of dynamic shared memory: the most a
// persistent kernel whose clusters wait on each other's blocks may launch.
// grid is a launch's block count (a multiple of the cluster size).
func (f *Function) MaxActiveClusters(grid int, block [3]int, sharedBytes int) (int, error) {
	if C.tilec_find_max_clusters() != 0 {
		return 0, errors.New("cudadrv: the driver has no cuOccupancyMaxActiveClusters (CUDA 12.0 or later is needed)")
	}
	var n C.int
	err := f.mod.dev.do(func() error {
		return check("cuOccupancyMaxActiveClusters", C.tilec_max_active_clusters(&n, f.fn, C.uint(grid),
			C.uint(block[0]), C.uint(block[1]), C.uint(block[2]), C.uint(sharedBytes)))
	})
	return int(n), err
}
