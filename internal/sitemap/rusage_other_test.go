//go:build !unix

package sitemap

import (
	"os"
	"time"
)

func processCPUTime() time.Duration { return 0 }

func maxRSS(*os.ProcessState) int64 { return 0 }
