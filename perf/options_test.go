package perf

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNewParamsDefaultsAreDaprs(t *testing.T) {
	p, err := NewParams()
	require.NoError(t, err)
	assert.Equal(t, 1, p.QPS)
	assert.Equal(t, 1, p.Connections)
	assert.Equal(t, time.Minute, p.Duration)
	assert.Equal(t, 0, p.PayloadBytes)
	assert.Equal(t, []float64{50, 75, 90, 99, 99.9}, p.Percentiles)
}

func TestValidateNamesEveryBadField(t *testing.T) {
	p := DefaultParams()
	p.QPS = 0
	p.Connections = -1
	p.Duration = time.Millisecond
	p.PayloadBytes = -3
	p.Percentiles = []float64{50, 100}
	p.Protocol = "udp"
	err := p.Validate()
	require.Error(t, err)
	for _, field := range []string{"qps", "connections", "duration", "payloadBytes", "percentiles = 100", "protocol"} {
		assert.Contains(t, err.Error(), field)
	}
}

func TestValidateTargets(t *testing.T) {
	for _, tc := range []struct {
		proto  Protocol
		target string
		ok     bool
	}{
		{HTTP, "http://127.0.0.1:3500/v1.0/invoke/app/method/test", true},
		{HTTP, "127.0.0.1:3500", false},
		{HTTP, "ftp://x/y", false},
		{GRPC, "127.0.0.1:50001", true},
		{GRPC, "http://127.0.0.1:50001", false},
		{GRPC, "localhost", false},
	} {
		p := DefaultParams()
		p.Protocol, p.Target = tc.proto, tc.target
		err := p.Validate()
		if tc.ok {
			assert.NoError(t, err, tc.target)
		} else if assert.Error(t, err, tc.target) {
			assert.Contains(t, err.Error(), "target")
		}
	}
}
