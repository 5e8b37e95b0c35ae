package bench

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"time"
)

// ProtocolVersion is the revision the start-up handshake asks for.
const ProtocolVersion = "2025-11-25"

// Handshake is one measured start-up over stdio.
type Handshake struct {
	// Elapsed runs from just before exec to the last byte of the
	// tools/list answer.
	Elapsed time.Duration
	// ToolsList is the tools/list answer line as sent (without the newline).
	ToolsList []byte
	// Stderr is what the process wrote to stderr.
	Stderr string
}

// StartUp execs bin with args and env, answers nothing but the handshake —
// initialize, notifications/initialized, tools/list — and measures until the
// tools/list answer. The process is stopped by closing its stdin.
func StartUp(bin string, args, env []string) (*Handshake, error) {
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	r := bufio.NewReaderSize(stdout, 1<<16)
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	stop := func() {
		stdin.Close()
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	}
	init := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":%q,"capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`+"\n", ProtocolVersion)
	if _, err := io.WriteString(stdin, init); err != nil {
		stop()
		return nil, err
	}
	if _, err := readAnswer(r, 1); err != nil {
		stop()
		return nil, fmt.Errorf("initialize: %w (stderr: %s)", err, stderr.String())
	}
	if _, err := io.WriteString(stdin, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"+
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`+"\n"); err != nil {
		stop()
		return nil, err
	}
	line, err := readAnswer(r, 2)
	elapsed := time.Since(start)
	stop()
	if err != nil {
		return nil, fmt.Errorf("tools/list: %w (stderr: %s)", err, stderr.String())
	}
	return &Handshake{Elapsed: elapsed, ToolsList: line, Stderr: stderr.String()}, nil
}

// readAnswer reads lines until the answer to request id, skipping
// notifications; an error answer is an error.
func readAnswer(r *bufio.Reader, id int) ([]byte, error) {
	for {
		line, err := r.ReadBytes('\n')
		if err != nil {
			return nil, err
		}
		line = bytes.TrimRight(line, "\r\n")
		var m struct {
			ID    *int            `json:"id"`
			Error json.RawMessage `json:"error"`
		}
		if err := json.Unmarshal(line, &m); err != nil {
			return nil, fmt.Errorf("not JSON-RPC: %q", line)
		}
		if m.ID == nil || *m.ID != id {
			continue
		}
		if m.Error != nil {
			return nil, fmt.Errorf("error answer: %s", m.Error)
		}
		return line, nil
	}
}

// ToolSize is one tool definition as tools/list sends it.
type ToolSize struct {
	Name  string
	Bytes int
}

// ToolSizes splits a tools/list answer into its tool definitions.
func ToolSizes(answer []byte) ([]ToolSize, error) {
	var m struct {
		Result struct {
			Tools []json.RawMessage `json:"tools"`
		} `json:"result"`
	}
	if err := json.Unmarshal(answer, &m); err != nil {
		return nil, err
	}
	out := make([]ToolSize, 0, len(m.Result.Tools))
	for _, t := range m.Result.Tools {
		var n struct {
			Name string `json:"name"`
		}
		if err := json.Unmarshal(t, &n); err != nil {
			return nil, err
		}
		out = append(out, ToolSize{Name: n.Name, Bytes: len(t)})
	}
	return out, nil
}
