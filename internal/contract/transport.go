package contract

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httputil"
	"net/url"
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

// AsyncTransport is Transport with the validation taken off the request's
// path: the caller gets the answer at once and each exchange is validated
// in the background, so a large answer validated on a busy machine cannot
// push a call past its timeout. wait blocks until every verdict has been
// reported; call it before the verdicts are looked at (a test's Cleanup).
func (s *Spec) AsyncTransport(base http.RoundTripper, basePath string, report func(Result)) (rt http.RoundTripper, wait func()) {
	if base == nil {
		base = http.DefaultTransport
	}
	v := &validating{spec: s, base: base, basePath: basePath, report: report, async: &sync.WaitGroup{}}
	return v, v.async.Wait
}

type validating struct {
	spec     *Spec
	base     http.RoundTripper
	basePath string
	report   func(Result)
	async    *sync.WaitGroup // nil: validate before answering
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
	body, err := io.ReadAll(io.LimitReader(resp.Body, MaxBody+1))
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
	if v.async != nil {
		v.async.Add(1)
		go func() {
			defer v.async.Done()
			judge()
		}()
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
