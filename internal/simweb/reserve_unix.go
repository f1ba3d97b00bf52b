//go:build unix

package simweb

import (
	"fmt"
	"syscall"
)

// reserveClosedPort binds a TCP socket on 127.0.0.1 without listening on
// it. Connections to its port are refused by the kernel (RST), and the port
// stays ours, so no other program can start listening there during a test.
func reserveClosedPort() (int, func() error, error) {
	syscall.ForkLock.RLock()
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
	if err == nil {
		syscall.CloseOnExec(fd)
	}
	syscall.ForkLock.RUnlock()
	if err != nil {
		return 0, nil, fmt.Errorf("socket: %w", err)
	}
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		syscall.Close(fd)
		return 0, nil, fmt.Errorf("bind: %w", err)
	}
	sa, err := syscall.Getsockname(fd)
	if err != nil {
		syscall.Close(fd)
		return 0, nil, fmt.Errorf("getsockname: %w", err)
	}
	in4, ok := sa.(*syscall.SockaddrInet4)
	if !ok {
		syscall.Close(fd)
		return 0, nil, fmt.Errorf("getsockname: unexpected %T", sa)
	}
	return in4.Port, func() error { return syscall.Close(fd) }, nil
}
