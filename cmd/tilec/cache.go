package main

// tilec cache: the disk cache of compiled kernels (kcache.Cache),
// which `tilec run --backend cuda` and `tilec compile --emit ptx` read and
// fill.

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/tilec/tilec/runtime/kcache"
	"github.com/tilec/tilec/runtime/tune"
)

const cacheUsage = `usage:
  tilec cache list    the entries: kernel, target, size, age, last use; and the tuned constants
  tilec cache clear   remove every entry and tuning result that tilec wrote
  tilec cache dir     print the cache's directory
The directory is $TILEC_CACHE_DIR, or tilec/kernels under the user cache
directory ($XDG_CACHE_HOME or ~/.cache); TILEC_CACHE=off turns the cache off.
tilec tune's results are in its subdirectory tuned/.
`

func cmdCache(args []string, stdout, stderr io.Writer) error {
	if len(args) == 1 && (args[0] == "help" || args[0] == "-h" || args[0] == "--help") {
		fmt.Fprint(stdout, cacheUsage)
		return nil
	}
	if len(args) != 1 {
		fmt.Fprint(stderr, cacheUsage)
		return usagef("cache takes one subcommand: list, clear or dir")
	}
	dir, err := kcache.Dir()
	if err != nil {
		return fmt.Errorf("tilec: %v", err)
	}
	c := &kcache.Cache{Dir: dir}
	off := ""
	if !kcache.Enabled() {
		off = " (off: TILEC_CACHE=off)"
	}
	switch args[0] {
	case "dir":
		fmt.Fprintln(stdout, dir)
		if off != "" {
			fmt.Fprintln(stderr, "tilec: the kernel cache is off: TILEC_CACHE=off")
		}
		return nil
	case "list":
		return cacheList(c, off, stdout)
	case "clear":
		n, bytes, foreign, err := c.Clear()
		if err != nil {
			return fmt.Errorf("tilec: cache clear: %v", err)
		}
		fmt.Fprintf(stdout, "removed %d %s (%s) from %s\n", n, plural(n, "entry", "entries"), shortBytes(bytes), dir)
		if len(foreign) > 0 {
			fmt.Fprintf(stderr, "tilec: cache clear: left %d .kernel %s whose header is not tilec's: %s\n",
				len(foreign), plural(len(foreign), "file", "files"), strings.Join(foreign, ", "))
		}
		tc := &tune.Cache{Dir: filepath.Join(dir, "tuned")}
		if n, err = tc.Clear(); err != nil {
			return fmt.Errorf("tilec: cache clear: %v", err)
		}
		if n > 0 {
			fmt.Fprintf(stdout, "removed %d tuning %s from %s\n", n, plural(n, "result", "results"), tc.Dir)
		}
		return nil
	}
	fmt.Fprint(stderr, cacheUsage)
	return usagef("cache: unknown subcommand %q (list, clear or dir)", args[0])
}

func cacheList(c *kcache.Cache, off string, stdout io.Writer) error {
	es, err := c.List()
	if err != nil {
		return fmt.Errorf("tilec: cache list: %v", err)
	}
	var total int64
	other := 0
	now := time.Now()
	if len(es) > 0 {
		w := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(w, "KERNEL\tTARGET\tSIZE\tAGE\tUSED\tKEY")
		for _, e := range es {
			total += e.Bytes
			kernel, target, age, note := e.Kernel, e.Target, "-", ""
			switch {
			case e.Err != nil:
				kernel, target, note = "?", "?", "unreadable: "+e.Err.Error()
			case !e.Current:
				note = "another tilec build"
				other++
			}
			if e.Variant != "" {
				target += " (2 variants)"
			}
			if !e.Created.IsZero() {
				age = shortAge(now.Sub(e.Created))
			}
			key := e.Key
			if len(key) > 12 {
				key = key[:12]
			}
			if note != "" {
				key += "  (" + note + ")"
			}
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\n", kernel, target, shortBytes(e.Bytes), age,
				shortAge(now.Sub(e.Used)), key)
		}
		w.Flush()
	}
	fmt.Fprintf(stdout, "%d %s, %s in %s%s\n", len(es), plural(len(es), "entry", "entries"), shortBytes(total), c.Dir, off)
	fmt.Fprintf(stdout, "this tilec: %s\n", kcache.BuildVersion())
	tc := &tune.Cache{Dir: filepath.Join(c.Dir, "tuned")}
	tuned, err := tc.List()
	if err != nil {
		return fmt.Errorf("tilec: cache list: %v", err)
	}
	if len(tuned) > 0 {
		fmt.Fprintf(stdout, "\ntuned constants (tilec tune) in %s:\n", tc.Dir)
		w := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(w, "KERNEL\tDEVICE\tTARGET\tSHAPES\tCONSTANTS\tSPEED-UP\tAGE")
		for _, e := range tuned {
			up := "-"
			if e.MS > 0 && e.DefaultMS > 0 {
				up = fmt.Sprintf("%.2fx", e.DefaultMS/e.MS)
			}
			if !e.Current {
				up += "  (another tilec build)"
			}
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", e.Kernel, e.Device, e.Target, e.ShapeClass, e.ConstsString(), up,
				shortAge(now.Sub(e.Created)))
		}
		w.Flush()
	}
	if other > 0 {
		fmt.Fprintf(stdout, "%d from other builds of tilec: never read, trimmed in time or by `tilec cache clear`\n", other)
	}
	return nil
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// shortBytes is a size for a table column: 512 B, 12.5 KiB, 3.0 MiB.
func shortBytes(n int64) string {
	if n < 1024 {
		return fmt.Sprintf("%d B", n)
	}
	x := float64(n) / 1024
	for _, u := range []string{"KiB", "MiB", "GiB"} {
		if x < 1024 || u == "GiB" {
			return fmt.Sprintf("%.1f %s", x, u)
		}
		x /= 1024
	}
	panic("unreachable")
}

// shortAge is a duration for a table column: 5s, 12m, 3h, 4d.
func shortAge(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", max(0, int(d/time.Second)))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d/time.Minute))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", int(d/time.Hour))
	}
	return fmt.Sprintf("%dd", int(d/(24*time.Hour)))
}
