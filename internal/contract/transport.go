package contract

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httputil"
	"net/url"
	"runtime"
	"sync"
)

// MaxBody bounds what the validating transport reads of one body.
const MaxBody = 64 << 20

// Transport is a RoundTripper that sends through base (nil: the default
// transport), validates every exchange against the spec and hands the
// verdict to report before the caller sees the answer, which is passed on
// unchanged. basePath is cut off the request path before matching.
func (s *Spec) Transport(base http.RoundTripper, basePath string, report func(Result)) http.RoundTripper {
	if base == nil {
		base = http.DefaultTransport
	}
	return &validating{spec: s, base: base, basePath: basePath, report: report}
}

// DeferredTransport is Transport with the validation taken off the calls:
// each exchange is kept, the caller gets the answer at once, and flush
// validates everything kept so far and reports each verdict. A test calls
// flush in its Cleanup, so that validating a large answer on a busy machine
// never competes with the calls under test or pushes one past its timeout.
func (s *Spec) DeferredTransport(base http.RoundTripper, basePath string, report func(Result)) (rt http.RoundTripper, flush func()) {
	if base == nil {
		base = http.DefaultTransport
	}
	v := &validating{spec: s, base: base, basePath: basePath, report: report, deferred: &pending{}}
	return v, v.deferred.run
}

// pending holds the validations a DeferredTransport has yet to run.
type pending struct {
	mu   sync.Mutex
	jobs []func()
}

func (p *pending) add(f func()) {
	p.mu.Lock()
	p.jobs = append(p.jobs, f)
	p.mu.Unlock()
}

func (p *pending) run() {
	for {
		p.mu.Lock()
		jobs := p.jobs
		p.jobs = nil
		p.mu.Unlock()
		if len(jobs) == 0 {
			return
		}
		// Nothing else runs now: use every processor.
		next := make(chan func())
		var wg sync.WaitGroup
		for range min(runtime.GOMAXPROCS(0), len(jobs)) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for f := range next {
					f()
				}
			}()
		}
		for _, f := range jobs {
			next <- f
		}
		close(next)
		wg.Wait()
	}
}

type validating struct {
	spec     *Spec
	base     http.RoundTripper
	basePath string
	report   func(Result)
	deferred *pending // nil: validate before answering
}

func (v *validating) RoundTrip(req *http.Request) (*http.Response, error) {
	var reqBody []byte
	if req.Body != nil && req.Body != http.NoBody {
		b, err := io.ReadAll(io.LimitReader(req.Body, MaxBody))
		req.Body.Close()
		if err != nil {
			return nil, err
		}
		reqBody = b
		req = req.Clone(req.Context())
		req.Body = io.NopCloser(bytes.NewReader(b))
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil }
	}
	resp, err := v.base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	// One buffer of the announced size: no copies while it grows.
	buf := bytes.NewBuffer(make([]byte, 0, max(0, min(resp.ContentLength, MaxBody))+bytes.MinRead))
	_, err = buf.ReadFrom(io.LimitReader(resp.Body, MaxBody+1))
	body := buf.Bytes()
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	status, header := resp.StatusCode, resp.Header.Clone()
	judge := func() {
		if len(body) > MaxBody {
			v.report(Result{Method: req.Method, Path: req.URL.Path, Status: status, Err: fmt.Errorf("answer over %d bytes, not validated", MaxBody)})
			return
		}
		v.report(v.spec.Check(req, v.basePath, reqBody, status, header, body))
	}
	if v.deferred != nil {
		v.deferred.add(judge)
	} else {
		judge()
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	resp.ContentLength = int64(len(body))
	return resp, nil
}

// Proxy is a reverse proxy to target (an Audiobookshelf base URL, with any
// base path) that validates every exchange it forwards and hands the
// verdict to report. A client pointed at the proxy's root reaches target.
func (s *Spec) Proxy(target *url.URL, report func(Result)) http.Handler {
	p := httputil.NewSingleHostReverseProxy(target)
	p.Transport = s.Transport(http.DefaultTransport, target.Path, report)
	return p
}
