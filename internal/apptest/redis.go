package apptest

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// Redis is a redis-server of a test's own, on a loopback port, with its
// files in a temporary directory.
type Redis struct {
	// URL is its AUDIOBOOKSHELF_APPROVAL_STORE value.
	URL  string
	Addr string
	cmd  *exec.Cmd
	done chan struct{}
	bin  string
	args []string
}

// StartRedis starts a redis-server (or valkey-server) and stops it when the
// test ends. Without one installed the test is skipped, except in CI
// (CI set), where .ci/run installs it and its absence fails the test.
func StartRedis(t testing.TB) *Redis {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		bin, err = exec.LookPath("valkey-server")
	}
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("redis-server is not installed; .ci/run installs it (apt-get install redis-server)")
		}
		t.Skip("redis-server is not installed (apt-get install redis-server); CI installs it and runs this test")
	}
	dir := t.TempDir()
	var last string
	for range 5 {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		ln.Close()
		_, port, _ := net.SplitHostPort(addr)
		args := []string{"--port", port, "--bind", "127.0.0.1", "--dir", dir, "--save", "", "--appendonly", "no",
			"--daemonize", "no", "--logfile", "", "--databases", "2"}
		cmd := exec.Command(bin, args...)
		var out SyncBuffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatalf("starting %s: %v", bin, err)
		}
		r := &Redis{URL: "redis://" + addr + "/0", Addr: addr, cmd: cmd, done: make(chan struct{}), bin: bin, args: args}
		go func() { cmd.Wait(); close(r.done) }()
		deadline := time.Now().Add(10 * time.Second)
		for time.Now().Before(deadline) {
			if ping(addr) == nil {
				t.Cleanup(r.Stop)
				return r
			}
			select {
			case <-r.done:
				deadline = time.Time{} // exited: the port was taken; try another
			case <-time.After(50 * time.Millisecond):
			}
		}
		r.Stop()
		last = out.String()
	}
	t.Fatalf("redis-server did not start: %s", last)
	return nil
}

// Stop ends the server (it can no longer be reached).
func (r *Redis) Stop() {
	select {
	case <-r.done:
		return
	default:
	}
	r.cmd.Process.Kill()
	<-r.done
}

// RestartEmpty stops the server and starts it again on the same port with
// nothing in it, as a Redis without persistence comes back from a restart.
func (r *Redis) RestartEmpty(t testing.TB) {
	t.Helper()
	r.Stop()
	cmd := exec.Command(r.bin, r.args...)
	var out SyncBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatalf("restarting %s: %v", r.bin, err)
	}
	r.cmd, r.done = cmd, make(chan struct{})
	done := r.done
	go func() { cmd.Wait(); close(done) }()
	deadline := time.Now().Add(10 * time.Second)
	for ping(r.Addr) != nil {
		select {
		case <-done:
			t.Fatalf("redis-server did not restart: %s", out.String())
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("redis-server did not answer within 10s of its restart: %s", out.String())
		}
	}
	if n := r.Keys(t); n != 0 {
		t.Fatalf("restarted with %d keys, want none", n)
	}
}

// Keys counts the keys in database 0.
func (r *Redis) Keys(t testing.TB) int {
	t.Helper()
	c, err := net.DialTimeout("tcp", r.Addr, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(2 * time.Second))
	fmt.Fprint(c, "DBSIZE\r\n")
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, ":") {
		t.Fatalf("DBSIZE: %q %v", line, err)
	}
	var n int
	fmt.Sscanf(line, ":%d", &n)
	return n
}

func ping(addr string) error {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(time.Second))
	fmt.Fprint(c, "PING\r\n")
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return err
	}
	if !strings.HasPrefix(line, "+PONG") {
		return fmt.Errorf("PING: %q", line)
	}
	return nil
}
