//go:build !unix

package simweb

import "net"

// reserveClosedPort finds a free port by listening and closing at once.
// Without the bind-only socket of the unix version another program could
// take the port later; good enough where simweb is not used in CI.
func reserveClosedPort() (int, func() error, error) {
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		return 0, nil, err
	}
	p := ln.Addr().(*net.TCPAddr).Port
	if err := ln.Close(); err != nil {
		return 0, nil, err
	}
	return p, func() error { return nil }, nil
}
