package secondsjson_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/daprperf/daprperf/perf/secondsjson"
)

type load struct {
	Name     string        `json:"name"`
	Duration time.Duration `json:"duration"`
	Grace    time.Duration `json:"grace,omitempty"`
	Timeout  time.Duration // no tag: the Go name
	Count    int           `json:"count"`
}

type plainLoad load

func (l load) MarshalJSON() ([]byte, error)  { return secondsjson.Marshal(plainLoad(l)) }
func (l *load) UnmarshalJSON(b []byte) error { return secondsjson.Unmarshal(b, (*plainLoad)(l)) }

func TestDurationsAreWrittenInSecondsInTheirPlace(t *testing.T) {
	l := load{Name: "a", Duration: 90 * time.Second, Timeout: 1500 * time.Microsecond, Count: 3}
	b, err := json.Marshal(l)
	require.NoError(t, err)
	assert.Equal(t, `{"name":"a","durationSeconds":90,"TimeoutSeconds":0.0015,"count":3}`, string(b), "omitempty still omits, the order kept")
	var back load
	require.NoError(t, json.Unmarshal(b, &back))
	assert.Equal(t, l, back)

	odd := load{Duration: 123456789012345 * time.Nanosecond, Grace: time.Nanosecond}
	b, err = json.Marshal([]load{odd})
	require.NoError(t, err)
	var many []load
	require.NoError(t, json.Unmarshal(b, &many))
	assert.Equal(t, []load{odd}, many, "nanoseconds survive the round trip")
}

func TestFilesWrittenBeforeReadInNanoseconds(t *testing.T) {
	var l load
	require.NoError(t, json.Unmarshal([]byte(`{"name":"old","duration":60000000000,"count":1}`), &l))
	assert.Equal(t, load{Name: "old", Duration: time.Minute, Count: 1}, l)

	var p *load
	require.NoError(t, json.Unmarshal([]byte(`null`), &p))
	assert.Nil(t, p)
}

func TestBadSecondsNameTheField(t *testing.T) {
	var l load
	err := json.Unmarshal([]byte(`{"durationSeconds":"ten"}`), &l)
	assert.ErrorContains(t, err, "durationSeconds")
	err = json.Unmarshal([]byte(`{"durationSeconds":1e12}`), &l)
	assert.ErrorContains(t, err, "durationSeconds = 1e+12: outside a time.Duration's ±292 years")
}

type outer struct {
	load
	Loads []load          `json:"loads"`
	ByKey map[string]load `json:"byKey"`
	When  time.Time       `json:"when"`
	Inner *load           `json:"inner,omitempty"`
}

func TestUnknownFieldLooksPastUnmarshalJSON(t *testing.T) {
	ty := reflect.TypeFor[outer]()
	for body, want := range map[string]string{
		`{"name":"a","durationSeconds":1,"duration":5,"Count":2}`:                               "",
		`{"loads":[{"name":"a"},{"grace":3,"timeoutseconds":1}],"when":"2026-01-01T00:00:00Z"}`: "",
		`{"qpss":5}`: "qpss",
		`{"loads":[{"name":"a"},{"graceSecs":1}]}`: "loads[1].graceSecs",
		`{"byKey":{"x":{"nme":"a"}}}`:              "byKey.x.nme",
		`{"inner":{"count":1,"extra":true}}`:       "inner.extra",
		`not json`:                                 "",
	} {
		assert.Equal(t, want, secondsjson.UnknownField([]byte(body), ty), body)
	}
	var o outer
	dec := json.NewDecoder(strings.NewReader(`{"inner":{"extra":true}}`))
	dec.DisallowUnknownFields()
	require.NoError(t, dec.Decode(&o), "what UnknownField is for: the decoder does not see past UnmarshalJSON")
}
