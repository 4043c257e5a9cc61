package calibrate

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/daprperf/daprperf/perf"
)

// Stored is a calibration's rounds, kept so that its table and its test can be redone without
// the result files they came from: every A/B run's pairs of every figure (RunsOf), and the
// machine they ran on. A calibration holds the runs of one machine.
type Stored struct {
	// Machine is the runs' machine (perf.Environment.Fingerprint).
	Machine perf.MachineFingerprint `json:"machine"`
	// Figures are each figure's runs, by report.ABFigures' names: A/A runs (InjectedDelay 0)
	// and slowed ones alike, in the order they were added.
	Figures map[string][]Run `json:"figures"`
}

// Add adds the A/B run rep's rounds of every figure. It is an error when rep is no A/B run,
// or ran on another machine than the runs already held (the fingerprints are named).
func (s *Stored) Add(rep *perf.Report) error {
	fp := rep.Environment.Fingerprint()
	if s.Machine.Hash != "" && fp.Hash != s.Machine.Hash {
		return fmt.Errorf("calibrate: run %s ran on machine %s (%s, %d CPUs), not on %s (%s, %d CPUs) as the runs before it: a calibration holds one machine's runs",
			rep.RunID, fp.Hash, fp.CPUModel, fp.CPUs, s.Machine.Hash, s.Machine.CPUModel, s.Machine.CPUs)
	}
	byFigure, err := RunsOf(rep)
	if err != nil {
		return err
	}
	s.Machine = fp
	if s.Figures == nil {
		s.Figures = map[string][]Run{}
	}
	for fig, r := range byFigure {
		s.Figures[fig] = append(s.Figures[fig], r)
	}
	return nil
}

// Has says whether s holds a run of that id.
func (s Stored) Has(id string) bool {
	for _, runs := range s.Figures {
		for _, r := range runs {
			if r.ID == id {
				return true
			}
		}
	}
	return false
}

// AA returns figure's same-build runs (InjectedDelay 0).
func (s Stored) AA(figure string) []Run {
	var out []Run
	for _, r := range s.Figures[figure] {
		if r.InjectedDelay == 0 {
			out = append(out, r)
		}
	}
	return out
}

// WriteStored writes s to path as indented JSON, through a temporary file renamed into place so
// that a reader never meets half a file; the folder is made when missing.
func WriteStored(path string, s Stored) error {
	b, err := json.MarshalIndent(s, "", " ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o644); err != nil { // CreateTemp's 0600 would keep a committed file private
		tmp.Close()
		return err
	}
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// ReadStored reads a calibration written by WriteStored. It is an error when the file cannot be
// read, is not JSON of that shape, or holds no figure.
func ReadStored(path string) (Stored, error) {
	var s Stored
	b, err := os.ReadFile(path)
	if err != nil {
		return s, err
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return s, fmt.Errorf("calibrate: %s: %w", path, err)
	}
	if len(s.Figures) == 0 {
		return s, fmt.Errorf("calibrate: %s holds no figure", path)
	}
	return s, nil
}
