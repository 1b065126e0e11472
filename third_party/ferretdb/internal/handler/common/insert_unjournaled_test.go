// gridfsd patch (PATCHES.md item 50).

package common

import (
	"log/slog"
	"testing"

	"github.com/gridfsd/gridfsd/third_party/ferretdb/internal/types"
	"github.com/gridfsd/gridfsd/third_party/ferretdb/internal/util/must"
)

// Only an explicit j: false asks for an unjournaled insert.
func TestInsertUnjournaled(t *testing.T) {
	for _, tc := range []struct {
		name string
		wc   *types.Document
		want bool
	}{
		{"none", nil, false},
		{"j false", must.NotFail(types.NewDocument("w", int32(1), "j", false)), true},
		{"j true", must.NotFail(types.NewDocument("j", true)), false},
		{"w only", must.NotFail(types.NewDocument("w", "majority")), false},
		{"j not a bool", must.NotFail(types.NewDocument("j", int32(0))), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := must.NotFail(types.NewDocument("insert", "c", "documents", types.MakeArray(0), "$db", "d"))
			if tc.wc != nil {
				doc.Set("writeConcern", tc.wc)
			}
			params, err := GetInsertParams(doc, slog.New(slog.DiscardHandler))
			if err != nil {
				t.Fatal(err)
			}
			if got := params.Unjournaled(); got != tc.want {
				t.Errorf("Unjournaled() = %v; want %v", got, tc.want)
			}
		})
	}
}
