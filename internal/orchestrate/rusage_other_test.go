//go:build !unix

package orchestrate_test

import "os"

func maxRSS(*os.ProcessState) int64 { return 0 }

func offHeap(n int) ([]byte, func()) { return make([]byte, n), func() {} }
