package discover

import (
	"time"

	"github.com/seedengine/seedengine/internal/benchmem"
)

// processCPUTime is the CPU time the process has used (0 where the system
// does not tell it). Benchmarks report it per operation beside wall time,
// because on a shared machine wall time also counts the time other
// processes held the core.
func processCPUTime() time.Duration { return benchmem.CPUTime() }
