package plan

import (
	"fmt"

	"github.com/daprperf/daprperf/perf"
)

// maxSearchSteps bounds one search's loads: doubling from 250 to perf.MaxQPS (12 rates),
// halving the bracket to 2 % (6 more) and judging its ends again, two or three loads a rate,
// take fewer; a search that follows a machine slowing under it can reach it (the answer is then
// the bracket it had).
const maxSearchSteps = 60

// searchVotes is how many loads may judge one rate of a search: a rate passes when most of
// them keep the bound, so the loads stop once that is settled (two alike, or the third). On a
// small machine one load's p99 can be a stall's (a collection, another process), not the
// rate's; a majority of three turns a per-load chance p of a wrong verdict into 3p² − 2p³
// (0.1 becomes 0.028).
const searchVotes = 3

// rateSearch is one search for the highest rate that passes, as a sequence of loads: next
// names the rate of the next load, record takes its outcome. From start it doubles while a rate
// passes (up to top), then halves the bracket between the highest rate that passed and the
// lowest that failed until hi − lo <= resolution × lo. Each visit to a rate judges it by the
// majority of up to searchVotes loads.
//
// Near the knee a rate passes or fails by chance, and one lucky verdict sends a plain bisection
// into a bracket it never leaves: a rate that passed two of three loads where most loads fail
// puts every later rate above the knee. So before it ends, the search judges each end of its
// bracket a second time (a search in which no rate failed has no bracket to judge), and a rate
// judged twice takes the majority of all its loads (a tie fails). An end that does not hold is
// moved: a lower end that now fails becomes the upper one, and the highest rate below it that
// passed the lower (the halving goes on from there); an upper end that now passes becomes the
// lower one. This is noisy binary search with backtracking, as in Feige, Raghavan, Peleg and
// Upfal ("Computing with noisy information", SIAM J. Comput. 1994), in its simplest form: only
// the last bracket's ends are checked.
//
// It is a value that waits for its loads, so several searches can take turns on one machine
// (interleavedSearches).
type rateSearch struct {
	start, top     int
	resolution     float64
	q              int // the rate being judged
	passed, failed int // this visit's loads at q so far
	rates          map[int]*rateTally
	last           perf.CurveProbe // the last load that failed
	out            perf.RateSearch
	done           bool
}

// rateTally is every load a search ran at one rate: its passes and fails, its visits, and the
// verdict of its loads so far.
type rateTally struct {
	pass, fail, visits int
	ok                 bool
}

func newRateSearch(start, top int, resolution float64) *rateSearch {
	return &rateSearch{start: start, top: top, resolution: resolution, q: start, rates: map[int]*rateTally{}}
}

// next is the rate of the search's next load, and false when the search has ended (its
// outcome in result).
func (s *rateSearch) next() (int, bool) {
	if !s.done && len(s.out.Steps) >= maxSearchSteps {
		lo, hi := s.bracket()
		s.end(lo, fmt.Sprintf("stopped after %d loads: %d requests/s passed, %d failed", maxSearchSteps, lo, hi))
	}
	return s.q, !s.done
}

// result is the search as it stands: its loads, the highest rate that passed and why it ended.
func (s *rateSearch) result() perf.RateSearch { return s.out }

func (s *rateSearch) end(highest int, reason string) {
	s.out.HighestQPS, s.out.Reason, s.done = highest, reason, true
}

// stop ends the search at a load's error, with what it has.
func (s *rateSearch) stop(err error) {
	lo, _ := s.bracket()
	s.end(lo, "stopped by an error: "+err.Error())
}

// bracket is the search's bracket from the verdicts so far: hi the lowest rate that failed (0
// when none has), lo the highest rate below it that passed (0 when none has).
func (s *rateSearch) bracket() (lo, hi int) {
	for q, t := range s.rates {
		if !t.ok && (hi == 0 || q < hi) {
			hi = q
		}
	}
	for q, t := range s.rates {
		if t.ok && q > lo && (hi == 0 || q < hi) {
			lo = q
		}
	}
	return lo, hi
}

// confirmed says whether rate q has been judged twice.
func (s *rateSearch) confirmed(q int) bool {
	return q == 0 || s.rates[q] != nil && s.rates[q].visits >= 2
}

// record takes the outcome of the load at the rate next named.
func (s *rateSearch) record(pr perf.CurveProbe) {
	s.out.Steps = append(s.out.Steps, pr)
	if pr.Pass {
		s.passed++
	} else {
		s.failed++
		s.last = pr
	}
	if 2*s.passed <= searchVotes && 2*s.failed <= searchVotes {
		return // no majority yet
	}
	t := s.rates[s.q]
	if t == nil {
		t = &rateTally{}
		s.rates[s.q] = t
	}
	t.pass, t.fail, t.visits = t.pass+s.passed, t.fail+s.failed, t.visits+1
	t.ok = t.pass > t.fail
	s.passed, s.failed = 0, 0

	lo, hi := s.bracket()
	// A bracket is closed when it is narrow enough, or when the lowest rate failed; a search
	// that no rate failed (every rate up to the top kept) has no knee to confirm.
	closed := hi != 0 && (lo == 0 || float64(hi-lo) <= s.resolution*float64(lo) || hi-lo <= 1)
	switch {
	case closed && !s.confirmed(lo):
		s.q = lo // judge the lower end again
	case closed && !s.confirmed(hi):
		s.q = hi // and the upper
	case lo == 0 && hi != 0:
		s.end(0, fmt.Sprintf("the first rate, %d requests/s, did not keep the bound in most of its loads, judged twice: %s", s.start, s.last.Why))
	case hi == 0 && lo >= s.top:
		s.end(lo, fmt.Sprintf("every rate up to the highest offered, %d requests/s, kept the bound", s.top))
	case closed:
		s.end(lo, fmt.Sprintf("%d requests/s passed and %d failed, within %.0f %%, each judged twice", lo, hi, 100*s.resolution))
	case hi == 0:
		s.q = min(2*lo, s.top)
	default:
		s.q = lo + (hi-lo)/2
	}
}

// interleavedSearches runs n rateSearches taking turns: one load of the first, one of the
// second, ... then again, each search left out once it has ended. Searches run one after
// another each see the machine of their own minutes; taking turns, a machine that slows over
// the run slows all of them alike, so their spread measures the search, not the drift. probe
// runs load step (from 1) of search number search (from 1) at qps; its error ends every search
// with what it has, and is returned.
func interleavedSearches(n, start, top int, resolution float64, probe func(search, step, qps int) (perf.CurveProbe, error)) ([]perf.RateSearch, error) {
	ss := make([]*rateSearch, n)
	for i := range ss {
		ss[i] = newRateSearch(start, top, resolution)
	}
	results := func() []perf.RateSearch {
		out := make([]perf.RateSearch, n)
		for i, s := range ss {
			out[i] = s.result()
		}
		return out
	}
	for active := true; active; {
		active = false
		for i, s := range ss {
			q, ok := s.next()
			if !ok {
				continue
			}
			active = true
			pr, err := probe(i+1, len(s.out.Steps)+1, q)
			if err != nil {
				for _, t := range ss {
					if !t.done {
						t.stop(err)
					}
				}
				return results(), err
			}
			s.record(pr)
		}
	}
	return results(), nil
}
