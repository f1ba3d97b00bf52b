package seedengine_test

import (
	"encoding/json"
	"testing"

	"github.com/seedengine/seedengine"
)

func TestMergeResults(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, a, b, want string
	}{
		{"empty a", ``, `{"n":1}`, `{"n":1}`},
		{"null b", `{"n":1}`, `null`, `{"n":1}`},
		{"numbers add", `{"n":1}`, `{"n":2}`, `{"n":3}`},
		{"arrays concatenate", `{"keys":["a"]}`, `{"keys":["b","c"]}`, `{"keys":["a","b","c"]}`},
		{"objects merge", `{"v":{"alive":2,"dead":1}}`, `{"v":{"alive":1,"parked":4}}`, `{"v":{"alive":3,"dead":1,"parked":4}}`},
		{"scalars replaced", `{"s":"x","m":1}`, `{"s":"y"}`, `{"m":1,"s":"y"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := seedengine.MergeResults(json.RawMessage(tt.a), json.RawMessage(tt.b))
			if err != nil {
				t.Fatal(err)
			}
			var g, w any
			if err := json.Unmarshal(got, &g); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal([]byte(tt.want), &w); err != nil {
				t.Fatal(err)
			}
			gb, _ := json.Marshal(g)
			wb, _ := json.Marshal(w)
			if string(gb) != string(wb) {
				t.Errorf("MergeResults(%s, %s) = %s, want %s", tt.a, tt.b, gb, wb)
			}
		})
	}
}
