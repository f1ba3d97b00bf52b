package seedengine

import (
	"strconv"
	"strings"
)

// cronFields are the five fields of a cron expression with their ranges.
var cronFields = [5]struct {
	name     string
	min, max int
}{
	{"minute", 0, 59},
	{"hour", 0, 23},
	{"day of month", 1, 31},
	{"month", 1, 12},
	{"day of week", 0, 7}, // 0 and 7 are both Sunday
}

var cronMacros = map[string]bool{
	"@yearly": true, "@annually": true, "@monthly": true, "@weekly": true,
	"@daily": true, "@midnight": true, "@hourly": true,
}

var cronNames = map[int]map[string]int{
	3: {"jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "oct": 10, "nov": 11, "dec": 12},
	4: {"sun": 0, "mon": 1, "tue": 2, "wed": 3, "thu": 4, "fri": 5, "sat": 6},
}

// ValidateCron checks a seed schedule: five space-separated cron fields
// (minute, hour, day of month, month, day of week), each "*", a number, a
// range "a-b", a step "*/n" or "a-b/n", or a comma-separated list of
// those; month and weekday names (jan, mon) are accepted. The macros
// @hourly, @daily, @midnight, @weekly, @monthly, @yearly and @annually are
// accepted too. EINVALID with Field "fetch.schedule".
func ValidateCron(expr string) error {
	expr = strings.TrimSpace(expr)
	if expr == "" {
		return FieldErrorf("fetch.schedule", "fetch.schedule is required (a cron expression such as \"*/30 * * * *\")")
	}
	if strings.HasPrefix(expr, "@") {
		if cronMacros[strings.ToLower(expr)] {
			return nil
		}
		return FieldErrorf("fetch.schedule", "fetch.schedule macros are @hourly, @daily, @midnight, @weekly, @monthly, @yearly and @annually")
	}
	fields := strings.Fields(expr)
	if len(fields) != 5 {
		return FieldErrorf("fetch.schedule", "fetch.schedule must have 5 fields (minute hour day-of-month month day-of-week), not %d", len(fields))
	}
	for i, f := range fields {
		if !validCronField(f, i) {
			return FieldErrorf("fetch.schedule", "fetch.schedule: the %s field must be *, values, ranges or steps within %d–%d", cronFields[i].name, cronFields[i].min, cronFields[i].max)
		}
	}
	return nil
}

func validCronField(f string, i int) bool {
	for part := range strings.SplitSeq(f, ",") {
		rng, step, hasStep := strings.Cut(part, "/")
		if hasStep {
			n, err := strconv.Atoi(step)
			if err != nil || n < 1 || n > cronFields[i].max+1 {
				return false
			}
		}
		if rng == "*" {
			continue
		}
		lo, hi, isRange := strings.Cut(rng, "-")
		a, ok := cronValue(lo, i)
		if !ok {
			return false
		}
		if isRange {
			b, ok := cronValue(hi, i)
			if !ok || b < a {
				return false
			}
		}
	}
	return true
}

func cronValue(s string, i int) (int, bool) {
	if v, ok := cronNames[i][strings.ToLower(s)]; ok {
		return v, true
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < cronFields[i].min || n > cronFields[i].max || s == "" || s[0] == '+' || s[0] == '-' {
		return 0, false
	}
	return n, true
}
