package charts

import "regexp"

// loadGroupPatterns name the loads a plan repeats: the growth plan's "<variant> round <k>", the
// curve plan's "curve-<rate>qps-r<k>" (one group: the rate rises along it) and its searches'
// "search<n>-step<k>-<rate>qps". The first submatch is the group's name.
var loadGroupPatterns = []*regexp.Regexp{
	regexp.MustCompile(`^(.+) round \d+$`),
	regexp.MustCompile(`^(curve)-\d+qps-r\d+$`),
	regexp.MustCompile(`^(search\d+)-step\d+-\d+qps$`),
}

// loadGroup is the group a named load belongs to, for a chart that draws a group in one
// colour: the variant, "curve" or the search; any other name is a group of its own.
func loadGroup(name string) string {
	for _, re := range loadGroupPatterns {
		if m := re.FindStringSubmatch(name); m != nil {
			return m[1]
		}
	}
	return name
}
