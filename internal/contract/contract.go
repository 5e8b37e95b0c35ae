// Package contract holds Audiobookshelf answers to spec/audiobookshelf.yaml:
// it finds the operation of a request and validates the request and the
// answer against that operation's schemas with kin-openapi's openapi3filter.
// The e2e tests wrap the stand-in in it (Transport), so the stand-in cannot
// say what the spec does not allow, and the live contract run puts it in a
// recording reverse proxy (Proxy) in front of a real server.
package contract

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"
)

// SpecFile is the spec, relative to the repository root.
const SpecFile = "spec/audiobookshelf.yaml"

// Spec is the loaded spec with its router; safe for concurrent use.
type Spec struct {
	Doc    *openapi3.T
	router routers.Router
	// verdicts caches Check by a hash of everything it reads: the tests
	// send the same requests to the same sample library many times, and a
	// verdict cannot change while the spec does not.
	verdicts sync.Map // [32]byte → Result
}

// Express sends the sentence of res.status(code).send(text) as text/html;
// the spec lists it as a string, which openapi3filter decodes as plain text
// once told to.
var registerOnce sync.Once

// LoadFile loads and validates the spec at path.
func LoadFile(path string) (*Spec, error) {
	registerOnce.Do(func() { openapi3filter.RegisterBodyDecoder("text/html", openapi3filter.PlainBodyDecoder) })
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromFile(path)
	if err != nil {
		return nil, fmt.Errorf("contract: loading %s: %w", path, err)
	}
	// Match on the path alone: the base URL (and any ROUTER_BASE_PATH) is
	// the caller's to strip.
	doc.Servers = nil
	r, err := legacy.NewRouter(doc)
	if err != nil {
		return nil, fmt.Errorf("contract: %s: %w", path, err)
	}
	return &Spec{Doc: doc, router: r}, nil
}

var (
	loadOnce sync.Once
	loaded   *Spec
	loadErr  error
)

// Load loads spec/audiobookshelf.yaml of the repository the working
// directory is in, once per process.
func Load() (*Spec, error) {
	loadOnce.Do(func() {
		root, err := RepoRoot()
		if err != nil {
			loadErr = err
			return
		}
		loaded, loadErr = LoadFile(filepath.Join(root, SpecFile))
	})
	return loaded, loadErr
}

// RepoRoot walks up from the working directory to the directory holding
// go.mod and the spec.
func RepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, SpecFile)); err == nil {
			if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
				return dir, nil
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("contract: no %s above the working directory", SpecFile)
		}
		dir = parent
	}
}

// Result is the verdict on one request and its answer.
type Result struct {
	Method string
	Path   string // as sent, without the base path
	Status int
	// Operation is the operationId, "" when the spec has no route for the
	// request.
	Operation string
	// Err is nil when request and answer conform; otherwise it names the
	// first field that does not.
	Err error
}

func (r Result) String() string {
	op := r.Operation
	if op == "" {
		op = "(no operation)"
	}
	if r.Err == nil {
		return fmt.Sprintf("%s %s %s → %d: conforms", op, r.Method, r.Path, r.Status)
	}
	return fmt.Sprintf("%s %s %s → %d: %v", op, r.Method, r.Path, r.Status, r.Err)
}

// Check validates one exchange. req's URL path must start with basePath
// (the path of AUDIOBOOKSHELF_URL, "" at the root), which is cut off before
// the spec's routes are matched. reqBody and body are the whole bodies.
func (s *Spec) Check(req *http.Request, basePath string, reqBody []byte, status int, header http.Header, body []byte) Result {
	h := sha256.New()
	for _, part := range [][]byte{[]byte(req.Method), []byte(req.URL.Path), []byte(req.URL.RawQuery), []byte(basePath),
		[]byte(req.Header.Get("Content-Type")), reqBody, []byte(strconv.Itoa(status)), []byte(header.Get("Content-Type")), body} {
		var n [8]byte
		binary.LittleEndian.PutUint64(n[:], uint64(len(part)))
		h.Write(n[:])
		h.Write(part)
	}
	var key [32]byte
	h.Sum(key[:0])
	if r, ok := s.verdicts.Load(key); ok {
		return r.(Result)
	}
	r := s.check(req, basePath, reqBody, status, header, body)
	s.verdicts.Store(key, r)
	return r
}

func (s *Spec) check(req *http.Request, basePath string, reqBody []byte, status int, header http.Header, body []byte) Result {
	path := strings.TrimPrefix(req.URL.Path, strings.TrimRight(basePath, "/"))
	res := Result{Method: req.Method, Path: path, Status: status}
	// A copy of the request with the base path cut and its body restored.
	r2 := req.Clone(context.Background())
	u := *req.URL
	u.Path = path
	u.RawPath = ""
	r2.URL = &u
	r2.Body = io.NopCloser(bytes.NewReader(reqBody))
	route, params, err := s.router.FindRoute(r2)
	if err != nil {
		res.Err = fmt.Errorf("the spec has no route for %s %s (%v)", req.Method, path, err)
		return res
	}
	res.Operation = route.Operation.OperationID
	opts := &openapi3filter.Options{
		AuthenticationFunc:    openapi3filter.NoopAuthenticationFunc,
		IncludeResponseStatus: true,
	}
	in := &openapi3filter.RequestValidationInput{Request: r2, PathParams: params, Route: route, Options: opts}
	if err := openapi3filter.ValidateRequest(context.Background(), in); err != nil {
		res.Err = fmt.Errorf("request: %s", describe(err))
		return res
	}
	out := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: in,
		Status:                 status,
		Header:                 header,
		Options:                opts,
	}
	out.SetBodyBytes(body)
	if err := openapi3filter.ValidateResponse(context.Background(), out); err != nil {
		res.Err = fmt.Errorf("answer: %s", describe(err))
	}
	return res
}

// describe names the first field that does not conform and why.
func describe(err error) string {
	var se *openapi3.SchemaError
	if errors.As(err, &se) {
		ptr := "/" + strings.Join(se.JSONPointer(), "/")
		reason := se.Reason
		if reason == "" {
			reason = se.Error()
		}
		return fmt.Sprintf("field %s: %s", ptr, reason)
	}
	var re *openapi3filter.ResponseError
	if errors.As(err, &re) && re.Reason != "" {
		if re.Err != nil {
			return re.Reason + ": " + re.Err.Error()
		}
		return re.Reason
	}
	var rqe *openapi3filter.RequestError
	if errors.As(err, &rqe) {
		where := ""
		if rqe.Parameter != nil {
			where = "parameter " + rqe.Parameter.Name + ": "
		}
		if rqe.Err != nil {
			return where + describeInner(rqe.Err, rqe.Reason)
		}
		return where + rqe.Reason
	}
	return err.Error()
}

func describeInner(err error, reason string) string {
	var se *openapi3.SchemaError
	if errors.As(err, &se) {
		return fmt.Sprintf("field /%s: %s", strings.Join(se.JSONPointer(), "/"), se.Reason)
	}
	if reason != "" && !strings.Contains(err.Error(), reason) {
		return reason + ": " + err.Error()
	}
	return err.Error()
}
