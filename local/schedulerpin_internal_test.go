package local

import "testing"

// The scheduler's go-etcd-cron pin of scripts/dapr-pins.sh, as the result's environment names it.
func TestSchedulerCronPin(t *testing.T) {
	for version, want := range map[string]string{"1.17.5": "v0.12.4", "1.17.0": "v0.12.4", "1.18.0": "v0.12.5", "1.18.1": "v0.12.5", "1.18.3": "", "1.16.5": ""} {
		if got := schedulerCronPin(version); got != want {
			t.Errorf("schedulerCronPin(%q) = %q, want %q", version, got, want)
		}
	}
}
