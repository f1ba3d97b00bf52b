package seedengine_test

import (
	"testing"
	"unicode/utf8"

	"github.com/seedengine/seedengine"
)

func TestPartitionValidate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		p         seedengine.Partition
		wantField string
	}{
		{seedengine.Partition{Country: "sg", Category: "news", Date: "2026-01-28"}, ""},
		{seedengine.Partition{Country: "intl", Category: "press_release", Date: "2024-02-29"}, ""},
		{seedengine.Partition{Country: "SG", Category: "news", Date: "2026-01-28"}, "country"},
		{seedengine.Partition{Country: "xx", Category: "news", Date: "2026-01-28"}, "country"},
		{seedengine.Partition{Country: "", Category: "news", Date: "2026-01-28"}, "country"},
		{seedengine.Partition{Country: "sg", Category: "News", Date: "2026-01-28"}, "category"},
		{seedengine.Partition{Country: "sg", Category: "a-b", Date: "2026-01-28"}, "category"},
		{seedengine.Partition{Country: "sg", Category: "", Date: "2026-01-28"}, "category"},
		{seedengine.Partition{Country: "sg", Category: "news", Date: "2026-02-30"}, "date"},
		{seedengine.Partition{Country: "sg", Category: "news", Date: "2025-02-29"}, "date"},
		{seedengine.Partition{Country: "sg", Category: "news", Date: "26-01-28"}, "date"},
		{seedengine.Partition{Country: "sg", Category: "news", Date: "2026-1-28"}, "date"},
	}
	for _, tt := range tests {
		err := tt.p.Validate()
		if got := seedengine.ErrorField(err); got != tt.wantField {
			t.Errorf("%+v: field %q (err %v), want %q", tt.p, got, err, tt.wantField)
		}
		if err != nil && seedengine.ErrorCode(err) != seedengine.EINVALID {
			t.Errorf("%+v: code %q, want invalid", tt.p, seedengine.ErrorCode(err))
		}
	}
}

func TestTruncate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		s    string
		n    int
		want string
	}{
		{"abc", 5, "abc"},
		{"abcdef", 6, "abcdef"},
		{"abcdef", 5, "ab…"},
		{"ééé", 5, "é…"}, // 2 bytes would split the second é
		{"ééé", 4, "…"},
		{"abc", 0, "…"},
	}
	for _, tt := range tests {
		got := seedengine.Truncate(tt.s, tt.n)
		if got != tt.want {
			t.Errorf("Truncate(%q, %d) = %q, want %q", tt.s, tt.n, got, tt.want)
		}
		if !utf8.ValidString(got) {
			t.Errorf("Truncate(%q, %d) = %q is not valid UTF-8", tt.s, tt.n, got)
		}
		if len(tt.s) > tt.n && len(got) > max(tt.n, len("…")) {
			t.Errorf("Truncate(%q, %d) = %q is longer than %d bytes", tt.s, tt.n, got, tt.n)
		}
	}
}
