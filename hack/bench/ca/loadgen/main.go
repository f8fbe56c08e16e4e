// ca-loadgen: the callers of `npm run bench:ca`, written with grpc-go (the gRPC implementation Istio's
// agents use) so the load generator takes little of the 2 cores it shares with the server it measures.
//
// Reads a job (JSON) on stdin: the server's address, TLS name and roots, and per caller a token and a
// pre-encoded MeshCertificateRequest. Each caller has its own connection and makes one call at a time.
// Protocol with the bench on stdin/stdout, one line each:
//
//	-> {"address":...}                    the job
//	<- ready                              connections are up and warmed
//	-> {"kind":"back-to-back","seconds":10}  or {"kind":"fixed-rate","seconds":10,"rate":1500}
//	<- {"latenciesMs":[...],...}          the phase's result; repeat, or close stdin to stop
package main

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sync"
	"syscall"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/encoding"
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/encoding/protowire"
)

// method is meshd's by default; a job may name another service with the same messages (istiod's
// /istio.v1.auth.IstioCertificateService/CreateCertificate, for the reference run).
var method = "/mesh.v1.auth.MeshCertificateService/CreateCertificate"

type job struct {
	Address       string   `json:"address"`
	ServerName    string   `json:"serverName"`
	RootCertPem   string   `json:"rootCertPem"`
	Method        string   `json:"method,omitempty"`
	WarmupSeconds float64  `json:"warmupSeconds"`
	Callers       []caller `json:"callers"`
}

type caller struct {
	Token string `json:"token"`
	// Request is the protobuf-encoded MeshCertificateRequest, base64.
	Request string `json:"request"`
}

type phase struct {
	Kind    string  `json:"kind"`
	Seconds float64 `json:"seconds"`
	Rate    float64 `json:"rate"`
}

type result struct {
	LatenciesMs    []float64 `json:"latenciesMs"`
	Errors         int       `json:"errors"`
	FirstError     string    `json:"firstError,omitempty"`
	ElapsedSeconds float64   `json:"elapsedSeconds"`
	CPUSeconds     float64   `json:"cpuSeconds"`
}

// rawCodec sends and receives message bytes as they are: requests are encoded by the bench.
type rawCodec struct{}

func (rawCodec) Marshal(v any) ([]byte, error) { return *(v.(*[]byte)), nil }
func (rawCodec) Unmarshal(data []byte, v any) error {
	*(v.(*[]byte)) = append([]byte(nil), data...)
	return nil
}
func (rawCodec) Name() string { return "proto" }

var _ encoding.Codec = rawCodec{}

type conn struct {
	cc      *grpc.ClientConn
	ctx     context.Context
	request []byte
}

// certChainLength counts field 1 (cert_chain) of a MeshCertificateResponse.
func certChainLength(b []byte) (int, error) {
	n := 0
	for len(b) > 0 {
		num, typ, l := protowire.ConsumeTag(b)
		if l < 0 {
			return 0, protowire.ParseError(l)
		}
		b = b[l:]
		m := protowire.ConsumeFieldValue(num, typ, b)
		if m < 0 {
			return 0, protowire.ParseError(m)
		}
		if num == 1 && typ == protowire.BytesType {
			n++
		}
		b = b[m:]
	}
	return n, nil
}

func (c *conn) call() error {
	ctx, cancel := context.WithTimeout(c.ctx, 10*time.Second)
	defer cancel()
	var response []byte
	if err := c.cc.Invoke(ctx, method, &c.request, &response, grpc.ForceCodec(rawCodec{})); err != nil {
		return err
	}
	n, err := certChainLength(response)
	if err != nil {
		return fmt.Errorf("response: %w", err)
	}
	if n < 2 {
		return fmt.Errorf("response: expected leaf..root, got %d certificate(s)", n)
	}
	return nil
}

type recorder struct {
	mu         sync.Mutex
	latencies  []float64
	errors     int
	firstError string
}

func (r *recorder) time(c *conn, from time.Time) {
	err := c.call()
	elapsed := float64(time.Since(from).Microseconds()) / 1000
	r.mu.Lock()
	defer r.mu.Unlock()
	if err != nil {
		r.errors++
		if r.firstError == "" {
			r.firstError = err.Error()
		}
		return
	}
	r.latencies = append(r.latencies, elapsed)
}

