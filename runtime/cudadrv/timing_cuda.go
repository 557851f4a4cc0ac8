//go:build cuda

package cudadrv

import (
	"context"
	"errors"
	"fmt"
	"time"

	"gorgonia.org/cu"
)

// Event is a CUDA event on the default stream: a point in the device's work
// queue whose completion time can be compared with another's. GPU-side
// timing excludes host launch overhead and needs no synchronisation between
// launches.
type Event struct {
	d  *Device
	ev cu.Event
}

// NewEvent creates an event with timing enabled.
func (d *Device) NewEvent() (*Event, error) {
	e := &Event{d: d}
	err := d.do(func() error {
		var err error
		e.ev, err = cu.MakeEvent(cu.DefaultEvent)
		return wrap("cuEventCreate", err)
	})
	if err != nil {
		return nil, err
	}
	return e, nil
}

// Record enqueues the event on the default stream.
func (e *Event) Record() error {
	return e.d.do(func() error { return wrap("cuEventRecord", e.ev.Record(cu.NoStream)) })
}

// Elapsed waits for end and returns the milliseconds between e and end
// (resolution about half a microsecond).
func (e *Event) Elapsed(end *Event) (float64, error) {
	var ms float64
	err := e.d.do(func() error {
		if err := end.ev.Synchronize(); err != nil {
			return wrap("cuEventSynchronize", err)
		}
		var err error
		ms, err = e.ev.Elapsed(end.ev)
		return wrap("cuEventElapsedTime", err)
	})
	return ms, err
}

// Done reports whether the device has finished the work enqueued before
// the event (cuEventQuery), without waiting.
func (e *Event) Done() (bool, error) {
	done := false
	err := e.d.do(func() error {
		switch err := e.ev.Query(); {
		case err == nil:
			done = true
			return nil
		case err == error(cu.NotReady):
			return nil
		default:
			return wrap("cuEventQuery", err)
		}
	})
	return done, err
}

// WaitContext waits until the event has completed or ctx is done, polling
// (every 20 microseconds at first, backing off to 2 ms): unlike Synchronize
// it can give up on a kernel that never finishes. It returns ctx's error
// when ctx ended first; the work is then still on the device.
func (e *Event) WaitContext(ctx context.Context) error {
	pause := 20 * time.Microsecond
	for {
		done, err := e.Done()
		if err != nil || done {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(pause):
		}
		pause = min(2*pause, 2*time.Millisecond)
	}
}

// Destroy releases the event.
func (e *Event) Destroy() error {
	return e.d.do(func() error { return wrap("cuEventDestroy", cu.DestroyEvent(&e.ev)) })
}

// TimeLaunches runs fn warmup times untimed, then iters times, each between
// two events, and returns the milliseconds of each timed run. fn should only
// enqueue work (launches, Gemm); a run's time is the device time of what it
// enqueued plus any gaps the host leaves. Report Median of the result.
func (d *Device) TimeLaunches(fn func() error, warmup, iters int) ([]float64, error) {
	if iters <= 0 {
		return nil, fmt.Errorf("cudadrv: TimeLaunches: iters = %d", iters)
	}
	for i := range warmup {
		if err := fn(); err != nil {
			return nil, fmt.Errorf("warm-up run %d: %w", i, err)
		}
	}
	if err := d.Synchronize(); err != nil {
		return nil, fmt.Errorf("warm-up: %w", err)
	}
	evs := make([]*Event, 0, iters+1)
	defer func() {
		for _, e := range evs {
			e.Destroy()
		}
	}()
	for range iters + 1 {
		e, err := d.NewEvent()
		if err != nil {
			return nil, err
		}
		evs = append(evs, e)
	}
	// Consecutive runs share events: the end of run i is the start of run i+1.
	if err := evs[0].Record(); err != nil {
		return nil, err
	}
	for i := range iters {
		if err := fn(); err != nil {
			return nil, fmt.Errorf("timed run %d: %w", i, err)
		}
		if err := evs[i+1].Record(); err != nil {
			return nil, err
		}
	}
	ms := make([]float64, iters)
	var errs []error
	for i := range iters {
		var err error
		ms[i], err = evs[i].Elapsed(evs[i+1])
		errs = append(errs, err)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return ms, nil
}