func cpuSeconds() float64 {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

func run(conns []*conn, p phase) (result, error) {
	r := &recorder{}
	cpu0 := cpuSeconds()
	start := time.Now()
	var wg sync.WaitGroup
	switch p.Kind {
	case "back-to-back":
		end := start.Add(time.Duration(p.Seconds * float64(time.Second)))
		for _, c := range conns {
			wg.Add(1)
			go func(c *conn) {
				defer wg.Done()
				for time.Now().Before(end) {
					r.time(c, time.Now())
				}
			}(c)
		}
	case "fixed-rate":
		if p.Rate <= 0 {
			return result{}, errors.New("fixed-rate: rate must be positive")
		}
		interval := time.Duration(float64(time.Second) * float64(len(conns)) / p.Rate)
		slots := int(p.Rate * p.Seconds / float64(len(conns)))
		for i, c := range conns {
			wg.Add(1)
			go func(i int, c *conn) {
				defer wg.Done()
				first := start.Add(time.Duration(float64(i) * float64(time.Second) / p.Rate))
				for k := 0; k < slots; k++ {
					scheduled := first.Add(time.Duration(k) * interval)
					time.Sleep(time.Until(scheduled))
					r.time(c, scheduled) // a late server is charged from the scheduled time
				}
			}(i, c)
		}
	default:
		return result{}, fmt.Errorf("unknown phase kind %q (back-to-back, fixed-rate)", p.Kind)
	}
	wg.Wait()
	latencies := r.latencies
	if latencies == nil {
		latencies = []float64{}
	}
	return result{LatenciesMs: latencies, Errors: r.errors, FirstError: r.firstError, ElapsedSeconds: time.Since(start).Seconds(), CPUSeconds: cpuSeconds() - cpu0}, nil
}

func dial(j job) ([]*conn, error) {
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM([]byte(j.RootCertPem)) {
		return nil, errors.New("rootCertPem: no PEM certificate")
	}
	creds := credentials.NewTLS(&tls.Config{RootCAs: roots, ServerName: j.ServerName, MinVersion: tls.VersionTLS12})
	conns := make([]*conn, 0, len(j.Callers))
	for i, c := range j.Callers {
		request, err := base64.StdEncoding.DecodeString(c.Request)
		if err != nil {
			return nil, fmt.Errorf("callers[%d].request: %w", i, err)
		}
		cc, err := grpc.NewClient(j.Address, grpc.WithTransportCredentials(creds))
		if err != nil {
			return nil, fmt.Errorf("callers[%d]: %w", i, err)
		}
		ctx := metadata.AppendToOutgoingContext(context.Background(), "authorization", "Bearer "+c.Token)
		conns = append(conns, &conn{cc: cc, ctx: ctx, request: request})
	}
	return conns, nil
}

func main() {
	if err := serve(); err != nil {
		fmt.Fprintf(os.Stderr, "ca-loadgen: %v\n", err)
		os.Exit(1)
	}
}

func serve() error {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 64<<20)
	out := json.NewEncoder(os.Stdout)
	if !in.Scan() {
		return errors.New("stdin: expected the job")
	}
	var j job
	if err := json.Unmarshal(in.Bytes(), &j); err != nil {
		return fmt.Errorf("job: %w", err)
	}
	if len(j.Callers) == 0 {
		return errors.New("job: no callers")
	}
	if j.Method != "" {
		method = j.Method
	}
	conns, err := dial(j)
	if err != nil {
		return err
	}
	defer func() {
		for _, c := range conns {
			_ = c.cc.Close()
		}
	}()
	warm, err := run(conns, phase{Kind: "back-to-back", Seconds: j.WarmupSeconds})
	if err != nil {
		return err
	}
	if warm.Errors > 0 && len(warm.LatenciesMs) == 0 {
		return fmt.Errorf("warm-up: every call failed (first: %s)", warm.FirstError)
	}
	fmt.Println("ready")
	for in.Scan() {
		var p phase
		if err := json.Unmarshal(in.Bytes(), &p); err != nil {
			return fmt.Errorf("phase: %w", err)
		}
		res, err := run(conns, p)
		if err != nil {
			return err
		}
		if err := out.Encode(res); err != nil {
			return err
		}
	}
	return in.Err()
}
